"""A data-parallel run whose rank 1 dies or hangs ends, with a message.

    rank_failure_check.py kill|stop CHECKPOINT -- mpirun ... transfuse-train ...

Starts the command (a run that saves CHECKPOINT every few steps), waits for
the first checkpoint, then SIGKILLs rank 1 (`kill`: the launcher sees it
die) or SIGSTOPs it (`stop`: alive but silent, so only the other rank's
all-reduce timeout can tell). The run must then end within 60 s, non-zero,
and the checkpoint must still be a whole one. Prints what it saw, and the
run's stderr, for FileCheck.
"""

import os
import signal
import subprocess
import sys
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import safetensors_io  # noqa: E402

LIMIT = 60.0
MARK = "TRANSFUSE_RANK_FAILURE_CHECK"


def rank_process(mark, rank):
    """The pid of the process of rank `rank` that carries `mark`."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                variables = f.read().split(b"\0")
        except OSError:
            continue
        if (f"{MARK}={mark}".encode() in variables and
                f"OMPI_COMM_WORLD_RANK={rank}".encode() in variables):
            return int(entry)
    return None


def main():
    how, checkpoint = sys.argv[1], sys.argv[2]
    command = sys.argv[sys.argv.index("--") + 1:]
    mark = uuid.uuid4().hex
    run = subprocess.Popen(command, env={**os.environ, MARK: mark},
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           text=True)
    deadline = time.monotonic() + LIMIT
    while not os.path.exists(checkpoint):
        if run.poll() is not None or time.monotonic() > deadline:
            print(f"FAIL: no checkpoint appeared; the run "
                  f"{'ended' if run.poll() is not None else 'hung'}")
            run.kill()
            print(run.communicate()[1])
            sys.exit(1)
        time.sleep(0.05)
    victim = rank_process(mark, 1)
    if victim is None:
        run.kill()
        print("FAIL: rank 1 is not among the processes")
        sys.exit(1)
    os.kill(victim, signal.SIGKILL if how == "kill" else signal.SIGSTOP)
    start = time.monotonic()
    try:
        _, stderr = run.communicate(timeout=LIMIT)
    except subprocess.TimeoutExpired:
        os.kill(victim, signal.SIGKILL)
        run.kill()
        print(f"FAIL: the run was still going {LIMIT:.0f} s after rank 1 "
              f"was {'killed' if how == 'kill' else 'stopped'}")
        sys.exit(1)
    elapsed = time.monotonic() - start
    if how == "stop":
        try:
            os.kill(victim, signal.SIGKILL)
        except ProcessLookupError:
            pass
    tensors, metadata = safetensors_io.load(checkpoint)
    print(f"ended within {LIMIT:.0f} s: {elapsed < LIMIT}")
    print(f"exit status non-zero: {run.returncode != 0}")
    print(f"checkpoint intact: step {metadata['step']}, {len(tensors)} tensors")
    print(stderr)
    sys.exit(0 if run.returncode != 0 else 1)


if __name__ == "__main__":
    main()
