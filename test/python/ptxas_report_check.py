#!/usr/bin/env python3
"""Checks ptxas -v reports: every kernel of every architecture spills nothing.

ptxas reports each kernel as

    ptxas info    : Compiling entry function 'NAME' for 'sm_90'
    ptxas info    : Function properties for NAME
        0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
    ptxas info    : Used 40 registers, ...

Prints, per architecture, the kernels and the most registers one uses, then
one SPILL line per kernel that spills; exits non-zero if any does, or if a
report names no kernel for an architecture it was asked to hold
(--arch, repeatable).
"""
import argparse
import re
import sys

ENTRY = re.compile(r"Compiling entry function '([^']+)' for '(sm_\d+)'")
SPILLS = re.compile(r"(\d+) bytes spill stores, (\d+) bytes spill loads")
REGISTERS = re.compile(r"Used (\d+) registers")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", nargs="+")
    parser.add_argument("--arch", action="append", default=[])
    args = parser.parse_args()

    kernels, registers, spilling = {}, {}, []
    for path in args.reports:
        kernel = arch = None
        for line in open(path):
            if match := ENTRY.search(line):
                kernel, arch = match.groups()
                kernels[arch] = kernels.get(arch, 0) + 1
            elif (match := SPILLS.search(line)) and kernel:
                if match.group(1) != "0" or match.group(2) != "0":
                    spilling.append(f"{arch} {kernel}: {line.strip()}")
            elif (match := REGISTERS.search(line)) and arch:
                registers[arch] = max(registers.get(arch, 0),
                                      int(match.group(1)))
    for arch in sorted(kernels):
        print(f"{arch}: {kernels[arch]} kernels, at most "
              f"{registers.get(arch, 0)} registers")
    missing = [arch for arch in args.arch if arch not in kernels]
    for arch in missing:
        print(f"MISSING {arch}: no kernel reported")
    for line in spilling:
        print("SPILL " + line)
    print("spilling kernels:", len(spilling))
    return 1 if spilling or missing else 0


if __name__ == "__main__":
    sys.exit(main())
