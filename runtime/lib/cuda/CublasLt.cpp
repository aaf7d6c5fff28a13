//===- CublasLt.cpp - Opening cuBLASLt; GEMM plans ------------------------===//
//
// Row-major C = A · op(B) is column-major Cᵀ = op(B)ᵀ · Aᵀ: the buffers are
// handed to cuBLASLt as they are, B first, with B transposed exactly when
// it is *not* transposed in row-major terms. A bias of length n is then a
// bias per row of cuBLASLt's D, which its BIAS epilogues add.
//===----------------------------------------------------------------------===//
#include "CublasLt.h"
#include "Libraries.h"

#include "../Runtime.h"

#include <dlfcn.h>
#include <mutex>
#include <optional>

namespace transfuse::rt::cuda {
namespace {

std::string majorLibrary() {
  return "libcublasLt.so." + std::to_string(CUBLAS_VER_MAJOR);
}

CublasLtApi load() {
  void *library =
      openNvidiaLibrary(majorLibrary(), "TRANSFUSE_CUBLASLT", "cuBLASLt");
  CublasLtApi api;
#define TF_CUBLASLT_LOAD_MEMBER(name)                                          \
  api.name = reinterpret_cast<decltype(api.name)>(                             \
      dlsym(library, TF_CUDA_STRINGIFY_EXPANDED(name)));                       \
  if (!api.name)                                                               \
    fail(TF_ERROR_UNSUPPORTED,                                                 \
         "cuBLASLt lacks " TF_CUDA_STRINGIFY_EXPANDED(name));
  TF_CUBLASLT_FUNCTIONS(TF_CUBLASLT_LOAD_MEMBER)
#undef TF_CUBLASLT_LOAD_MEMBER
  size_t version = api.cublasLtGetVersion();
  if (version / 10000 != CUBLAS_VER_MAJOR)
    fail(TF_ERROR_UNSUPPORTED,
         "cuBLASLt " + std::to_string(version) + " is not of version " +
             std::to_string(CUBLAS_VER_MAJOR) + ".x, which the runtime needs");
  return api;
}

template <typename T>
void setDesc(cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t key,
             T value) {
  check(cublasLtApi().cublasLtMatmulDescSetAttribute(desc, key, &value,
                                                     sizeof(value)),
        "configuring a GEMM");
}

template <typename T>
void setLayout(cublasLtMatrixLayout_t layout,
               cublasLtMatrixLayoutAttribute_t key, T value) {
  check(cublasLtApi().cublasLtMatrixLayoutSetAttribute(layout, key, &value,
                                                       sizeof(value)),
        "configuring a GEMM layout");
}

/// A column-major rows x cols fp32 matrix (leading dimension rows) in
/// `batch` copies `stride` elements apart.
cublasLtMatrixLayout_t layout(int64_t rows, int64_t cols, int64_t batch,
                              int64_t stride) {
  cublasLtMatrixLayout_t result = nullptr;
  check(cublasLtApi().cublasLtMatrixLayoutCreate(&result, CUDA_R_32F, rows,
                                                 cols, rows),
        "creating a GEMM layout");
  if (batch > 1) {
    setLayout(result, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT,
              static_cast<int32_t>(batch));
    setLayout(result, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, stride);
  }
  return result;
}

} // namespace

const CublasLtApi &cublasLtApi() {
  static std::mutex mutex;
  static std::optional<CublasLtApi> instance;
  std::lock_guard<std::mutex> lock(mutex);
  if (!instance)
    instance = load();
  return *instance;
}

void check(cublasStatus_t status, const std::string &what) {
  if (status == CUBLAS_STATUS_SUCCESS)
    return;
  const char *text = cublasLtApi().cublasLtGetStatusString(status);
  fail(TF_ERROR_EXECUTION,
       what + ": cuBLASLt " + (text ? text : std::to_string(int(status))));
}

CublasLt::CublasLt(bool tf32)
    : computeType_(tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F) {
  check(cublasLtApi().cublasLtCreate(&handle_), "creating a cuBLASLt handle");
}

CublasLt::~CublasLt() {
  const CublasLtApi &api = cublasLtApi();
  for (auto &[shape, plan] : plans_) {
    api.cublasLtMatrixLayoutDestroy(plan.a);
    api.cublasLtMatrixLayoutDestroy(plan.b);
    api.cublasLtMatrixLayoutDestroy(plan.c);
    api.cublasLtMatmulDescDestroy(plan.desc);
  }
  api.cublasLtDestroy(handle_);
}

CublasLt::Plan &CublasLt::plan(const GemmShape &shape, size_t workspaceBytes) {
  auto found = plans_.find(shape);
  if (found != plans_.end())
    return found->second;
  const CublasLtApi &api = cublasLtApi();
  Plan plan;
  // fp32 inputs, accumulation and output; TF32 multiplication if allowed.
  check(api.cublasLtMatmulDescCreate(&plan.desc, computeType_, CUDA_R_32F),
        "creating a GEMM");
  // Row-major C = op(A) op(B) is column-major Cᵀ = op(B)ᵀ op(A)ᵀ: cuBLASLt's
  // first operand is B, transposed in its column-major view when B is
  // stored [n, k], and its second A, transposed when A is stored [k, m].
  setDesc(plan.desc, CUBLASLT_MATMUL_DESC_TRANSA,
          static_cast<int32_t>(shape.transposeB ? CUBLAS_OP_T : CUBLAS_OP_N));
  setDesc(plan.desc, CUBLASLT_MATMUL_DESC_TRANSB,
          static_cast<int32_t>(shape.transposeA ? CUBLAS_OP_T : CUBLAS_OP_N));
  setDesc(plan.desc, CUBLASLT_MATMUL_DESC_EPILOGUE,
          static_cast<uint32_t>(shape.epilogue));
  // Column-major views: B as [n, k] (or [k, n] stored, when transposed), A
  // as [k, m] (or [m, k] stored, when transposed), C as [n, m].
  plan.a = shape.transposeB
               ? layout(shape.k, shape.n, shape.batch, shape.strideB)
               : layout(shape.n, shape.k, shape.batch, shape.strideB);
  plan.b = shape.transposeA
               ? layout(shape.m, shape.k, shape.batch, shape.strideA)
               : layout(shape.k, shape.m, shape.batch, shape.strideA);
  plan.c = layout(shape.n, shape.m, shape.batch, shape.strideC);

  cublasLtMatmulPreference_t preference = nullptr;
  check(api.cublasLtMatmulPreferenceCreate(&preference),
        "creating a GEMM preference");
  uint64_t workspace = workspaceBytes;
  check(api.cublasLtMatmulPreferenceSetAttribute(
            preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace,
            sizeof(workspace)),
        "setting the GEMM workspace");
  cublasLtMatmulHeuristicResult_t result{};
  int found_count = 0;
  cublasStatus_t status = api.cublasLtMatmulAlgoGetHeuristic(
      handle_, plan.desc, plan.a, plan.b, plan.c, plan.c, preference, 1,
      &result, &found_count);
  api.cublasLtMatmulPreferenceDestroy(preference);
  if (status == CUBLAS_STATUS_SUCCESS && found_count == 0)
    status = CUBLAS_STATUS_NOT_SUPPORTED;
  if (status != CUBLAS_STATUS_SUCCESS) {
    api.cublasLtMatrixLayoutDestroy(plan.a);
    api.cublasLtMatrixLayoutDestroy(plan.b);
    api.cublasLtMatrixLayoutDestroy(plan.c);
    api.cublasLtMatmulDescDestroy(plan.desc);
    check(status, "no cuBLASLt algorithm for the GEMM " +
                      std::to_string(shape.batch) + "x[" +
                      std::to_string(shape.m) + ", " + std::to_string(shape.k) +
                      "]x[" + std::to_string(shape.k) + ", " +
                      std::to_string(shape.n) + "]");
  }
  plan.algo = result.algo;
  return plans_.emplace(shape, plan).first->second;
}

void CublasLt::gemm(const GemmShape &shape, const float *a, const float *b,
                    const float *bias, float *c, void *stream, void *workspace,
                    size_t workspaceBytes) {
  Plan &p = plan(shape, workspaceBytes);
  setDesc(p.desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER,
          static_cast<const void *>(bias));
  const float one = 1.0f, zero = 0.0f;
  check(cublasLtApi().cublasLtMatmul(handle_, p.desc, &one, b, p.a, a, p.b,
                                     &zero, c, p.c, c, p.c, &p.algo, workspace,
                                     workspaceBytes,
                                     static_cast<cudaStream_t>(stream)),
        "running a GEMM");
}

} // namespace transfuse::rt::cuda
