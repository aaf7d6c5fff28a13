"""A reference evaluator of nn-dialect modules, the oracle of the fusion tests.

It reads a module in MLIR's *generic* form (`transfuse-opt
--mlir-print-op-generic FILE`) and runs a function on PyTorch tensors, one op
at a time, exactly as docs/dialect/nn.md defines each op. Floats of every
width are computed in float64, integers as int64 and i1 as bool, so that a
graph and its fused rewrite can be compared far below float32 rounding.

Understood:
  * module level: `nn.parameter` (sym_name, type, init), `nn.cache`
    (loaded like a parameter without an init: its value must be given),
    `func.func`;
  * in bodies: `func.return`, `func.call`, `arith.constant` (splat and
    non-splat `dense<...>`, hex blobs `dense<"0x...">`, `dense_resource`
    blobs, float/int/bool, rank 0), `nn.param_load` and every other nn op.
Anything else -- an op, a property (inherent attribute) of an op, an
attribute form or a type this file does not know -- raises EvalError or
ParseError naming it and its line: nothing is skipped or ignored.

Every result is checked against the type the op declares (shape and element
kind), so an evaluator bug or an ill-typed rewrite shows up where it happens.

Python API:
    evaluate(mlir_text, function_name, inputs, params) -> [torch.Tensor]
    parse_module(mlir_text) -> Module   (Module.evaluate(...) for many runs)

Command line (prints every result, for known-answer tests):
    nn_eval.py [--opt transfuse-opt] FILE.mlir [--function NAME]... [--nested]
prints `@f #0 tensor<2x2xf32> = 1, -2, 3, -4` (row-major) per result of
every function, which must take no arguments. With --opt the file may be in
either form; without, it must be generic. Parameters take their init, which
must then be deterministic (zeros, ones, constant).

Runs on Debian's python3-torch (1.13) under /usr/bin/python3.
"""
import argparse
import math
import re
import struct
import subprocess
import sys

import torch
import torch.nn.functional as F


class ParseError(Exception):
    """The text is not a generic-form module this evaluator can read."""


class EvalError(Exception):
    """An op cannot be evaluated: unknown, ill-typed or out of range."""


# --------------------------------------------------------------------------
# Types
# --------------------------------------------------------------------------

FLOAT_TYPES = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}
_INT_RE = re.compile(r"^[su]?i(\d+)$")


class TensorType:
    """A statically shaped tensor type (a scalar type is a rank-0 tensor)."""

    def __init__(self, shape, elem, text):
        self.shape = tuple(shape)
        self.elem = elem
        self.text = text

    @property
    def is_float(self):
        return self.elem in FLOAT_TYPES

    @property
    def is_bool(self):
        return self.elem == "i1"

    @property
    def is_int(self):
        return bool(_INT_RE.match(self.elem)) and self.elem != "i1"

    @property
    def torch_dtype(self):
        if self.is_float:
            return torch.float64
        if self.is_bool:
            return torch.bool
        if self.is_int:
            return torch.int64
        raise EvalError(f"unsupported element type '{self.elem}' in {self.text}")

    def numel(self):
        n = 1
        for d in self.shape:
            n *= d
        return n

    def __eq__(self, other):
        return (isinstance(other, TensorType) and self.shape == other.shape
                and self.elem == other.elem)

    def __hash__(self):
        return hash((self.shape, self.elem))

    def __repr__(self):
        return self.text


def _is_elem_type(text):
    return text in FLOAT_TYPES or bool(_INT_RE.match(text)) or text == "index"


def parse_type(text):
    """`tensor<2x3xf32>`, `tensor<f32>` or a scalar type such as `f32`."""
    t = text.strip()
    if _is_elem_type(t):
        return TensorType((), t, t)
    m = re.fullmatch(r"tensor<(.*)>", t)
    if not m:
        raise ParseError(f"unsupported type '{t}' (expected a ranked tensor)")
    body = m.group(1).strip()
    if "," in body:
        raise ParseError(f"unsupported tensor type with an encoding: '{t}'")
    parts = body.split("x")
    elem = parts[-1]
    if not _is_elem_type(elem):
        raise ParseError(f"unsupported element type in '{t}'")
    shape = []
    for p in parts[:-1]:
        if not p.isdigit():
            raise ParseError(f"not a statically shaped tensor: '{t}'")
        shape.append(int(p))
    return TensorType(shape, elem, t)


def _split_top(text, sep=","):
    """Splits at `sep` outside (), [], {}, <> and strings."""
    parts, depth, cur, i, n = [], 0, [], 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = _skip_string(text, i)
            cur.append(text[i:j])
            i = j
            continue
        if c == "-" and i + 1 < n and text[i + 1] == ">":
            cur.append("->")
            i += 2
            continue
        if c in "([{<":
            depth += 1
        elif c in ")]}>":
            depth -= 1
        if c == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        i += 1
    tail = "".join(cur)
    if tail.strip() or parts:
        parts.append(tail)
    return [p.strip() for p in parts]


def _skip_string(text, i):
    """Index just past the string literal starting at text[i] == '"'."""
    j = i + 1
    while j < len(text):
        if text[j] == "\\":
            j += 2
            continue
        if text[j] == '"':
            return j + 1
        j += 1
    raise ParseError("unterminated string literal")


def parse_type_list(text):
    t = text.strip()
    if t.startswith("(") and t.endswith(")") and _matching(t, 0) == len(t) - 1:
        inner = t[1:-1].strip()
        return [parse_type(x) for x in _split_top(inner)] if inner else []
    return [parse_type(t)]


def parse_function_type(text):
    """`(T, T) -> (T, T)` or `(T) -> T` into ([TensorType], [TensorType])."""
    t = text.strip()
    if not t.startswith("("):
        raise ParseError(f"not a function type: '{t}'")
    close = _matching(t, 0)
    rest = t[close + 1:].strip()
    if not rest.startswith("->"):
        raise ParseError(f"not a function type: '{t}'")
    return parse_type_list(t[:close + 1]), parse_type_list(rest[2:])


def _matching(text, i):
    """Index of the bracket closing the one at text[i]."""
    pairs = {"(": ")", "[": "]", "{": "}", "<": ">"}
    stack, j = [], i
    while j < len(text):
        c = text[j]
        if c == '"':
            j = _skip_string(text, j)
            continue
        if c == "-" and j + 1 < len(text) and text[j + 1] == ">":
            j += 2
            continue
        if c in pairs:
            stack.append(pairs[c])
        elif c in ")]}>":
            if not stack or stack.pop() != c:
                raise ParseError(f"unbalanced '{c}' in '{text[i:j + 1]}'")
            if not stack:
                return j
        j += 1
    raise ParseError(f"unbalanced bracket in '{text[i:i + 80]}'")


# --------------------------------------------------------------------------
# Attributes
# --------------------------------------------------------------------------

