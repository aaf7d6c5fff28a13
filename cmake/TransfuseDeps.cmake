# Third-party dependencies, all from Debian packages (see README.md).

set(MLIR_DIR "/usr/lib/llvm-22/lib/cmake/mlir" CACHE PATH "MLIR CMake package")
find_package(MLIR REQUIRED CONFIG)
message(STATUS "Using MLIR ${LLVM_PACKAGE_VERSION} from ${MLIR_DIR}")

list(APPEND CMAKE_MODULE_PATH "${MLIR_CMAKE_DIR}" "${LLVM_CMAKE_DIR}")
# Everything links the shared libMLIR.so: relinking takes seconds.
set(MLIR_LINK_MLIR_DYLIB ON)
set(LLVM_LINK_LLVM_DYLIB ON)
include(TableGen)
include(AddLLVM)
include(AddMLIR)

include_directories(SYSTEM ${LLVM_INCLUDE_DIRS} ${MLIR_INCLUDE_DIRS})
separate_arguments(TRANSFUSE_LLVM_DEFINITIONS NATIVE_COMMAND "${LLVM_DEFINITIONS}")
add_definitions(${TRANSFUSE_LLVM_DEFINITIONS})

set(LLVM_EXTERNAL_LIT "/usr/lib/llvm-22/bin/lit" CACHE FILEPATH "lit")

find_package(Protobuf 3.21 REQUIRED)
find_package(GTest REQUIRED)
