//===- Gemm.cpp - tfrt_cuda_matmul_f32 on cuBLASLt ------------------------===//
//
// The CUDA twin of tfrt_matmul_f32 (docs/artifact.md), with the same
// arguments: C[b] = act(op(A[b]) · op(B[b]) + bias), fp32 without TF32. The
// bias and ReLU / tanh-GELU run in cuBLASLt's epilogue. cuBLASLt has no
// erf-GELU epilogue, and the compiler never asks this function for one.
//===----------------------------------------------------------------------===//
#include "CublasLt.h"
#include "DeviceSession.h"
#include "Execution.h"

using namespace transfuse::rt;
using namespace transfuse::rt::cuda;

namespace {

enum Activation : int32_t { kNone = 0, kRelu = 1, kGeluErf = 2, kGeluTanh = 3 };

cublasLtEpilogue_t epilogueFor(bool bias, int32_t activation) {
  switch (activation) {
  case kNone:
    return bias ? CUBLASLT_EPILOGUE_BIAS : CUBLASLT_EPILOGUE_DEFAULT;
  case kRelu:
    return bias ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_RELU;
  case kGeluTanh:
    return bias ? CUBLASLT_EPILOGUE_GELU_BIAS : CUBLASLT_EPILOGUE_GELU;
  default:
    fail(TF_ERROR_EXECUTION,
         "activation " + std::to_string(activation) +
             " has no cuBLASLt epilogue (0 none, 1 relu, 3 tanh-GELU)");
  }
}

} // namespace

extern "C" TF_API void tfrt_cuda_matmul_f32(int64_t batch, int64_t m, int64_t n,
                                            int64_t k, const float *a,
                                            int64_t stride_a, const float *b,
                                            int64_t stride_b, int32_t trans_a,
                                            int32_t trans_b, const float *bias,
                                            int32_t activation, float *c,
                                            int64_t stride_c) {
  onDevice("tfrt_cuda_matmul_f32", [&](Execution &execution) {
    if (batch < 0 || m < 0 || n < 0 || k < 0)
      fail(TF_ERROR_EXECUTION, "negative size");
    if (batch == 0 || m == 0 || n == 0)
      return;
    DeviceSession &session = execution.session();
    if (k == 0) {
      // The product of empty operands is zero (plus the epilogue, which the
      // compiler never combines with k = 0).
      check(driver().cuMemsetD8Async(reinterpret_cast<CUdeviceptr>(c), 0,
                                     batch * m * n * sizeof(float),
                                     session.stream()),
            "zeroing an empty GEMM's result");
      return;
    }
    GemmShape shape{batch,
                    m,
                    n,
                    k,
                    stride_a,
                    stride_b,
                    stride_c,
                    trans_a != 0,
                    trans_b != 0,
                    static_cast<int32_t>(epilogueFor(bias, activation))};
    session.cublasLt().gemm(shape, a, b, bias, c, session.stream(),
                            session.workspace().pointer(),
                            session.workspace().size());
  });
}
