"""`transfuse-run --generate` (prefill, then decode_step on the KV cache)
continues each prompt greedily exactly as `transfuse-run --text` does by
running forward on the whole sequence for every token.

    generate_cli_check.py --run transfuse-run --tfm M.tfm [--seed N] \
        --prompts P.txt --generated G.txt --max-new-tokens N --context S

P.txt holds the prompts given to --generate, one a line, and G.txt what it
printed. For prompt i, --text is run with as many new tokens as --generate
may make: N, or fewer where the prompt and N tokens overflow the context S
(--text would then slide its window, which --generate never does); its raw
bytes, escaped as --generate escapes them (backslash as \\, line feed as \n,
carriage return as \r), must be line i of G.txt, byte for byte. --seed is
the parameters' seed both runs use. Prints one `OK prompt i` line per prompt,
naming the bytes that were escaped, or `MISMATCH prompt i` (and MISMATCH
where the line counts differ); exits 1 on any mismatch.
"""
import argparse
import subprocess
import sys


ESCAPES = [(b"\\", b"\\\\", "backslash"), (b"\n", b"\\n", "line feed"),
           (b"\r", b"\\r", "carriage return")]


def escape(data):
    """--generate's escaping of a continuation onto one line."""
    for raw, escaped, _ in ESCAPES:
        data = data.replace(raw, escaped)
    return data


def split_lines(data):
    """The lines of `data` without their line feeds; None if the last one
    has none."""
    if data and not data.endswith(b"\n"):
        return None
    return data.split(b"\n")[:-1]


def lines(path):
    """The file's lines, as bytes, without their line feeds."""
    with open(path, "rb") as f:
        return split_lines(f.read())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--run", required=True)
    parser.add_argument("--tfm", required=True)
    parser.add_argument("--prompts", required=True)
    parser.add_argument("--generated", required=True)
    parser.add_argument("--max-new-tokens", type=int, required=True)
    parser.add_argument("--context", type=int, required=True)
    parser.add_argument("--seed")
    args = parser.parse_args()

    prompts = lines(args.prompts)
    generated = lines(args.generated)
    if generated is None or len(generated) != len(prompts):
        printed = ("an unterminated line" if generated is None
                   else f"{len(generated)} lines")
        print(f"MISMATCH {len(prompts)} prompts but --generate printed "
              f"{printed}")
        return 1

    ok = True
    for i, (prompt, line) in enumerate(zip(prompts, generated), 1):
        room = args.context - len(prompt)
        steps = min(args.max_new_tokens, room)
        command = [args.run, args.tfm, "--text", prompt, "--max-new-tokens",
                   str(steps)]
        if args.seed is not None:
            command += ["--seed", args.seed]
        result = subprocess.run(command, check=True, capture_output=True)
        if not result.stdout.endswith(b"\n"):
            print(f"MISMATCH prompt {i}: --text output has no final line "
                  f"feed: {result.stdout!r}")
            ok = False
            continue
        raw = result.stdout[:-1]
        expected = escape(raw)
        cut = "cut at the context" if steps < args.max_new_tokens else ""
        if line == expected and len(raw) == steps:
            escaped = [name for byte, _, name in ESCAPES if byte in raw]
            print(f"OK prompt {i}: {len(prompt)} prompt bytes, {steps} new"
                  + (f" ({cut})" if cut else "")
                  + (f", escaped {', '.join(escaped)}" if escaped else ""))
        else:
            ok = False
            print(f"MISMATCH prompt {i} {prompt!r}: --generate {line!r}, "
                  f"--text {expected!r} ({steps} new"
                  + (f", {cut})" if cut else ")"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
