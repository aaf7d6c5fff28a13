"""A small ctypes binding of the runtime's C API (transfuse.h).

Tests drive the runtime in-process through it, so they can feed numpy
arrays to any entry point, take a training step and read the session's
parameters and optimizer state back without files in between. It covers
what the tests need, not the whole header: artifacts, sessions, parameter
initialisation, running entry points, train steps, parameters and state.

Every array handed out is a copy: the session's buffers behind the views
the API returns are overwritten by the next run.
"""
import ctypes

import numpy as np

MAX_RANK = 8

# tf_dtype -> numpy, and back.
DTYPES = {0: np.dtype("<f4"), 1: np.dtype("<f8"), 2: np.dtype("<i8"),
          3: np.dtype("<i4"), 4: np.dtype("bool")}
CODES = {dtype: code for code, dtype in DTYPES.items()}


class Tensor(ctypes.Structure):
    _fields_ = [("dtype", ctypes.c_int), ("rank", ctypes.c_int32),
                ("shape", ctypes.c_int64 * MAX_RANK),
                ("data", ctypes.c_void_p)]


class NamedTensor(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("tensor", Tensor)]


class TensorInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("dtype", ctypes.c_int),
                ("rank", ctypes.c_int32), ("shape", ctypes.c_int64 * MAX_RANK),
                ("max_value", ctypes.c_int64), ("init", ctypes.c_int),
                ("init_a", ctypes.c_double), ("init_b", ctypes.c_double),
                ("has_ignore_value", ctypes.c_int32),
                ("ignore_value", ctypes.c_int64)]

    def describe(self):
        """(name, numpy dtype, shape, max_value): what a test needs of it."""
        return (self.name.decode(), DTYPES[self.dtype],
                tuple(self.shape[: self.rank]), self.max_value)


class TrainResult(ctypes.Structure):
    _fields_ = [("step", ctypes.c_int64), ("loss", ctypes.c_float),
                ("grad_norm", ctypes.c_float), ("lr", ctypes.c_float)]


class TransfuseError(RuntimeError):
    """A tf_status other than TF_OK, with tf_last_error()'s message."""


_SIGNATURES = {
    "tf_last_error": (ctypes.c_char_p, []),
    "tf_set_num_threads": (ctypes.c_int, [ctypes.c_int32]),
    "tf_runtime_version": (ctypes.c_char_p, []),
    "tf_artifact_open": (ctypes.c_int, [ctypes.c_char_p,
                                        ctypes.POINTER(ctypes.c_void_p)]),
    "tf_artifact_close": (None, [ctypes.c_void_p]),
    "tf_artifact_manifest_json": (ctypes.c_char_p, [ctypes.c_void_p]),
    "tf_artifact_model": (ctypes.c_char_p, [ctypes.c_void_p]),
    "tf_artifact_target": (ctypes.c_char_p, [ctypes.c_void_p]),
    "tf_artifact_num_parameters": (ctypes.c_int32, [ctypes.c_void_p]),
    "tf_artifact_parameter": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_int32,
                                             ctypes.POINTER(TensorInfo)]),
    "tf_artifact_num_state": (ctypes.c_int32, [ctypes.c_void_p]),
    "tf_artifact_state": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_int32,
                                         ctypes.POINTER(TensorInfo)]),
    "tf_artifact_find_entry_point": (ctypes.c_int, [
        ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_int32)]),
    "tf_artifact_num_entry_points": (ctypes.c_int32, [ctypes.c_void_p]),
    "tf_artifact_entry_point_name": (ctypes.c_char_p, [ctypes.c_void_p,
                                                       ctypes.c_int32]),
    "tf_entry_point_num_inputs": (ctypes.c_int32, [ctypes.c_void_p,
                                                   ctypes.c_int32]),
    "tf_entry_point_input": (ctypes.c_int, [
        ctypes.c_void_p, ctypes.c_int32, ctypes.c_int32,
        ctypes.POINTER(TensorInfo)]),
    "tf_entry_point_num_outputs": (ctypes.c_int32, [ctypes.c_void_p,
                                                    ctypes.c_int32]),
    "tf_entry_point_output": (ctypes.c_int, [
        ctypes.c_void_p, ctypes.c_int32, ctypes.c_int32,
        ctypes.POINTER(TensorInfo)]),
    "tf_session_create": (ctypes.c_int, [ctypes.c_void_p,
                                         ctypes.POINTER(ctypes.c_void_p)]),
    "tf_session_destroy": (None, [ctypes.c_void_p]),
    "tf_session_init_parameters": (ctypes.c_int, [ctypes.c_void_p,
                                                  ctypes.c_uint64]),
    "tf_session_load_parameters": (ctypes.c_int, [ctypes.c_void_p,
                                                  ctypes.c_char_p]),
    "tf_session_parameter": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_char_p,
                                            ctypes.POINTER(Tensor)]),
    "tf_session_state": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_char_p,
                                        ctypes.POINTER(Tensor)]),
    "tf_session_step": (ctypes.c_int64, [ctypes.c_void_p]),
    "tf_session_run": (ctypes.c_int, [
        ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(NamedTensor),
        ctypes.c_int32, ctypes.POINTER(NamedTensor), ctypes.c_int32]),
    "tf_session_train_step": (ctypes.c_int, [
        ctypes.c_void_p, ctypes.POINTER(NamedTensor), ctypes.c_int32,
        ctypes.POINTER(TrainResult)]),
}


