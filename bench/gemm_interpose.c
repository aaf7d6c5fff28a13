/*===- gemm_interpose.c - Time the runtime's GEMM calls
---------------------===*\
|*                                                                            *|
|* An LD_PRELOAD library for `bench/forward.py --gemm-split`. It defines      *|
|* tfrt_matmul_f32, so the generated code's calls land here first (the       *|
|* preloaded object comes first in the global scope), times each call and    *|
|* forwards it to the runtime's own kernel. The runtime is found by its path *|
|* in TF_BENCH_RUNTIME (it is already loaded, possibly RTLD_LOCAL, when the  *|
|* first call comes). The benchmark reads and resets the totals through      *|
|* tf_bench_gemm_stats / tf_bench_gemm_reset.                                *|
|*                                                                            *|
|* Built by forward.py: cc -O2 -shared -fPIC gemm_interpose.c -ldl            *|
\*===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef void (*gemm_fn)(int64_t, int64_t, int64_t, int64_t, const float *,
                        int64_t, const float *, int64_t, int32_t, int32_t,
                        const float *, int32_t, float *, int64_t);

static gemm_fn real_gemm;
static double total_seconds, total_flops;
static int64_t total_calls;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

void tfrt_matmul_f32(int64_t batch, int64_t m, int64_t n, int64_t k,
                     const float *a, int64_t stride_a, const float *b,
                     int64_t stride_b, int32_t trans_a, int32_t trans_b,
                     const float *bias, int32_t activation, float *c,
                     int64_t stride_c) {
  if (!real_gemm) {
    const char *path = getenv("TF_BENCH_RUNTIME");
    void *runtime = path ? dlopen(path, RTLD_NOLOAD | RTLD_LAZY) : NULL;
    real_gemm = runtime ? (gemm_fn)dlsym(runtime, "tfrt_matmul_f32") : NULL;
    if (!real_gemm) {
      fprintf(stderr,
              "gemm_interpose: tfrt_matmul_f32 not found in "
              "TF_BENCH_RUNTIME=%s\n",
              path ? path : "(unset)");
      abort();
    }
  }
  double start = now();
  real_gemm(batch, m, n, k, a, stride_a, b, stride_b, trans_a, trans_b, bias,
            activation, c, stride_c);
  total_seconds += now() - start;
  total_flops += 2.0 * (double)batch * (double)m * (double)n * (double)k;
  total_calls += 1;
}

void tf_bench_gemm_reset(void) {
  total_seconds = total_flops = 0;
  total_calls = 0;
}

void tf_bench_gemm_stats(double *seconds, double *flops, int64_t *calls) {
  *seconds = total_seconds;
  *flops = total_flops;
  *calls = total_calls;
}
