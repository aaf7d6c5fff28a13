"""Prints a spec of N repeats of the block y = x + tanh(x) on a [4, 8] input."""
import sys

n = int(sys.argv[1])
print('name: "deep"')
print('inputs { name: "x" dtype: F32 shape: ["4", "8"] }')
print('blocks { name: "b" inputs: ["x"] outputs: ["y"]')
print('  layers { name: "s" inputs: ["x"] outputs: ["t"] tanh {} }')
print('  layers { name: "a" inputs: ["x", "t"] outputs: ["y"] add {} }')
print('}')
print(f'layers {{ name: "stack" inputs: ["x"] outputs: ["y"] '
      f'block {{ block: "b" repeat: {n} }} }}')
print('outputs: ["y"]')
