#!/usr/bin/env python3
"""Checks a CUDA .tfm against docs/artifact.md without a GPU.

The container's manifest says target "cuda", the architectures asked for,
one cubin image per architecture and the PTX of the last one, the generated
kernels and the library workspace, and an arena for every entry point. Its
code is a shared object whose only undefined symbols are the CUDA runtime's
functions (tfrt_cuda_*) and which exports every entry point and every
image, each of the size the manifest gives. Prints one line per fact.
"""
import argparse
import json
import os
import struct
import subprocess
import sys
import tempfile


def read_tfm(path):
    data = open(path, "rb").read()
    manifest_size, code_size = struct.unpack_from("<QQ", data, 16)
    manifest = json.loads(data[32:32 + manifest_size])
    return manifest, data[32 + manifest_size:32 + manifest_size + code_size]


def symbols(code, nm):
    with tempfile.NamedTemporaryFile(suffix=".so") as library:
        library.write(code)
        library.flush()
        out = subprocess.run([nm, "-D", "--print-size", library.name],
                             capture_output=True, text=True, check=True).stdout
    defined, undefined = {}, set()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) == 2 and fields[0] == "U":
            undefined.add(fields[1])
        elif len(fields) == 4:
            defined[fields[3]] = int(fields[1], 16)
    return defined, undefined


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tfm")
    parser.add_argument("--arch", action="append", required=True)
    parser.add_argument("--nm", default="llvm-nm")
    args = parser.parse_args()
    manifest, code = read_tfm(args.tfm)
    problems = []
    cuda = manifest.get("cuda", {})
    print("target:", manifest["target"])
    print("archs:", ", ".join(cuda.get("archs", [])))
    if cuda.get("archs") != args.arch:
        problems.append(f"archs {cuda.get('archs')} != {args.arch}")
    images = [(i["arch"], i["format"]) for i in cuda.get("images", [])]
    expected = [(a, "cubin") for a in args.arch]
    expected.append(("compute_" + args.arch[-1][3:], "ptx"))
    print("images:", ", ".join(f"{a} {f}" for a, f in images))
    if images != expected:
        problems.append(f"images {images} != {expected}")
    print("kernels:", "none" if not cuda.get("kernels") else "some")
    print("workspace:", "yes" if cuda.get("workspace_bytes", 0) > 0 else "no")
    for entry in manifest["entry_points"]:
        arena = entry.get("arena_bytes")
        print(f"entry {entry['name']}: arena",
              "planned" if isinstance(arena, int) and arena >= 0 else arena)

    defined, undefined = symbols(code, args.nm)
    foreign = sorted(u for u in undefined if not u.startswith("tfrt_cuda_"))
    print("undefined outside the CUDA runtime:", ", ".join(foreign) or "none")
    for entry in manifest["entry_points"]:
        if entry["symbol"] not in defined:
            problems.append(f"entry symbol {entry['symbol']} not exported")
    for image in cuda.get("images", []):
        if defined.get(image["symbol"]) != image["bytes"]:
            problems.append(f"image {image['symbol']}: exported "
                            f"{defined.get(image['symbol'])} bytes, manifest "
                            f"{image['bytes']}")
    for problem in problems:
        print("PROBLEM", problem)
    return 1 if problems or foreign else 0


if __name__ == "__main__":
    sys.exit(main())
