/*===- fake_model.c - A hand-written stand-in for generated code ---------===*\
|*                                                                            *|
|* The runtime's tests pack this shared object into .tfm files (with the      *|
|* manifest of TfmWriter.h's fakeManifest) to exercise the entry-point ABI    *|
|* without the compiler. Like generated code, it leaves tfrt_matmul_f32       *|
|* undefined for the runtime to provide.                                      *|
|*                                                                            *|
|* Buffers per entry point: its parameters (in the manifest's order for it),  *|
|* then its inputs, then its outputs.                                         *|
\*===----------------------------------------------------------------------===*/

#include <stdint.h>

void tfrt_matmul_f32(int64_t batch, int64_t m, int64_t n, int64_t k,
                     const float *a, int64_t stride_a, const float *b,
                     int64_t stride_b, int32_t trans_a, int32_t trans_b,
                     const float *bias, int32_t activation, float *c,
                     int64_t stride_c);

/* forward(w f32[3,4], b f32[3]; x f32[2,4], y f32[2,4])
     -> sum f32[2,4] = x + y, proj f32[2,3] = x · wᵀ + b */
int32_t tf_entry_forward(void **buffers) {
  const float *w = buffers[0], *b = buffers[1];
  const float *x = buffers[2], *y = buffers[3];
  float *sum = buffers[4], *proj = buffers[5];
  for (int i = 0; i < 2 * 4; ++i)
    sum[i] = x[i] + y[i];
  tfrt_matmul_f32(1, 2, 3, 4, x, 0, w, 0, 0, 1, b, 0, proj, 0);
  return 0;
}

/* The same computation, taking its parameters in the other order:
   forward_bw(b, w; x, y) -> sum, proj. */
int32_t tf_entry_forward_bw(void **buffers) {
  void *swapped[6] = {buffers[1], buffers[0], buffers[2],
                      buffers[3], buffers[4], buffers[5]};
  return tf_entry_forward(swapped);
}

/* embed(table f32[5,2]; tokens i64[2,3] ids in [0, 4]) -> rows f32[2,3,2] */
int32_t tf_entry_embed(void **buffers) {
  const float *table = buffers[0];
  const int64_t *tokens = buffers[1];
  float *rows = buffers[2];
  for (int i = 0; i < 2 * 3; ++i) {
    if (tokens[i] < 0 || tokens[i] > 4)
      return 2; /* the runtime checks ids first: never reached */
    rows[2 * i] = table[2 * tokens[i]];
    rows[2 * i + 1] = table[2 * tokens[i] + 1];
  }
  return 0;
}

/* fail(; ) -> out f32[1]: reports an error, as generated code would. */
int32_t tf_entry_fail(void **buffers) {
  float *out = buffers[0];
  out[0] = 1.0f;
  return 7;
}

/* mixed(; ids i32[4] in [0, 9], mask bool[4], scale f64[])
     -> out f64[4] = mask ? ids · scale : -1 */
int32_t tf_entry_mixed(void **buffers) {
  const int32_t *ids = buffers[0];
  const uint8_t *mask = buffers[1];
  const double *scale = buffers[2];
  double *out = buffers[3];
  for (int i = 0; i < 4; ++i)
    out[i] = mask[i] ? ids[i] * *scale : -1.0;
  return 0;
}
