"""Runs a command and checks how it ended, for the lit tests of the tools.

    exit_status.py --status 1 -- transfuse-train ...
    exit_status.py --signal INT --when 'DIR/*.tmp' -- transfuse-train ...

The command's output passes through. With --signal, the signal is sent once
a file matching the --when pattern exists (a temporary the command is
writing), and the command must end by it. Exits 0 if the command ended as
expected, else 1 with what happened on stderr.
"""

import argparse
import glob
import signal
import subprocess
import sys
import time


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--status", type=int)
    parser.add_argument("--signal")
    parser.add_argument("--when")
    parser.add_argument("command", nargs="+")
    args = parser.parse_args()

    sent = getattr(signal, "SIG" + args.signal) if args.signal else None
    # A test runner may ignore SIGINT, and its children would inherit that.
    process = subprocess.Popen(
        args.command,
        preexec_fn=lambda: sent and signal.signal(sent, signal.SIG_DFL))
    if sent:
        deadline = time.monotonic() + 120
        while not glob.glob(args.when) and process.poll() is None:
            if time.monotonic() > deadline:
                process.kill()
                sys.exit("no file matched %s" % args.when)
            time.sleep(0.01)
        process.send_signal(sent)
    status = process.wait()

    expected = -sent if sent else args.status
    if status != expected:
        def how(code):
            if code < 0:
                return "killed by %s" % signal.Signals(-code).name
            return "exit status %d" % code
        sys.exit("%s: %s, expected %s" %
                 (args.command[0], how(status), how(expected)))


if __name__ == "__main__":
    main()
