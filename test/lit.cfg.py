# lit configuration of the Transfuse test suite.
import os

import lit.formats

config.name = "Transfuse"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".pbtxt", ".test"]
config.excludes = ["Inputs", "Unit", "lit.cfg.py", "CMakeLists.txt"]
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
config.substitutions.append(("%obj_root", config.transfuse_obj_root))
