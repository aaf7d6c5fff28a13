# Compiles one kernel family (a .cu file) into a fatbin with a cubin per
# architecture in ARCHS and PTX for the last, and keeps ptxas's report of
# every kernel (registers, spills) in LOG for the spill test.
#   cmake -DNVCC=... -DSOURCE=x.cu -DOUTPUT=x.fatbin -DLOG=x.ptxas.log
#         -DARCHS="80;90" -DINCLUDES="dir;dir" -P CompileCudaKernels.cmake
set(gencode)
foreach(arch IN LISTS ARCHS)
  list(APPEND gencode -gencode arch=compute_${arch},code=sm_${arch})
  set(last ${arch})
endforeach()
list(APPEND gencode -gencode arch=compute_${last},code=compute_${last})
set(includes)
foreach(dir IN LISTS INCLUDES)
  list(APPEND includes -I${dir})
endforeach()
execute_process(
  COMMAND ${NVCC} -fatbin -std=c++17 -O3 -Xptxas -v ${gencode} ${includes}
          ${SOURCE} -o ${OUTPUT}
  RESULT_VARIABLE result
  OUTPUT_VARIABLE output
  ERROR_VARIABLE report)
file(WRITE ${LOG} "${report}")
if(NOT result EQUAL 0)
  message(FATAL_ERROR "nvcc failed on ${SOURCE}:\n${output}${report}")
endif()