def load(path):
    """The runtime library at `path` with the signatures above declared, so
    that ctypes passes 64-bit pointers and integers intact."""
    lib = ctypes.CDLL(path)
    for name, (restype, argtypes) in _SIGNATURES.items():
        function = getattr(lib, name)
        function.restype = restype
        function.argtypes = argtypes
    return lib


def _check(lib, status, what):
    if status != 0:
        raise TransfuseError(
            f"{what} failed: {lib.tf_last_error().decode()} (status {status})")


def _copy(tensor):
    """A numpy copy of the data a tf_tensor views."""
    dtype = DTYPES[tensor.dtype]
    shape = tuple(tensor.shape[: tensor.rank])
    count = int(np.prod(shape, dtype=np.int64))
    if count == 0:
        return np.zeros(shape, dtype)
    buffer = (ctypes.c_char * (count * dtype.itemsize)).from_address(
        tensor.data)
    return np.frombuffer(buffer, dtype=dtype).reshape(shape).copy()


def _bind(arrays):
    """NamedTensors viewing `arrays` ({name: array}); also returns what keeps
    the names and data alive while the call runs."""
    keep = []
    named = (NamedTensor * len(arrays))()
    for slot, (name, array) in zip(named, arrays.items()):
        array = np.require(array, requirements="C")  # keeps rank 0
        if array.dtype not in CODES:
            raise ValueError(f"{name}: unsupported dtype {array.dtype}")
        encoded = name.encode()
        keep += [array, encoded]
        slot.name = encoded
        slot.tensor.dtype = CODES[array.dtype]
        slot.tensor.rank = array.ndim
        for axis, size in enumerate(array.shape):
            slot.tensor.shape[axis] = size
        slot.tensor.data = array.ctypes.data
    return named, keep


