#!/usr/bin/env bash
# Writes the fuzz targets' seed corpora, test/fuzz/corpus/TARGET/, from the
# seed models and what the project's own tools make of them, with the tools
# of a main build: test/fuzz/make-corpus.sh [BUILD] (default build).
# docs/fuzzing.md says what each corpus holds.
set -euo pipefail
src="$(cd "$(dirname "$0")/../.." && pwd)"
build="$(cd "${1:-$src/build}" && pwd)"
bin="$build/bin"
corpus="$src/test/fuzz/corpus"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
rm -rf "$corpus"
mkdir -p "$corpus"/{spec_text,spec_binary,onnx,safetensors,artifact,checkpoint,data}

# Specs: the seed models, the tools' tests' small one, and error cases of
# the importer's tests, each reaching a different check.
for spec in "$src"/models/*.pbtxt "$src"/test/Tools/transfuse-compile/Inputs/tiny.pbtxt \
    "$src"/test/Import/bad/{block-repeat-shape,constant-count,concat-shapes,masked-fill-shapes,positional-encoding-odd-width,reshape-overflow,training-cosine-warmup,transpose-perm,triangular-mask-rank}.pbtxt; do
  name="$(basename "$spec" .pbtxt)"
  cp "$spec" "$corpus/spec_text/$name"
done
for spec in "$src"/models/*.pbtxt "$src"/test/Tools/transfuse-compile/Inputs/tiny.pbtxt; do
  protoc --proto_path="$src/models" --encode=transfuse.spec.Model model.proto \
    < "$spec" > "$corpus/spec_binary/$(basename "$spec" .pbtxt)"
done

# ONNX models: the importer's tests, written as text, encoded; an error
# case that reaches the converters (its node's inputs are defined).
for model in "$src"/test/Import/onnx/*.test "$src"/test/Import/onnx/bad/{integer-arithmetic,matmul-shapes,where-computed,dropout-mask}.test; do
  protoc --proto_path=/usr/include/onnx --encode=onnx.ModelProto onnx.proto \
    < "$model" > "$corpus/onnx/$(basename "$model" .test)"
done

# Manifests as the compiler writes them (the fake models' of the runtime's
# tests), and whole containers of code that is no ELF file.
for model in fake classifier lm seq2seq; do
  "$bin/make-test-tfm" --model "$model" --print-manifest \
    > "$corpus/artifact/$model.json"
done
# A compiled decoder-only model's, whose entry points keep a decoding cache.
"$bin/transfuse-compile" "$src/models/char_lm.pbtxt" -D batch=1 -D seq=4 \
  --inference-only --target=cpu -o "$work/decoder.tfm"
/usr/bin/python3 -c 'import json, struct, sys
data = open(sys.argv[1], "rb").read()
size = struct.unpack_from("<Q", data, 16)[0]
print(json.dumps(json.loads(data[32:32 + size]), indent=2, sort_keys=True))' \
  "$work/decoder.tfm" > "$corpus/artifact/decoder.json"
printf 'not an ELF shared object' > "$work/code"
"$bin/make-test-tfm" --model classifier --code "$work/code" \
  -o "$corpus/artifact/classifier.tfm"

# safetensors: weights and inputs of the fake model, its outputs, and a
# checkpoint of the fake classifier, which is also the checkpoint seed.
/usr/bin/python3 "$src/test/python/fake_model.py" weights "$corpus/safetensors/weights"
/usr/bin/python3 "$src/test/python/fake_model.py" inputs "$corpus/safetensors/inputs"
/usr/bin/python3 "$src/test/python/fake_model.py" tokens "$corpus/safetensors/tokens" 0 1 2 3 4 0
"$bin/make-test-tfm" -o "$work/fake.tfm"
"$bin/transfuse-run" "$work/fake.tfm" --weights "$corpus/safetensors/weights" \
  --inputs "$corpus/safetensors/inputs" --outputs "$corpus/safetensors/outputs"
"$bin/make-test-tfm" --model classifier -o "$work/classifier.tfm"
printf '0\tgood\n1\tbad\n2\tso so\n0\tfine\n' > "$work/labelled.tsv"
"$bin/transfuse-train" "$work/classifier.tfm" --data "$work/labelled.tsv" \
  --steps 2 --save "$corpus/checkpoint/classifier" --quiet
cp "$corpus/checkpoint/classifier" "$corpus/safetensors/checkpoint"

# Data: a byte corpus, labelled text, generated seq2seq ids and sentiment
# text, and a word vocabulary.
head -c 600 "$src/docs/data.md" > "$corpus/data/text"
cp "$work/labelled.tsv" "$corpus/data/labelled.tsv"
"$bin/transfuse-data" generate copy --count 12 --out "$corpus/data/copy.ids"
"$bin/transfuse-data" generate sentiment --count 12 --out "$corpus/data/sentiment.tsv"
printf '<pad>\n<unk>\n<s>\n</s>\ngood\nbad\nso\nfine\n' > "$corpus/data/vocabulary"
du -sh "$corpus"
