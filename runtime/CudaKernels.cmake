# The CUDA half of the runtime: host code compiled by the C++ compiler
# against the toolkit's headers, and the hand-written kernels, one family
# per lib/cuda/kernels/<family>.cu, each compiled by nvcc into a fatbin
# (cubins for TRANSFUSE_CUDA_ARCHS, PTX for the last) embedded in the
# library. ptxas's report of every family is kept beside its fatbin for
# test/Runtime/cuda-kernels-spill.test.
set(TRANSFUSE_CUDA_KERNEL_FAMILIES
  attention_backward
  attention_forward
  embedding
  layer_norm
  losses
  optimizer
)
set(kernel_dir ${CMAKE_CURRENT_BINARY_DIR}/cuda-kernels)
file(MAKE_DIRECTORY ${kernel_dir})
file(GLOB kernel_headers CONFIGURE_DEPENDS
  ${CMAKE_CURRENT_SOURCE_DIR}/lib/cuda/kernels/*.cuh
  ${CMAKE_CURRENT_SOURCE_DIR}/lib/shared/*.h)
set(fatbins)
set(images_inc "")
foreach(family IN LISTS TRANSFUSE_CUDA_KERNEL_FAMILIES)
  set(source ${CMAKE_CURRENT_SOURCE_DIR}/lib/cuda/kernels/${family}.cu)
  set(fatbin ${kernel_dir}/${family}.fatbin)
  add_custom_command(
    OUTPUT ${fatbin} ${kernel_dir}/${family}.ptxas.log
    COMMAND ${CMAKE_COMMAND} -DNVCC=${CUDAToolkit_NVCC_EXECUTABLE}
            -DSOURCE=${source} -DOUTPUT=${fatbin}
            -DLOG=${kernel_dir}/${family}.ptxas.log
            "-DARCHS=${TRANSFUSE_CUDA_ARCHS}"
            "-DINCLUDES=${CMAKE_CURRENT_SOURCE_DIR}/lib"
            -P ${PROJECT_SOURCE_DIR}/cmake/CompileCudaKernels.cmake
    DEPENDS ${source} ${kernel_headers}
            ${PROJECT_SOURCE_DIR}/cmake/CompileCudaKernels.cmake
    COMMENT "nvcc: CUDA kernels ${family}"
    VERBATIM)
  list(APPEND fatbins ${fatbin})
  string(APPEND images_inc "TF_CUDA_FAMILY(${family}, \"${fatbin}\")\n")
endforeach()
file(GENERATE OUTPUT ${kernel_dir}/KernelLibraryImages.inc
  CONTENT "${images_inc}")
add_custom_target(transfuse_cuda_kernels DEPENDS ${fatbins})

target_sources(transfuse_runtime PRIVATE
  lib/cuda/Attention.cpp
  lib/cuda/Collectives.cpp
  lib/cuda/CublasLt.cpp
  lib/cuda/DeviceSession.cpp
  lib/cuda/Driver.cpp
  lib/cuda/Embedding.cpp
  lib/cuda/EntryGraph.cpp
  lib/cuda/Execution.cpp
  lib/cuda/Gemm.cpp
  lib/cuda/KernelLibrary.cpp
  lib/cuda/LayerNorm.cpp
  lib/cuda/Libraries.cpp
  lib/cuda/Losses.cpp
  lib/cuda/Nccl.cpp
  lib/cuda/Optimizer.cpp
)
add_dependencies(transfuse_runtime transfuse_cuda_kernels)
set_source_files_properties(lib/cuda/KernelLibrary.cpp PROPERTIES
  OBJECT_DEPENDS "${fatbins}")
# NCCL's header, for the all-reduces of data-parallel artifacts (the
# library itself is opened at run time, lib/cuda/Nccl.h): the toolkit's, or
# the directory TRANSFUSE_NCCL_INCLUDE names (the GPU check carries one).
find_path(TRANSFUSE_NCCL_INCLUDE nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS}
  REQUIRED)
target_include_directories(transfuse_runtime PRIVATE
  ${CUDAToolkit_INCLUDE_DIRS} ${TRANSFUSE_NCCL_INCLUDE} ${kernel_dir})
target_compile_definitions(transfuse_runtime PRIVATE
  TRANSFUSE_CUDA_LIBRARY_DIR="${CUDAToolkit_LIBRARY_DIR}")