def _float_from_bits(hex_text, width_type):
    bits = int(hex_text, 16)
    if width_type == "f64":
        return struct.unpack("<d", struct.pack("<Q", bits))[0]
    if width_type == "f32":
        return struct.unpack("<f", struct.pack("<I", bits))[0]
    if width_type == "f16":
        return struct.unpack("<e", struct.pack("<H", bits))[0]
    if width_type == "bf16":
        return struct.unpack("<f", struct.pack("<I", bits << 16))[0]
    raise ParseError(f"hexadecimal float literal for type '{width_type}'")


def _scalar_literal(tok, elem):
    """One element literal of a dense attribute or a typed scalar attr."""
    tok = tok.strip()
    if elem == "i1":
        if tok in ("true", "1"):
            return True
        if tok in ("false", "0"):
            return False
        raise ParseError(f"bad i1 literal '{tok}'")
    if elem in FLOAT_TYPES:
        if re.fullmatch(r"0x[0-9a-fA-F]+", tok):
            return _float_from_bits(tok[2:], elem)
        try:
            return float(tok)
        except ValueError:
            raise ParseError(f"bad float literal '{tok}'") from None
    if tok in ("true", "false"):
        return 1 if tok == "true" else 0
    try:
        return int(tok, 0)
    except ValueError:
        raise ParseError(f"bad integer literal '{tok}'") from None


def _flatten_literal(text):
    """Nested `[[1, 2], [3, 4]]` into a flat token list and its nest shape."""
    tokens = re.findall(r"\[|\]|,|[^\[\],\s]+", text)
    flat, shape, depth, counts = [], [], 0, []
    for tok in tokens:
        if tok == "[":
            depth += 1
            counts.append(0)
        elif tok == "]":
            n = counts.pop()
            depth -= 1
            lvl = len(counts)
            if len(shape) <= lvl:
                shape.extend([None] * (lvl + 1 - len(shape)))
            if shape[lvl] is None:
                shape[lvl] = n
            elif shape[lvl] != n:
                raise ParseError(f"ragged dense literal '{text[:80]}'")
            if counts:
                counts[-1] += 1
        elif tok == ",":
            continue
        else:
            if tok.startswith("("):
                raise ParseError("complex dense literals are not supported")
            flat.append(tok)
            if counts:
                counts[-1] += 1
    if depth != 0:
        raise ParseError(f"unbalanced dense literal '{text[:80]}'")
    return flat, [s for s in shape if s is not None]


