# The CUDA target: its toolkit and the architectures its kernels are built
# for. TRANSFUSE_CUDA=AUTO builds the target when a CUDA toolkit (13.x) is
# found, ON requires one, OFF leaves it out (and says so). The README's
# commands pass ON with the toolkit tools/install-cuda-toolkit.sh provides.
set(TRANSFUSE_CUDA AUTO CACHE STRING
  "Build the CUDA target: AUTO (when a toolkit is found), ON or OFF")
set_property(CACHE TRANSFUSE_CUDA PROPERTY STRINGS AUTO ON OFF)
set(TRANSFUSE_CUDA_ARCHS 80 90 CACHE STRING
  "GPU architectures of the runtime's kernels (cubins), PTX for the last")

set(TRANSFUSE_HAVE_CUDA OFF)
if(TRANSFUSE_CUDA STREQUAL "OFF")
  message(STATUS "CUDA target: off (TRANSFUSE_CUDA=OFF); its tests are skipped")
else()
  find_package(CUDAToolkit 13)
  if(CUDAToolkit_FOUND AND CUDAToolkit_NVCC_EXECUTABLE)
    set(TRANSFUSE_HAVE_CUDA ON)
    get_filename_component(TRANSFUSE_CUDA_ROOT "${CUDAToolkit_BIN_DIR}"
      DIRECTORY)
    message(STATUS "CUDA target: on, toolkit ${CUDAToolkit_VERSION} at "
      "${TRANSFUSE_CUDA_ROOT}")
  elseif(TRANSFUSE_CUDA STREQUAL "ON")
    message(FATAL_ERROR "TRANSFUSE_CUDA=ON but no CUDA 13 toolkit was found: "
      "run tools/install-cuda-toolkit.sh and pass CUDAToolkit_ROOT, or "
      "configure with -DTRANSFUSE_CUDA=OFF")
  else()
    message(WARNING "CUDA target: off, no CUDA 13 toolkit found "
      "(tools/install-cuda-toolkit.sh installs one; -DTRANSFUSE_CUDA=OFF "
      "silences this)")
  endif()
endif()
