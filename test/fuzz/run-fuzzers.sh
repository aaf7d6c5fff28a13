#!/usr/bin/env bash
# Runs every fuzz target of a fuzz build for a bounded time (docs/fuzzing.md):
#
#   test/fuzz/run-fuzzers.sh BUILD SECONDS [JOBS] [TARGET...]
#
# JOBS targets at a time (default 2), each SECONDS seconds. A target first
# runs its regression inputs (test/fuzz/regressions/TARGET/) and its seeds
# (test/fuzz/corpus/TARGET/), then mutates them; what it adds to the corpus
# goes to BUILD/fuzz-corpus/TARGET/, never to the checked-in seeds. A crash,
# an ASan or UBSan report, a leak, an input that runs longer than 10 s
# (-timeout) or takes more than 2 GiB (-rss_limit_mb, -malloc_limit_mb) is a
# finding: the input is written to BUILD/fuzz-findings/TARGET/, the report
# is printed, and the script exits 1.
set -uo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 BUILD SECONDS [JOBS] [TARGET...]" >&2
  exit 2
fi
src="$(cd "$(dirname "$0")/../.." && pwd)"
build="$(cd "$1" && pwd)"
seconds="$2"
jobs="${3:-2}"
shift $(($# < 3 ? $# : 3))
targets=("$@")
[ ${#targets[@]} -gt 0 ] ||
  targets=(spec_text spec_binary onnx safetensors artifact checkpoint data)

# One target; its log is BUILD/fuzz-logs/TARGET.log.
run_one() {
  local target="$1" corpus="$build/fuzz-corpus/$1"
  local findings="$build/fuzz-findings/$1/" log="$build/fuzz-logs/$1.log"
  mkdir -p "$corpus" "$findings" "$(dirname "$log")"
  local inputs=("$corpus" "$src/test/fuzz/corpus/$target")
  [ -d "$src/test/fuzz/regressions/$target" ] &&
    inputs+=("$src/test/fuzz/regressions/$target")
  local options=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048
    -malloc_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$findings")
  [ -f "$build/test/fuzz/$target.dict" ] &&
    options+=(-dict="$build/test/fuzz/$target.dict")
  "$build/bin/fuzz_$target" "${options[@]}" "${inputs[@]}" > "$log" 2>&1 &
  local pid=$!
  wait $pid
  local status=$?
  # The input files of a target that crashed (test/fuzz/FuzzSupport.h).
  local dir=/dev/shm
  [ -w "$dir" ] || dir="${TMPDIR:-/tmp}"
  rm -f "$dir/transfuse-fuzz-$pid-"*
  local runs
  runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")"
  if [ $status -eq 0 ]; then
    echo "fuzz $target: ${runs:-?} inputs in ${seconds} s, no finding"
  else
    echo "fuzz $target: FINDING (exit $status), report in $log:"
    awk '/ERROR|SUMMARY|runtime error|expected|Test unit written/ { print; next }
         /^    #[0-9]+ / && frames++ < 15' "$log" | sed 's/^/  /'
  fi
  return $status
}
export -f run_one
export build src seconds

printf '%s\n' "${targets[@]}" | xargs -P "$jobs" -I{} bash -c 'run_one {}'
status=$?
if [ $status -ne 0 ]; then
  echo "fuzzing found a problem: the inputs are in $build/fuzz-findings;" \
    "docs/fuzzing.md says how to make one a regression test" >&2
  exit 1
fi
