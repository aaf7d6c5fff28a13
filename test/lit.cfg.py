# lit configuration of the Transfuse test suite.
import os

import lit.formats

config.name = "Transfuse"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".pbtxt", ".test"]
# Unit and CudaEmulation hold gtest programs, which ctest runs.
config.excludes = ["CudaEmulation", "Inputs", "Unit", "lit.cfg.py",
                   "CMakeLists.txt"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.transfuse_obj_root, "test")

tools_dir = os.path.join(config.transfuse_obj_root, "bin")
config.environment["PATH"] = os.pathsep.join(
    [tools_dir, config.llvm_tools_dir, config.environment.get("PATH", "")])

# The PyTorch oracle is Debian's python3-torch, installed for /usr/bin/python3.
config.substitutions.append(("%python", "/usr/bin/python3"))
config.substitutions.append(
    ("%models", os.path.join(config.transfuse_src_root, "models")))
config.substitutions.append(
    ("%pytest_dir", os.path.join(config.transfuse_src_root, "test", "python")))
config.substitutions.append(("%src_root", config.transfuse_src_root))
# Data-parallel runs on this machine: Open MPI's launcher, ranks allowed
# to outnumber the cores and not pinned to one each (each sets its own
# thread count), and as root where the tests run as root.
config.substitutions.append(
    ("%mpirun", "mpirun --allow-run-as-root --oversubscribe --bind-to none"))
config.substitutions.append(("%obj_root", config.transfuse_obj_root))
# ONNX models in tests are written as text (onnx.ModelProto in protobuf's
# text format) and encoded by protoc against the schema the build compiles.
config.substitutions.append(
    ("%onnx_encode",
     "protoc --encode=onnx.ModelProto -I{0} {1}".format(
         os.path.dirname(config.onnx_proto), config.onnx_proto)))

# The CUDA target: tests that compile for it need the toolkit the build
# found (ptxas, libdevice), which transfuse-compile finds through CUDA_HOME.
# Whether a GPU and its driver are here decides the tests that need one and
# those that check the error without one.
if config.transfuse_cuda:
    config.available_features.add("cuda")
    config.environment["CUDA_HOME"] = config.cuda_root
    config.substitutions.append(("%cuda_root", config.cuda_root))
    config.substitutions.append(
        ("%cuda_kernels", os.path.join(config.transfuse_obj_root, "runtime",
                                       "cuda-kernels")))
# The tools built with AddressSanitizer (make sanitize): memcheck cannot run
# them, and ASan checks those paths itself.
if config.asan:
    config.available_features.add("asan")
try:
    import ctypes
    ctypes.CDLL("libcuda.so.1")
    config.available_features.add("cuda-driver")
except OSError:
    pass
