//===- CublasLt.h - cuBLASLt, loaded at run time ----------------*- C++ -*-===//
//
// libcublasLt.so is half a gigabyte and needed only where a CUDA artifact
// runs: it is opened by the first session that runs a GEMM, looked for
// where TRANSFUSE_CUBLASLT names it, then on the loader's path, then in the
// CUDA toolkit the runtime was built against.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_RUNTIME_LIB_CUDA_CUBLASLT_H
#define TRANSFUSE_RUNTIME_LIB_CUDA_CUBLASLT_H

#include <cublasLt.h>

#include <cstdint>
#include <map>
#include <string>
#include <tuple>

namespace transfuse::rt::cuda {

#define TF_CUBLASLT_FUNCTIONS(X)                                               \
  X(cublasLtCreate)                                                            \
  X(cublasLtDestroy)                                                           \
  X(cublasLtGetVersion)                                                        \
  X(cublasLtGetStatusString)                                                   \
  X(cublasLtMatmulDescCreate)                                                  \
  X(cublasLtMatmulDescDestroy)                                                 \
  X(cublasLtMatmulDescSetAttribute)                                            \
  X(cublasLtMatrixLayoutCreate)                                                \
  X(cublasLtMatrixLayoutDestroy)                                               \
  X(cublasLtMatrixLayoutSetAttribute)                                          \
  X(cublasLtMatmulPreferenceCreate)                                            \
  X(cublasLtMatmulPreferenceDestroy)                                           \
  X(cublasLtMatmulPreferenceSetAttribute)                                      \
  X(cublasLtMatmulAlgoGetHeuristic)                                            \
  X(cublasLtMatmul)

/// The functions of the library.
struct CublasLtApi {
#define TF_CUBLASLT_DECLARE_MEMBER(name) decltype(&::name) name = nullptr;
  TF_CUBLASLT_FUNCTIONS(TF_CUBLASLT_DECLARE_MEMBER)
#undef TF_CUBLASLT_DECLARE_MEMBER
};

/// The library, opened once; TF_ERROR_UNSUPPORTED naming every place tried
/// when it cannot be.
const CublasLtApi &cublasLtApi();

/// Throws TF_ERROR_EXECUTION "<what>: <status>" unless `status` is success.
void check(cublasStatus_t status, const std::string &what);

/// A row-major GEMM shape, the key of a plan.
struct GemmShape {
  int64_t batch, m, n, k, strideA, strideB, strideC;
  bool transposeA, transposeB;
  int32_t epilogue; // cublasLtEpilogue_t
  bool operator<(const GemmShape &other) const {
    return std::tie(batch, m, n, k, strideA, strideB, strideC, transposeA,
                    transposeB, epilogue) <
           std::tie(other.batch, other.m, other.n, other.k, other.strideA,
                    other.strideB, other.strideC, other.transposeA,
                    other.transposeB, other.epilogue);
  }
};

/// A session's cuBLASLt handle and its plans: descriptors and the
/// algorithm chosen for each shape the first time it runs, so that every
/// later call of that shape runs the same algorithm (same results, bit for
/// bit).
class CublasLt {
public:
  /// With `tf32`, the GEMMs may round their inputs to TF32 and run on
  /// tensor cores (fp32 accumulation).
  explicit CublasLt(bool tf32);
  ~CublasLt();
  CublasLt(const CublasLt &) = delete;
  CublasLt &operator=(const CublasLt &) = delete;

  /// C[b] = epilogue(op(A[b]) · op(B[b]) + bias) in fp32 (or TF32), row-major,
  /// on `stream`, with `workspace` of `workspaceBytes` for the algorithm.
  void gemm(const GemmShape &shape, const float *a, const float *b,
            const float *bias, float *c, void *stream, void *workspace,
            size_t workspaceBytes);

private:
  struct Plan {
    cublasLtMatmulDesc_t desc = nullptr;
    cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
    cublasLtMatmulAlgo_t algo{};
  };
  Plan &plan(const GemmShape &shape, size_t workspaceBytes);

  cublasLtHandle_t handle_ = nullptr;
  cublasComputeType_t computeType_;
  std::map<GemmShape, Plan> plans_;
};

} // namespace transfuse::rt::cuda

#endif // TRANSFUSE_RUNTIME_LIB_CUDA_CUBLASLT_H
