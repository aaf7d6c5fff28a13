"""Opens a .tfm through the runtime loaded by ctypes (RTLD_LOCAL)."""
import ctypes
import sys

runtime = ctypes.CDLL(sys.argv[1], mode=ctypes.RTLD_LOCAL)
runtime.tf_last_error.restype = ctypes.c_char_p
runtime.tf_artifact_model.restype = ctypes.c_char_p
runtime.tf_artifact_model.argtypes = [ctypes.c_void_p]
runtime.tf_artifact_num_entry_points.argtypes = [ctypes.c_void_p]
runtime.tf_artifact_close.argtypes = [ctypes.c_void_p]
artifact = ctypes.c_void_p()
status = runtime.tf_artifact_open(sys.argv[2].encode(), ctypes.byref(artifact))
if status != 0:
    sys.exit("error: " + runtime.tf_last_error().decode())
print("opened %s with %d entry points" % (
    runtime.tf_artifact_model(artifact).decode(),
    runtime.tf_artifact_num_entry_points(artifact)))
runtime.tf_artifact_close(artifact)