class Artifact:
    """An open .tfm: its manifest's parameters, state and entry points."""

    def __init__(self, lib, path):
        self.lib = lib
        handle = ctypes.c_void_p()
        _check(lib, lib.tf_artifact_open(path.encode(), ctypes.byref(handle)),
               f"opening '{path}'")
        self.handle = handle

    def close(self):
        self.lib.tf_artifact_close(self.handle)
        self.handle = None

    def manifest_json(self):
        return self.lib.tf_artifact_manifest_json(self.handle).decode()

    def model(self):
        return self.lib.tf_artifact_model(self.handle).decode()

    def target(self):
        """"cpu" or "cuda"."""
        return self.lib.tf_artifact_target(self.handle).decode()

    def _infos(self, count, getter):
        infos = []
        for index in range(count):
            info = TensorInfo()
            _check(self.lib, getter(self.handle, index, ctypes.byref(info)),
                   "reading the manifest")
            infos.append(info.describe())
        return infos

    def parameters(self):
        """[(name, dtype, shape, max_value)] in manifest order."""
        return self._infos(self.lib.tf_artifact_num_parameters(self.handle),
                           self.lib.tf_artifact_parameter)

    def state(self):
        """The optimizer's state tensors, as parameters() gives them."""
        return self._infos(self.lib.tf_artifact_num_state(self.handle),
                           self.lib.tf_artifact_state)

    def entry_points(self):
        count = self.lib.tf_artifact_num_entry_points(self.handle)
        return [self.lib.tf_artifact_entry_point_name(self.handle, i).decode()
                for i in range(count)]

    def _entry(self, name):
        index = ctypes.c_int32()
        _check(self.lib, self.lib.tf_artifact_find_entry_point(
            self.handle, name.encode(), ctypes.byref(index)),
            f"finding entry point '{name}'")
        return index.value

    def inputs(self, entry):
        """An entry point's inputs, as parameters() gives them."""
        index = self._entry(entry)
        lib = self.lib
        return self._infos(
            lib.tf_entry_point_num_inputs(self.handle, index),
            lambda h, i, out: lib.tf_entry_point_input(h, index, i, out))

    def outputs(self, entry):
        index = self._entry(entry)
        lib = self.lib
        return self._infos(
            lib.tf_entry_point_num_outputs(self.handle, index),
            lambda h, i, out: lib.tf_entry_point_output(h, index, i, out))


class Session:
    """A session of an artifact: its parameters, state and step count."""

    def __init__(self, artifact):
        self.lib = artifact.lib
        self.artifact = artifact
        handle = ctypes.c_void_p()
        _check(self.lib, self.lib.tf_session_create(artifact.handle,
                                                    ctypes.byref(handle)),
               "creating a session")
        self.handle = handle

    def destroy(self):
        self.lib.tf_session_destroy(self.handle)
        self.handle = None

    def init_parameters(self, seed):
        """The runtime's deterministic initialisation (docs/runtime.md):
        bit-identical parameters for the same seed, whatever the target.
        Zeroes the optimizer state and the step count too."""
        _check(self.lib, self.lib.tf_session_init_parameters(self.handle,
                                                             seed),
               f"initialising the parameters (seed {seed})")

    def load_parameters(self, path):
        _check(self.lib, self.lib.tf_session_load_parameters(
            self.handle, path.encode()), f"loading parameters from '{path}'")

    def parameter(self, name):
        tensor = Tensor()
        _check(self.lib, self.lib.tf_session_parameter(
            self.handle, name.encode(), ctypes.byref(tensor)),
            f"reading parameter '{name}'")
        return _copy(tensor)

    def state(self, name):
        tensor = Tensor()
        _check(self.lib, self.lib.tf_session_state(
            self.handle, name.encode(), ctypes.byref(tensor)),
            f"reading state '{name}'")
        return _copy(tensor)

    def step(self):
        return self.lib.tf_session_step(self.handle)

    def run(self, entry, inputs):
        """Runs `entry` on {name: array}; returns {output name: array}."""
        named, keep = _bind(inputs)
        count = len(self.artifact.outputs(entry))
        outputs = (NamedTensor * count)()
        _check(self.lib, self.lib.tf_session_run(
            self.handle, entry.encode(), named, len(inputs), outputs, count),
            f"running '{entry}'")
        del keep
        return {o.name.decode(): _copy(o.tensor) for o in outputs}

    def train_step(self, inputs):
        """One tf_session_train_step on {name: array}: a dict of the step,
        loss, grad_norm and lr it reports."""
        named, keep = _bind(inputs)
        result = TrainResult()
        _check(self.lib, self.lib.tf_session_train_step(
            self.handle, named, len(inputs), ctypes.byref(result)),
            "taking a train step")
        del keep
        return {"step": result.step, "loss": result.loss,
                "grad_norm": result.grad_norm, "lr": result.lr}