def _tensor_from_blob(data, ty):
    """A tensor from the little-endian raw buffer of an elements attribute."""
    n = ty.numel()
    if ty.is_bool:
        # Bit-packed, least significant bit first; one byte is a splat.
        if n > 8 and len(data) == 1:
            return torch.full(ty.shape, data[0] != 0, dtype=torch.bool)
        if len(data) != (n + 7) // 8:
            raise ParseError(f"i1 blob of {len(data)} bytes for {ty.text}")
        vals = [bool((data[i // 8] >> (i % 8)) & 1) for i in range(n)]
        return torch.tensor(vals, dtype=torch.bool).reshape(ty.shape)
    if ty.is_float:
        fmt = {"f16": "e", "f32": "f", "f64": "d", "bf16": "H"}[ty.elem]
    elif ty.is_int:
        width = int(_INT_RE.match(ty.elem).group(1))
        unsigned = ty.elem.startswith("u")
        fmt = {8: "b", 16: "h", 32: "i", 64: "q"}.get(width)
        if fmt is None:
            raise ParseError(f"unsupported integer width in {ty.text}")
        if unsigned:
            fmt = fmt.upper()
    else:
        raise ParseError(f"unsupported blob element type in {ty.text}")
    size = struct.calcsize(fmt)
    count = len(data) // size
    if len(data) % size or count not in (1, n):
        raise ParseError(f"blob of {len(data)} bytes for {ty.text}")
    vals = list(struct.unpack("<%d%s" % (count, fmt), data))
    if ty.elem == "bf16":
        vals = [struct.unpack("<f", struct.pack("<I", v << 16))[0] for v in vals]
    t = torch.tensor(vals, dtype=ty.torch_dtype)
    if count == 1:
        return t.reshape(()).expand(ty.shape).clone()
    return t.reshape(ty.shape)


def parse_dense(content, ty):
    """The value of `dense<content> : ty`."""
    content = content.strip()
    if content.startswith('"'):
        m = re.fullmatch(r'"0x([0-9a-fA-F]*)"', content)
        if not m:
            raise ParseError(f"unsupported dense string literal {content[:40]}")
        return _tensor_from_blob(bytes.fromhex(m.group(1)), ty)
    if content == "":
        if ty.numel() != 0:
            raise ParseError(f"empty dense literal for {ty.text}")
        return torch.zeros(ty.shape, dtype=ty.torch_dtype)
    flat, nest = _flatten_literal(content)
    vals = [_scalar_literal(tok, ty.elem) for tok in flat]
    if not content.startswith("[") and len(vals) == 1:
        return torch.full(ty.shape, vals[0], dtype=ty.torch_dtype)
    if tuple(nest) != ty.shape:
        raise ParseError(f"dense literal of shape {nest} for {ty.text}")
    return torch.tensor(vals, dtype=ty.torch_dtype).reshape(ty.shape)


def parse_attr_dict(text):
    """`{a = 1 : i64, unitattr, "quoted" = ...}` into {name: raw value text}.

    Unit attributes map to the string 'unit'."""
    t = text.strip()
    if not (t.startswith("{") and t.endswith("}")):
        raise ParseError(f"not an attribute dictionary: {t[:80]}")
    out = {}
    for entry in _split_top(t[1:-1]):
        if not entry:
            continue
        if entry.startswith('"'):
            j = _skip_string(entry, 0)
            key, rest = entry[1:j - 1], entry[j:].strip()
        else:
            m = re.match(r"([A-Za-z_][\w.$-]*)\s*", entry)
            if not m:
                raise ParseError(f"bad attribute entry '{entry[:80]}'")
            key, rest = m.group(1), entry[m.end():]
        if not rest:
            out[key] = "unit"
        elif rest.startswith("="):
            out[key] = rest[1:].strip()
        else:
            raise ParseError(f"bad attribute entry '{entry[:80]}'")
    return out


def _typed_scalar(raw):
    """`1.5 : f64`, `-3 : i64`, `0xFFF0000000000000 : f64` -> (text, type)."""
    m = re.fullmatch(r"(.+?)\s*:\s*([\w]+)", raw.strip())
    if m:
        return m.group(1).strip(), m.group(2)
    return raw.strip(), None


# --------------------------------------------------------------------------
# Generic-form parser
# --------------------------------------------------------------------------

class Op:
    __slots__ = ("name", "results", "operands", "attrs", "props", "regions",
                 "operand_types", "result_types", "line")

    def attr(self, key, default=None):
        return self.attrs.get(key, default)

    def where(self):
        return f"'{self.name}' at line {self.line}"


class Block:
    __slots__ = ("args", "ops")

    def __init__(self):
        self.args = []      # [(ssa name, TensorType)]
        self.ops = []


class _Parser:
    _IDENT = re.compile(r"%[\w$.-]+")

    def __init__(self, text):
        self.text = text
        self.i = 0
        self.n = len(text)

    # -- low level --
    def line(self, pos=None):
        return self.text.count("\n", 0, self.i if pos is None else pos) + 1

    def error(self, msg):
        snippet = self.text[self.i:self.i + 60].split("\n")[0]
        return ParseError(f"line {self.line()}: {msg} (at '{snippet}')")

    def ws(self):
        while self.i < self.n:
            c = self.text[self.i]
            if c in " \t\r\n":
                self.i += 1
            elif self.text.startswith("//", self.i):
                j = self.text.find("\n", self.i)
                self.i = self.n if j < 0 else j + 1
            else:
                break

    def peek(self, s):
        self.ws()
        return self.text.startswith(s, self.i)

    def eat(self, s):
        if self.peek(s):
            self.i += len(s)
            return True
        return False

    def expect(self, s):
        if not self.eat(s):
            raise self.error(f"expected '{s}'")

    def balanced(self):
        """The bracketed text starting at the cursor, cursor moved past it."""
        self.ws()
        j = _matching(self.text, self.i)
        s = self.text[self.i:j + 1]
        self.i = j + 1
        return s

    def until_op_end(self):
        """The trailing type of an op: up to the end of its line."""
        self.ws()
        j = self.text.find("\n", self.i)
        j = self.n if j < 0 else j
        s = self.text[self.i:j]
        # A trailing location, with -mlir-print-debuginfo.
        m = re.search(r"\s+loc\(.*\)\s*$", s)
        if m:
            s = s[:m.start()]
        self.i = j
        return s.strip()

    def value_ref(self):
        self.ws()
        m = self._IDENT.match(self.text, self.i)
        if not m:
            raise self.error("expected an SSA value")
        self.i = m.end()
        name = m.group(0)
        if self.text.startswith("#", self.i):
            m2 = re.compile(r"#\d+").match(self.text, self.i)
            self.i = m2.end()
            name += m2.group(0)
        return name

    # -- grammar --
    def module(self):
        self.ws()
        top = []
        while self.i < self.n and not self.peek("{-#"):
            top.append(self.op())
            self.ws()
        resources = {}
        if self.eat("{-#"):
            end = self.text.find("#-}", self.i)
            if end < 0:
                raise self.error("unterminated resource section")
            body = self.text[self.i:end]
            for m in re.finditer(r'([\w.$-]+|"[^"]*")\s*:\s*"0x([0-9a-fA-F]*)"', body):
                key = m.group(1).strip('"')
                # The blob starts with its 4-byte alignment.
                resources[key] = bytes.fromhex(m.group(2))[4:]
            self.i = end + 3
        self.ws()
        if self.i != self.n:
            raise self.error("trailing text after the module")
        return top, resources

    def op(self):
        start = self.i
        results = []
        if self.peek("%"):
            while True:
                name = self.value_ref()
                count = 1
                if self.text.startswith(":", self.i) and self.text[self.i + 1:self.i + 2].isdigit():
                    m = re.compile(r":(\d+)").match(self.text, self.i)
                    count = int(m.group(1))
                    self.i = m.end()
                if count == 1:
                    results.append(name)
                else:
                    results.extend(f"{name}#{k}" for k in range(count))
                if not self.eat(","):
                    break
            self.expect("=")
        self.ws()
        if not self.text.startswith('"', self.i):
            raise self.error("expected a quoted op name: is the input in the "
                             "generic form (--mlir-print-op-generic)?")
        j = _skip_string(self.text, self.i)
        op = Op()
        op.line = self.line(start)
        op.name = self.text[self.i + 1:j - 1]
        self.i = j
        op.results = results
        self.expect("(")
        op.operands = []
        if not self.eat(")"):
            while True:
                op.operands.append(self.value_ref())
                if self.eat(")"):
                    break
                self.expect(",")
        if self.peek("["):
            raise self.error(f"op '{op.name}' has successors; only "
                             "single-block functions are supported")
        op.attrs = {}
        op.props = {}
        if self.peek("<{"):
            self.expect("<")
            op.props = parse_attr_dict(self.balanced())
            op.attrs.update(op.props)
            self.expect(">")
        op.regions = []
        if self.peek("({") or self.peek("( {"):
            self.expect("(")
            while True:
                op.regions.append(self.region())
                if self.eat(")"):
                    break
                self.expect(",")
        if self.peek("{"):
            for k, v in parse_attr_dict(self.balanced()).items():
                op.attrs.setdefault(k, v)
        self.expect(":")
        sig = self.until_op_end()
        try:
            op.operand_types, op.result_types = parse_function_type(sig)
        except ParseError as e:
            raise ParseError(f"line {op.line}: op '{op.name}': {e}") from None
        if len(op.operand_types) != len(op.operands):
            raise ParseError(f"line {op.line}: op '{op.name}' has "
                             f"{len(op.operands)} operands but "
                             f"{len(op.operand_types)} operand types")
        if len(op.result_types) != len(op.results):
            raise ParseError(f"line {op.line}: op '{op.name}' has "
                             f"{len(op.results)} results but "
                             f"{len(op.result_types)} result types")
        return op

    def region(self):
        self.expect("{")
        blocks = []
        block = None
        while not self.eat("}"):
            if self.peek("^"):
                if blocks:
                    raise self.error("multi-block regions are not supported")
                block = Block()
                m = re.compile(r"\^[\w$.-]+").match(self.text, self.i)
                self.i = m.end()
                if self.eat("("):
                    if not self.eat(")"):
                        while True:
                            name = self.value_ref()
                            self.expect(":")
                            self.ws()
                            # A type, up to ',' or ')' at depth 0.
                            k, depth = self.i, 0
                            while True:
                                c = self.text[k]
                                if c == "<":
                                    depth += 1
                                elif c == ">":
                                    depth -= 1
                                elif depth == 0 and c in ",)":
                                    break
                                k += 1
                            ty_text = self.text[self.i:k].strip()
                            ty_text = re.sub(r"\s+loc\(.*$", "", ty_text)
                            block.args.append((name, parse_type(ty_text)))
                            self.i = k
                            if self.eat(")"):
                                break
                            self.expect(",")
                self.expect(":")
                blocks.append(block)
                continue
            if block is None:
                block = Block()
                blocks.append(block)
            block.ops.append(self.op())
        return blocks


# --------------------------------------------------------------------------
# Modules
# --------------------------------------------------------------------------

class Parameter:
    def __init__(self, name, ty, init):
        self.name, self.type, self.init = name, ty, init

    def default_value(self):
        """The value of a deterministic init (zeros, ones, constant), or None."""
        m = re.fullmatch(r"#nn\.init<\s*(\w+)\s*(?:\((.*)\))?\s*>", self.init.strip())
        if not m:
            return None
        kind = m.group(1)
        if kind == "zeros":
            return torch.zeros(self.type.shape, dtype=torch.float64)
        if kind == "ones":
            return torch.ones(self.type.shape, dtype=torch.float64)
        if kind == "constant":
            return torch.full(self.type.shape, float(m.group(2)), dtype=torch.float64)
        return None


class Function:
    def __init__(self, name, arg_types, result_types, block, line):
        self.name = name
        self.arg_types = arg_types
        self.result_types = result_types
        self.block = block
        self.line = line

    @property
    def is_declaration(self):
        return self.block is None

    def signature(self):
        args = ", ".join(t.text for t in self.arg_types)
        res = ", ".join(t.text for t in self.result_types)
        return f"({args}) -> ({res})"


def _unescape(body):
    r"""The characters of an MLIR string literal's body: `\\`, `\"`, `\n`,
    `\t` and two-digit hexadecimal escapes such as `\22`."""
    out, i = bytearray(), 0
    while i < len(body):
        c = body[i]
        if c != "\\":
            out += c.encode()
            i += 1
            continue
        nxt = body[i + 1:i + 3]
        if re.fullmatch(r"[0-9a-fA-F]{2}", nxt):
            out.append(int(nxt, 16))
            i += 3
        elif nxt[:1] in ('"', "\\"):
            out += nxt[:1].encode()
            i += 2
        elif nxt[:1] in ("n", "t"):
            out += b"\n" if nxt[:1] == "n" else b"\t"
            i += 2
        else:
            raise ParseError(f"bad escape in string literal '{body}'")
    return out.decode("utf-8")


def _symbol(raw):
    s = raw.strip()
    if not s.startswith("@"):
        raise ParseError(f"expected a symbol reference, got '{s}'")
    s = s[1:]
    if s.startswith('"'):
        return _unescape(s[1:-1])
    return s


def _string(raw):
    s = raw.strip()
    if not (s.startswith('"') and s.endswith('"')):
        raise ParseError(f"expected a string, got '{s}'")
    return _unescape(s[1:-1])


class Module:
    """A parsed module: parameters and functions by name."""

    def __init__(self, text):
        top, self.resources = _Parser(text).module()
        if len(top) == 1 and top[0].name == "builtin.module":
            regions = top[0].regions
            ops = regions[0][0].ops if regions and regions[0] else []
        else:
            ops = top
        self.parameters = {}
        self.functions = {}
        for op in ops:
            if op.name == "nn.parameter":
                name = _string(op.attr("sym_name"))
                if name in self.parameters:
                    raise ParseError(f"line {op.line}: parameter '{name}' declared twice")
                self.parameters[name] = Parameter(
                    name, parse_type(op.attr("type")), op.attr("init", ""))
            elif op.name == "nn.cache":
                name = _string(op.attr("sym_name"))
                if name in self.parameters:
                    raise ParseError(f"line {op.line}: '{name}' declared twice")
                self.parameters[name] = Parameter(
                    name, parse_type(op.attr("type")), "")
            elif op.name == "func.func":
                name = _string(op.attr("sym_name"))
                args, results = parse_function_type(op.attr("function_type"))
                block = None
                if op.regions and op.regions[0]:
                    block = op.regions[0][0]
                    if [t for _, t in block.args] != args:
                        raise ParseError(f"line {op.line}: @{name}: block "
                                         "arguments differ from the function type")
                self.functions[name] = Function(name, args, results, block, op.line)
            else:
                raise ParseError(f"line {op.line}: unsupported module-level op '{op.name}'")

    def evaluate(self, function_name, inputs=(), params=None):
        return _Evaluator(self, params or {}).call(function_name, inputs)


_MODULE_CACHE = {}


def parse_module(mlir_text):
    mod = _MODULE_CACHE.get(mlir_text)
    if mod is None:
        mod = Module(mlir_text)
        _MODULE_CACHE.clear()
        _MODULE_CACHE[mlir_text] = mod
    return mod


def evaluate(mlir_text, function_name, inputs=(), params=None):
    """Runs @function_name of a generic-form module and returns its results.

    inputs: a list (positional), or a dict keyed by position or by block
    argument name ('arg0' or '%arg0'). params: {state_dict name: tensor};
    a parameter missing from it takes its init if that is deterministic."""
    return parse_module(mlir_text).evaluate(function_name, inputs, params)


# --------------------------------------------------------------------------
# Evaluation
# --------------------------------------------------------------------------

def _as_tensor(value, ty, what):
    t = value if isinstance(value, torch.Tensor) else torch.as_tensor(value)
    if tuple(t.shape) != ty.shape:
        raise EvalError(f"{what}: shape {list(t.shape)} does not match {ty.text}")
    return t.to(ty.torch_dtype)


def _check_result(op, k, value, ty):
    if not isinstance(value, torch.Tensor):
        raise EvalError(f"{op.where()}: result #{k} is not a tensor")
    if tuple(value.shape) != ty.shape:
        raise EvalError(f"{op.where()}: computed shape {list(value.shape)} "
                        f"but the op declares {ty.text}")
    if value.dtype != ty.torch_dtype:
        raise EvalError(f"{op.where()}: computed {value.dtype} but the op "
                        f"declares {ty.text}")


class _Evaluator:
    MAX_DEPTH = 64

    def __init__(self, module, params):
        self.module = module
        self.params = params
        # What nn.param_store set, by name.
        self.stored = {}
        self.depth = 0

    def param(self, name, ty, op):
        decl = self.module.parameters.get(name)
        if decl is None:
            raise EvalError(f"{op.where()}: no nn.parameter @\"{name}\"")
        if decl.type.shape != ty.shape:
            raise EvalError(f"{op.where()}: loads @\"{name}\" as {ty.text} but "
                            f"it is declared {decl.type.text}")
        if name in self.params:
            return _as_tensor(self.params[name], ty, f"parameter '{name}'")
        value = decl.default_value()
        if value is None:
            raise EvalError(f"no value given for parameter '{name}' "
                            f"(init {decl.init} is random)")
        return value

    def call(self, name, inputs):
        fn = self.module.functions.get(name)
        if fn is None:
            raise EvalError(f"no function @{name}")
        if fn.is_declaration:
            raise EvalError(f"@{name} is a declaration without a body")
        args = fn.block.args
        if isinstance(inputs, dict):
            ordered = []
            for k, (aname, _) in enumerate(args):
                for key in (k, aname, aname[1:]):
                    if key in inputs:
                        ordered.append(inputs[key])
                        break
                else:
                    raise EvalError(f"@{name}: no input for argument #{k} ({aname})")
            extra = set(inputs) - {k for k in range(len(args))} \
                - {a for a, _ in args} - {a[1:] for a, _ in args}
            if extra:
                raise EvalError(f"@{name}: unknown inputs {sorted(map(str, extra))}")
            inputs = ordered
        inputs = list(inputs)
        if len(inputs) != len(args):
            raise EvalError(f"@{name} takes {len(args)} arguments, got {len(inputs)}")
        env = {}
        for k, ((aname, ty), v) in enumerate(zip(args, inputs)):
            env[aname] = _as_tensor(v, ty, f"@{name} argument #{k}")
        self.depth += 1
        if self.depth > self.MAX_DEPTH:
            raise EvalError(f"call depth over {self.MAX_DEPTH} at @{name}")
        try:
            for op in fn.block.ops:
                if op.name == "func.return":
                    vals = [self.lookup(env, v, op) for v in op.operands]
                    if [t for t in op.operand_types] != fn.result_types:
                        raise EvalError(f"{op.where()}: returns {op.operand_types} "
                                        f"but @{name} declares {fn.result_types}")
                    for k, (v, ty) in enumerate(zip(vals, fn.result_types)):
                        _check_result(op, k, v, ty)
                    return vals
                self.run(op, env)
        finally:
            self.depth -= 1
        raise EvalError(f"@{name} has no func.return")

    def lookup(self, env, ref, op):
        if ref not in env:
            raise EvalError(f"{op.where()}: use of undefined value {ref}")
        return env[ref]

    def run(self, op, env):
        operands = [self.lookup(env, v, op) for v in op.operands]
        for k, (v, ty) in enumerate(zip(operands, op.operand_types)):
            if tuple(v.shape) != ty.shape:
                raise EvalError(f"{op.where()}: operand #{k} is {list(v.shape)} "
                                f"but typed {ty.text}")
        if op.name != "func.call" and op.name not in _OPS:
            raise EvalError(f"unsupported op {op.where()}")
        _check_properties(op)
        if op.name == "func.call":
            callee = _symbol(op.attr("callee"))
            results = self.call(callee, operands)
        else:
            impl = _OPS[op.name]
            try:
                out = impl(self, op, operands)
            except (EvalError, ParseError):
                raise
            except Exception as e:  # a torch error: report it against the op
                raise EvalError(f"{op.where()}: {type(e).__name__}: {e}") from e
            results = out if isinstance(out, list) else [out]
        if len(results) != len(op.results):
            raise EvalError(f"{op.where()}: produced {len(results)} results, "
                            f"declares {len(op.results)}")
        for k, (name, v, ty) in enumerate(zip(op.results, results, op.result_types)):
            _check_result(op, k, v, ty)
            env[name] = v


# -- attribute accessors ----------------------------------------------------

def _need(op, key):
    raw = op.attr(key)
    if raw is None:
        raise EvalError(f"{op.where()}: missing attribute '{key}'")
    return raw


def _int_attr(op, key, default=None):
    raw = op.attr(key)
    if raw is None:
        if default is None:
            raise EvalError(f"{op.where()}: missing attribute '{key}'")
        return default
    text, _ = _typed_scalar(raw)
    try:
        return int(text, 0)
    except ValueError:
        raise EvalError(f"{op.where()}: '{key}' is not an integer: {raw}") from None


def _float_attr(op, key, default=None):
    raw = op.attr(key)
    if raw is None:
        if default is None:
            raise EvalError(f"{op.where()}: missing attribute '{key}'")
        return default
    text, ty = _typed_scalar(raw)
    try:
        return _scalar_literal(text, ty or "f64")
    except ParseError as e:
        raise EvalError(f"{op.where()}: '{key}': {e}") from None


def _i64_array(op, key):
    raw = _need(op, key).strip()
    m = re.fullmatch(r"array<i64(?::(.*))?>", raw, re.S)
    if not m:
        raise EvalError(f"{op.where()}: '{key}' is not array<i64: ...>: {raw}")
    body = (m.group(1) or "").strip()
    return [int(x) for x in body.split(",")] if body else []


def _unit(op, key):
    raw = op.attr(key)
    if raw is None:
        return False
    if raw == "unit":
        return True
    raise EvalError(f"{op.where()}: '{key}' should be a unit attribute: {raw}")


def _enum(op, key, names, default=None):
    """An enum attribute printed as its integer (`2 : i32`) or its keyword
    (`#nn.activation<relu>`, `#nn<predicate lt>`)."""
    raw = op.attr(key)
    if raw is None:
        if default is None:
            raise EvalError(f"{op.where()}: missing attribute '{key}'")
        return default
    text, _ = _typed_scalar(raw)
    if re.fullmatch(r"-?\d+", text):
        k = int(text)
        if 0 <= k < len(names):
            return names[k]
    m = re.search(r"<\s*(?:\w+\s+)?(\w+)\s*>\s*$", raw)
    if m and m.group(1) in names:
        return m.group(1)
    raise EvalError(f"{op.where()}: unknown '{key}' value {raw}")


def _segments(op, operands, names):
    """The operands by ODS name: {name: tensor or None}. The last name may be
    an optional operand; with `operandSegmentSizes` every segment is read
    from it."""
    raw = op.attr("operandSegmentSizes")
    if raw is not None:
        m = re.fullmatch(r"array<i32(?::(.*))?>", raw.strip())
        sizes = [int(x) for x in (m.group(1) or "").split(",")] if m else None
        if (not sizes or len(sizes) != len(names) or sum(sizes) != len(operands)
                or any(n not in (0, 1) for n in sizes)):
            raise EvalError(f"{op.where()}: unexpected operandSegmentSizes {raw}")
        out, k = {}, 0
        for name, n in zip(names, sizes):
            out[name] = operands[k] if n else None
            k += n
        return out
    if len(operands) not in (len(names) - 1, len(names)):
        raise EvalError(f"{op.where()}: expects operands {', '.join(names)} "
                        f"(the last optional), got {len(operands)}")
    return {name: (operands[k] if k < len(operands) else None)
            for k, name in enumerate(names)}


def _float_operand(op, x, what):
    if x.dtype != torch.float64:
        raise EvalError(f"{op.where()}: {what} must be a float tensor")
    return x


# -- op implementations -----------------------------------------------------

def _unary(fn):
    def impl(ev, op, xs):
        return fn(_float_operand(op, xs[0], "the input"))
    return impl


def _binary(fn):
    def impl(ev, op, xs):
        a = _float_operand(op, xs[0], "lhs")
        b = _float_operand(op, xs[1], "rhs")
        return fn(a, b)
    return impl


def _gelu(x, approximate_tanh):
    return F.gelu(x, approximate="tanh" if approximate_tanh else "none")


def _matmul(a, b):
    if a.dim() < 2 or b.dim() < 2:
        raise EvalError("matmul operands must have rank 2 or more")
    return torch.matmul(a, b)


def _reduce(fn):
    def impl(ev, op, xs):
        x = _float_operand(op, xs[0], "the input")
        axes = _i64_array(op, "axes")
        keep = _unit(op, "keep_dims")
        if not axes:
            return x.clone()
        if sorted(set(axes)) != axes or min(axes) < 0 or max(axes) >= x.dim():
            raise EvalError(f"{op.where()}: bad axes {axes} for rank {x.dim()}")
        return fn(x, axes, keep)
    return impl


def _transpose(ev, op, xs):
    perm = _i64_array(op, "perm")
    if sorted(perm) != list(range(xs[0].dim())):
        raise EvalError(f"{op.where()}: {perm} is not a permutation of rank {xs[0].dim()}")
    return xs[0].permute(perm).contiguous()


def _reshape(ev, op, xs):
    shape = _i64_array(op, "shape")
    n = 1
    for d in shape:
        n *= d
    if n != xs[0].numel() or any(d < 0 for d in shape):
        raise EvalError(f"{op.where()}: cannot reshape {list(xs[0].shape)} to {shape}")
    return xs[0].reshape(shape).clone()


def _slice(ev, op, xs):
    x = xs[0]
    offsets, sizes = _i64_array(op, "offsets"), _i64_array(op, "sizes")
    if len(offsets) != x.dim() or len(sizes) != x.dim():
        raise EvalError(f"{op.where()}: offsets/sizes of the wrong rank")
    for d, (o, s) in enumerate(zip(offsets, sizes)):
        if o < 0 or s < 0 or o + s > x.shape[d]:
            raise EvalError(f"{op.where()}: box [{o}, {o + s}) out of dim {d} "
                            f"of size {x.shape[d]}")
        x = x.narrow(d, o, s)
    return x.clone()


def _concat(ev, op, xs):
    axis = _int_attr(op, "axis")
    if not xs:
        raise EvalError(f"{op.where()}: no inputs")
    if not 0 <= axis < xs[0].dim():
        raise EvalError(f"{op.where()}: axis {axis} out of rank {xs[0].dim()}")
    if len({x.dtype for x in xs}) != 1:
        raise EvalError(f"{op.where()}: inputs of different element types")
    return torch.cat(xs, dim=axis)


_PREDICATES = ["eq", "ne", "lt", "le", "gt", "ge"]


def _compare(ev, op, xs):
    a, b = xs
    if a.dtype != b.dtype:
        raise EvalError(f"{op.where()}: operands of different element types")
    pred = _enum(op, "predicate", _PREDICATES)
    return {"eq": torch.eq, "ne": torch.ne, "lt": torch.lt, "le": torch.le,
            "gt": torch.gt, "ge": torch.ge}[pred](a, b)


def _broadcast_to(op, mask, shape, what):
    try:
        target = torch.broadcast_shapes(tuple(mask.shape), tuple(shape))
    except RuntimeError:
        target = None
    if target != tuple(shape):
        raise EvalError(f"{op.where()}: {what} {list(mask.shape)} does not "
                        f"broadcast to {list(shape)}")
    return mask.expand(shape)


def _masked_fill(ev, op, xs):
    x = _float_operand(op, xs[0], "the input")
    mask = xs[1]
    if mask.dtype != torch.bool:
        raise EvalError(f"{op.where()}: the mask must be i1")
    value = _float_attr(op, "value")
    mask = _broadcast_to(op, mask, x.shape, "mask")
    return x.masked_fill(mask, value)


def _cast(ev, op, xs):
    x = xs[0]
    to = parse_type(_need(op, "to"))
    dst = op.result_types[0]
    if to.elem != dst.elem:
        raise EvalError(f"{op.where()}: 'to' is {to.elem} but the result is {dst.text}")
    if dst.is_bool:
        return x != 0
    if dst.is_float:
        return x.to(torch.float64)
    if dst.is_int:
        if x.dtype == torch.float64:
            if not torch.isfinite(x).all():
                raise EvalError(f"{op.where()}: casting a non-finite float to an integer")
            return torch.trunc(x).to(torch.int64)
        return x.to(torch.int64)
    raise EvalError(f"{op.where()}: unsupported cast to {dst.text}")


def _softmax(log):
    def impl(ev, op, xs):
        x = _float_operand(op, xs[0], "the input")
        axis = _int_attr(op, "axis")
        if not 0 <= axis < max(x.dim(), 1):
            raise EvalError(f"{op.where()}: axis {axis} out of rank {x.dim()}")
        return torch.log_softmax(x, axis) if log else torch.softmax(x, axis)
    return impl


def _embedding(ev, op, xs):
    table, ids = xs
    _float_operand(op, table, "the table")
    if ids.dtype != torch.int64 or table.dim() != 2:
        raise EvalError(f"{op.where()}: needs a [v, d] table and integer ids")
    if ids.numel() and (ids.min() < 0 or ids.max() >= table.shape[0]):
        raise EvalError(f"{op.where()}: ids in [{int(ids.min())}, {int(ids.max())}] "
                        f"out of a table of {table.shape[0]} rows")
    return table[ids]


def sinusoidal_table(seq, d):
    """pe[p, 2i] = sin(p / 10000^(2i/d)), pe[p, 2i+1] = cos(same)."""
    if d % 2:
        raise EvalError(f"sinusoidal_encoding needs an even width, got {d}")
    pos = torch.arange(seq, dtype=torch.float64).unsqueeze(1)
    two_i = torch.arange(0, d, 2, dtype=torch.float64)
    angle = pos / torch.pow(torch.tensor(10000.0, dtype=torch.float64), two_i / d)
    pe = torch.zeros(seq, d, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(angle)
    pe[:, 1::2] = torch.cos(angle)
    return pe


def _sinusoidal(ev, op, xs):
    ty = op.result_types[0]
    if len(ty.shape) != 2:
        raise EvalError(f"{op.where()}: expects a [seq, d] result, got {ty.text}")
    return sinusoidal_table(*ty.shape)


def _triangular(ev, op, xs):
    ty = op.result_types[0]
    if len(ty.shape) != 2:
        raise EvalError(f"{op.where()}: expects a [rows, cols] result, got {ty.text}")
    rows, cols = ty.shape
    diagonal = _int_attr(op, "diagonal")
    r = torch.arange(rows).unsqueeze(1)
    c = torch.arange(cols).unsqueeze(0)
    return (c - r) >= diagonal


def attention_reference(q, k, v, mask=None, scale=1.0, causal=False,
                        mask_fill=-math.inf):
    """nn.attention as docs/dialect/nn.md defines it (inference: no dropout):
    the future keys (causal) and the keys an i1 mask hides all take
    mask_fill; a float mask is added."""
    s = scale * torch.matmul(q, k.transpose(-1, -2))
    sq, sk = s.shape[-2], s.shape[-1]
    hidden = torch.zeros(s.shape, dtype=torch.bool)
    if causal:
        i = torch.arange(sq).unsqueeze(1)
        j = torch.arange(sk).unsqueeze(0)
        hidden = hidden | (j > i)
    if mask is not None and mask.dtype == torch.bool:
        hidden = hidden | mask.expand(s.shape)
    s = torch.where(hidden, torch.full_like(s, mask_fill), s)
    if mask is not None and mask.dtype != torch.bool:
        s = s + mask
    return torch.matmul(torch.softmax(s, -1), v)


def _attention(ev, op, xs):
    seg = _segments(op, xs, ("query", "key", "value", "mask"))
    q, k, v = (_float_operand(op, seg[n], n) for n in ("query", "key", "value"))
    mask = seg["mask"]
    if q.dim() != 4 or k.dim() != 4 or v.dim() != 4:
        raise EvalError(f"{op.where()}: q, k, v must be [b, h, s, d]")
    if mask is not None:
        if mask.dtype == torch.int64:
            raise EvalError(f"{op.where()}: an integer mask is neither i1 nor float")
        _broadcast_to(op, mask, q.shape[:2] + (q.shape[2], k.shape[2]), "mask")
    dropout = _float_attr(op, "dropout", 0.0)
    if not 0.0 <= dropout < 1.0:
        raise EvalError(f"{op.where()}: dropout rate {dropout} not in [0, 1)")
    return attention_reference(q, k, v, mask, scale=_float_attr(op, "scale"),
                               causal=_unit(op, "causal"),
                               mask_fill=_float_attr(op, "mask_fill", -math.inf))


_NORM_STATISTICS = ["variance", "unbiased_variance", "mean_square"]


def layer_norm_reference(x, gamma, beta, axis, epsilon, residual=None,
                         statistic="variance", epsilon_on_std=False):
    """nn.layer_norm over dims axis..end: the statistic (biased or unbiased
    variance of the centred input, or the mean square of the input), ε in
    the root or added to the std, then gamma and beta (None: none)."""
    if residual is not None:
        x = x + residual
    dims = list(range(axis, x.dim()))
    centred = x
    if statistic != "mean_square":
        centred = x - x.mean(dim=dims, keepdim=True)
    squares = (centred ** 2).sum(dim=dims, keepdim=True)
    count = math.prod(x.shape[axis:])
    var = squares / (count - 1 if statistic == "unbiased_variance" else count)
    if epsilon_on_std:
        scaled = centred / (torch.sqrt(var) + epsilon)
    else:
        scaled = centred / torch.sqrt(var + epsilon)
    return scaled * gamma + (0 if beta is None else beta)


def _layer_norm(ev, op, xs):
    seg = _segments(op, xs, ("input", "gamma", "beta", "residual"))
    x, gamma = (_float_operand(op, seg[n], n) for n in ("input", "gamma"))
    beta = seg["beta"]
    if beta is not None:
        _float_operand(op, beta, "beta")
    residual = seg["residual"]
    if residual is not None:
        _float_operand(op, residual, "residual")
    axis = _int_attr(op, "axis")
    if not 0 <= axis < x.dim():
        raise EvalError(f"{op.where()}: axis {axis} out of rank {x.dim()}")
    normalized = tuple(x.shape[axis:])
    for t, n in ((gamma, "gamma"), (beta, "beta")):
        if t is not None and tuple(t.shape) != normalized:
            raise EvalError(f"{op.where()}: {n} is {list(t.shape)}, expected {list(normalized)}")
    if residual is not None and residual.shape != x.shape:
        raise EvalError(f"{op.where()}: residual {list(residual.shape)} is not "
                        f"the input's shape {list(x.shape)}")
    statistic = _enum(op, "statistic", _NORM_STATISTICS, "variance")
    if statistic == "unbiased_variance" and math.prod(normalized) < 2:
        raise EvalError(f"{op.where()}: an unbiased variance of {math.prod(normalized)} element")
    return layer_norm_reference(x, gamma, beta, axis, _float_attr(op, "epsilon"), residual,
                                statistic, _unit(op, "epsilon_on_std"))


_ACTIVATIONS = ["none", "relu", "gelu", "gelu_tanh"]


def fused_matmul_reference(lhs, rhs, bias=None, transpose_rhs=False,
                           activation="none"):
    if transpose_rhs:
        rhs = rhs.transpose(-1, -2)
    y = _matmul(lhs, rhs)
    if bias is not None:
        y = y + bias
    if activation == "relu":
        y = torch.relu(y)
    elif activation == "gelu":
        y = _gelu(y, False)
    elif activation == "gelu_tanh":
        y = _gelu(y, True)
    elif activation != "none":
        raise EvalError(f"unknown activation '{activation}'")
    return y


def _fused_matmul(ev, op, xs):
    seg = _segments(op, xs, ("lhs", "rhs", "bias"))
    lhs, rhs = (_float_operand(op, seg[n], n) for n in ("lhs", "rhs"))
    bias = seg["bias"]
    if bias is not None:
        _float_operand(op, bias, "bias")
    return fused_matmul_reference(lhs, rhs, bias, _unit(op, "transpose_rhs"),
                                  _enum(op, "activation", _ACTIVATIONS, "none"))


def _check_labels(op, labels, classes, ignore_index):
    if labels.dtype != torch.int64:
        raise EvalError(f"{op.where()}: labels must be integers")
    valid = labels[labels != ignore_index]
    if valid.numel() and (valid.min() < 0 or valid.max() >= classes):
        raise EvalError(f"{op.where()}: labels in [{int(valid.min())}, "
                        f"{int(valid.max())}] out of {classes} classes")


def _class_scores(op, scores, labels, what):
    """Checks [..., c] scores against [...] labels; returns (c, ignore_index)."""
    _float_operand(op, scores, what)
    c = scores.shape[-1]
    ignore = _int_attr(op, "ignore_index")
    _check_labels(op, labels, c, ignore)
    if tuple(labels.shape) != tuple(scores.shape[:-1]):
        raise EvalError(f"{op.where()}: labels {list(labels.shape)} for "
                        f"{what} {list(scores.shape)}")
    return c, ignore


def _cross_entropy(ev, op, xs):
    logits, labels = xs
    c, ignore = _class_scores(op, logits, labels, "logits")
    return F.cross_entropy(logits.reshape(-1, c), labels.reshape(-1),
                           ignore_index=ignore,
                           label_smoothing=_float_attr(op, "label_smoothing", 0.0))


def _nll_loss(ev, op, xs):
    logp, labels = xs
    c, ignore = _class_scores(op, logp, labels, "log_probs")
    return F.nll_loss(logp.reshape(-1, c), labels.reshape(-1), ignore_index=ignore)


def _param_load(ev, op, xs):
    return ev.param(_symbol(_need(op, "name")), op.result_types[0], op)


def _param_store(ev, op, xs):
    """Records the value the variable holds after the function."""
    name = _symbol(_need(op, "name"))
    if name in ev.stored:
        raise EvalError(f"{op.where()}: stores @\"{name}\" a second time")
    ev.stored[name] = xs[0]
    return []


def _cache_update(ev, op, xs):
    cache, rows, start = (_float_operand(op, xs[0], "the cache"),
                          _float_operand(op, xs[1], "the rows"), xs[2])
    out = cache.clone()
    count = rows.shape[2]
    for b in range(cache.shape[0]):
        first = int(start[b])
        if not 0 <= first <= cache.shape[2] - count:
            raise EvalError(f"{op.where()}: start {first} of sequence {b} "
                            f"leaves no room for {count} rows")
        out[b, :, first:first + count] = rows[b]
    return out


def _constant(ev, op, xs):
    raw = _need(op, "value").strip()
    ty = op.result_types[0]
    m = re.fullmatch(r"dense<(.*)>\s*:\s*(.+)", raw, re.S)
    if m:
        if parse_type(m.group(2)) != ty:
            raise EvalError(f"{op.where()}: value typed {m.group(2)}, result {ty.text}")
        return parse_dense(m.group(1), ty)
    m = re.fullmatch(r"dense_resource<([^>]*)>\s*:\s*(.+)", raw, re.S)
    if m:
        key = m.group(1).strip().strip('"')
        blob = ev.module.resources.get(key)
        if blob is None:
            raise EvalError(f"{op.where()}: no resource blob '{key}' (elided?)")
        return _tensor_from_blob(blob, ty)
    text, sty = _typed_scalar(raw)
    if sty and ty.shape == () and sty == ty.elem:
        return torch.tensor(_scalar_literal(text, sty), dtype=ty.torch_dtype)
    if ty.shape == () and ty.is_bool and text in ("true", "false"):
        return torch.tensor(text == "true")
    raise EvalError(f"{op.where()}: unsupported constant value {raw[:80]}")


_OPS = {
    "arith.constant": _constant,
    "nn.param_load": _param_load,
    "nn.param_store": _param_store,
    "nn.cache_update": _cache_update,
    "nn.matmul": _binary(_matmul),
    "nn.transpose": _transpose,
    "nn.reshape": _reshape,
    "nn.slice": _slice,
    "nn.concat": _concat,
    "nn.add": _binary(torch.add),
    "nn.sub": _binary(torch.sub),
    "nn.mul": _binary(torch.mul),
    "nn.div": _binary(torch.div),
    "nn.neg": _unary(torch.neg),
    "nn.exp": _unary(torch.exp),
    "nn.log": _unary(torch.log),
    "nn.sqrt": _unary(torch.sqrt),
    "nn.rsqrt": _unary(torch.rsqrt),
    "nn.tanh": _unary(torch.tanh),
    "nn.relu": _unary(torch.relu),
    "nn.gelu": lambda ev, op, xs: _gelu(_float_operand(op, xs[0], "the input"),
                                        _unit(op, "approximate_tanh")),
    "nn.compare": _compare,
    "nn.masked_fill": _masked_fill,
    "nn.cast": _cast,
    "nn.softmax": _softmax(False),
    "nn.log_softmax": _softmax(True),
    "nn.reduce_sum": _reduce(lambda x, a, k: torch.sum(x, dim=a, keepdim=k)),
    "nn.reduce_mean": _reduce(lambda x, a, k: torch.mean(x, dim=a, keepdim=k)),
    "nn.reduce_max": _reduce(lambda x, a, k: torch.amax(x, dim=a, keepdim=k)),
    "nn.embedding": _embedding,
    "nn.sinusoidal_encoding": _sinusoidal,
    "nn.triangular_mask": _triangular,
    "nn.dropout": lambda ev, op, xs: _float_operand(op, xs[0], "the input").clone(),
    "nn.attention": _attention,
    "nn.layer_norm": _layer_norm,
    "nn.fused_matmul": _fused_matmul,
    "nn.cross_entropy": _cross_entropy,
    "nn.nll_loss": _nll_loss,
}

SUPPORTED_OPS = sorted(list(_OPS) + ["func.call", "func.return"])

# The properties (inherent attributes) each op may carry. One that is not
# listed would be a semantics the evaluator does not implement: it is an
# error, not something to ignore.
_PROPERTIES = {
    "arith.constant": {"value"},
    "func.call": {"callee", "arg_attrs", "res_attrs", "no_inline"},
    "func.return": set(),
    "nn.param_load": {"name"},
    "nn.param_store": {"name"},
    "nn.cache_update": set(),
    "nn.transpose": {"perm"},
    "nn.reshape": {"shape"},
    "nn.slice": {"offsets", "sizes"},
    "nn.concat": {"axis"},
    "nn.gelu": {"approximate_tanh"},
    "nn.compare": {"predicate"},
    "nn.masked_fill": {"value"},
    "nn.cast": {"to"},
    "nn.softmax": {"axis"},
    "nn.log_softmax": {"axis"},
    "nn.reduce_sum": {"axes", "keep_dims"},
    "nn.reduce_mean": {"axes", "keep_dims"},
    "nn.reduce_max": {"axes", "keep_dims"},
    "nn.triangular_mask": {"diagonal"},
    "nn.dropout": {"rate", "stream"},
    "nn.attention": {"scale", "causal", "mask_fill", "dropout", "operandSegmentSizes"},
    "nn.layer_norm": {"axis", "epsilon", "statistic", "epsilon_on_std",
                      "operandSegmentSizes"},
    "nn.fused_matmul": {"transpose_rhs", "activation", "operandSegmentSizes"},
    "nn.cross_entropy": {"ignore_index", "label_smoothing"},
    "nn.nll_loss": {"ignore_index"},
}


def _check_properties(op):
    unknown = sorted(set(op.props) - _PROPERTIES.get(op.name, set()))
    if unknown:
        raise EvalError(f"{op.where()}: unsupported propert"
                        f"{'y' if len(unknown) == 1 else 'ies'} {', '.join(unknown)}")


# --------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------

def generic_text(path, opt=None, extra_args=()):
    """The generic form of a file: through transfuse-opt if given."""
    if opt is None:
        with open(path) as f:
            return f.read()
    cmd = [opt, *extra_args, "--mlir-print-op-generic", path]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise ParseError(f"`{' '.join(cmd)}` failed with status "
                         f"{proc.returncode}:\n{proc.stderr.strip()}")
    return proc.stdout


def format_value(t, digits=8, nested=False):
    """A tensor's elements in row-major order, comma-separated (or nested in
    brackets); floats with `digits` significant digits."""
    def one(x):
        if isinstance(x, bool):
            return "true" if x else "false"
        if isinstance(x, int):
            return str(x)
        if math.isnan(x):
            return "nan"
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
        s = "%.*g" % (digits, x)
        return "0" if s == "-0" else s

    def rec(v):
        if isinstance(v, list):
            return "[" + ", ".join(rec(e) for e in v) + "]"
        return one(v)
    if nested:
        return rec(t.tolist())
    return ", ".join(one(x) for x in t.reshape(-1).tolist())


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("file")
    ap.add_argument("--opt", help="transfuse-opt, to print FILE in generic form")
    ap.add_argument("--function", action="append",
                    help="evaluate only this function (repeatable)")
    ap.add_argument("--digits", type=int, default=8,
                    help="significant digits of printed floats")
    ap.add_argument("--nested", action="store_true",
                    help="print values nested in brackets, not flattened")
    args = ap.parse_args(argv)
    try:
        mod = Module(generic_text(args.file, args.opt))
    except (ParseError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    names = args.function or [n for n, f in mod.functions.items()
                              if not f.is_declaration]
    status = 0
    for name in names:
        fn = mod.functions.get(name)
        if fn is None:
            print(f"error: no function @{name}", file=sys.stderr)
            status = 1
            continue
        if fn.arg_types:
            print(f"error: @{name} takes arguments; only functions without "
                  "arguments can be evaluated from the command line",
                  file=sys.stderr)
            status = 1
            continue
        try:
            results = mod.evaluate(name)
        except EvalError as e:
            print(f"error: @{name}: {e}", file=sys.stderr)
            status = 1
            continue
        for k, (t, ty) in enumerate(zip(results, fn.result_types)):
            print(f"@{name} #{k} {ty.text} = "
                  f"{format_value(t, args.digits, args.nested)}")
    return status


if __name__ == "__main__":
    sys.exit(main())
