# The fuzz build (TRANSFUSE_FUZZ=ON, docs/fuzzing.md): the libFuzzer targets
# of test/fuzz and only what they call, the runtime, the importers of specs
# and ONNX models (compiler/lib/Spec and Import) and the nn dialect; not the compiler's
# passes and backends, whose MLIR-heavy sources would double the build.
# libFuzzer comes with clang: Debian's clang-22, the LLVM of the rest.
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "TRANSFUSE_FUZZ=ON needs clang's libFuzzer: configure "
    "with -DCMAKE_CXX_COMPILER=clang++-22 -DCMAKE_C_COMPILER=clang-22")
endif()

# Everything is instrumented: ASan and UBSan find the bugs, libFuzzer's
# coverage steers towards new code. -O1 keeps the build short, and the
# assertions stay on, since an assertion that input can reach is a bug.
# A UBSan report aborts, so that the fuzzer counts it as a crash.
set(TRANSFUSE_SANITIZERS -fsanitize=address,undefined -fno-sanitize-recover=all
  -fno-omit-frame-pointer -gline-tables-only)
string(JOIN " " TRANSFUSE_SANITIZER_FLAGS ${TRANSFUSE_SANITIZERS})
string(APPEND CMAKE_CXX_FLAGS
  " ${TRANSFUSE_SANITIZER_FLAGS} -fsanitize=fuzzer-no-link")
foreach(config RELEASE RELWITHDEBINFO MINSIZEREL)
  set(CMAKE_CXX_FLAGS_${config} "-O1")
endforeach()
set(TRANSFUSE_FUZZ_LINK_FLAGS ${TRANSFUSE_SANITIZERS} -fsanitize=fuzzer)

# The runtime's OpenMP is GCC's libgomp, onto which
# runtime/lib/OpenMPEntryPoints.cpp maps LLVM's OpenMP calls; clang cannot
# generate code for libgomp, so the runtime is compiled without -fopenmp
# against libgomp's header and library: its parallel loops run serially,
# which changes nothing they compute. The header is copied alone, since
# GCC's include directory also holds GCC's own builtin headers.
execute_process(COMMAND gcc -print-file-name=include/omp.h
  OUTPUT_VARIABLE TRANSFUSE_GOMP_HEADER OUTPUT_STRIP_TRAILING_WHITESPACE)
execute_process(COMMAND gcc -print-file-name=libgomp.so
  OUTPUT_VARIABLE TRANSFUSE_GOMP_LIBRARY OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT EXISTS "${TRANSFUSE_GOMP_HEADER}" OR
   NOT EXISTS "${TRANSFUSE_GOMP_LIBRARY}")
  message(FATAL_ERROR "TRANSFUSE_FUZZ=ON: GCC's libgomp (omp.h, libgomp.so) "
    "not found")
endif()
configure_file(${TRANSFUSE_GOMP_HEADER} ${CMAKE_BINARY_DIR}/gomp/omp.h COPYONLY)
add_library(OpenMP::OpenMP_CXX INTERFACE IMPORTED)
set_target_properties(OpenMP::OpenMP_CXX PROPERTIES
  INTERFACE_INCLUDE_DIRECTORIES ${CMAKE_BINARY_DIR}/gomp
  INTERFACE_LINK_LIBRARIES ${TRANSFUSE_GOMP_LIBRARY})
find_package(nlohmann_json 3.10 REQUIRED)
find_package(Threads REQUIRED)
set(TRANSFUSE_HAVE_CUDA OFF)

include(TransfuseDeps)
add_subdirectory(models EXCLUDE_FROM_ALL)
add_subdirectory(dialects EXCLUDE_FROM_ALL)
# The importer's ops are under test as far as the importer calls them: ASan
# and UBSan check them, but unoptimised (-O0 builds the dialect four times
# faster) and without coverage. The code protoc generates is not under test.
target_compile_options(obj.TransfuseNN PRIVATE -O0
  -fno-sanitize=fuzzer-no-link)
foreach(proto TransfuseSpecProto TransfuseOnnxProto)
  target_compile_options(${proto} PRIVATE
    -fno-sanitize=address,undefined,fuzzer-no-link)
endforeach()
add_subdirectory(runtime EXCLUDE_FROM_ALL)
# For the fake model the runtime's tests load in the place of generated code.
add_subdirectory(test/Unit EXCLUDE_FROM_ALL)
add_subdirectory(test/fuzz)
