"""Reads and writes safetensors files with numpy alone.

The format (https://github.com/huggingface/safetensors): an 8-byte
little-endian header length N, N bytes of JSON mapping each tensor name to
{"dtype", "shape", "data_offsets": [begin, end]} (offsets into the data that
follows) plus an optional "__metadata__" map of strings, then the data.
Tests use this instead of the safetensors package, which Debian lacks.
"""
import json
import struct

import numpy as np

DTYPES = {
    "F32": np.dtype("<f4"),
    "F64": np.dtype("<f8"),
    "I64": np.dtype("<i8"),
    "I32": np.dtype("<i4"),
    "BOOL": np.dtype("bool"),
}
NAMES = {dtype: name for name, dtype in DTYPES.items()}


def save(path, tensors, metadata=None):
    """Writes {name: array} (arrays of the DTYPES above) to `path`."""
    header = {}
    if metadata:
        header["__metadata__"] = dict(metadata)
    blobs = []
    offset = 0
    for name in sorted(tensors, key=lambda n: (-tensors[n].dtype.itemsize, n)):
        array = np.ascontiguousarray(tensors[name])
        dtype = array.dtype.newbyteorder("<") if array.dtype.itemsize > 1 else array.dtype
        if dtype not in NAMES:
            raise ValueError(f"{name}: unsupported dtype {array.dtype}")
        blob = array.astype(dtype).tobytes()
        header[name] = {
            "dtype": NAMES[dtype],
            "shape": list(array.shape),
            "data_offsets": [offset, offset + len(blob)],
        }
        blobs.append(blob)
        offset += len(blob)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for blob in blobs:
            f.write(blob)


def load(path):
    """Returns ({name: array}, metadata) of a safetensors file."""
    with open(path, "rb") as f:
        data = f.read()
    (size,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + size])
    metadata = header.pop("__metadata__", {})
    base = 8 + size
    tensors = {}
    for name, entry in header.items():
        begin, end = entry["data_offsets"]
        dtype = DTYPES[entry["dtype"]]
        array = np.frombuffer(data[base + begin : base + end], dtype=dtype)
        tensors[name] = array.reshape(entry["shape"])
    return tensors, metadata
