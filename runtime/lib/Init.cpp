//===- Init.cpp - Deterministic parameter initialisation ------------------===//
//
// Every value is a pure function of (seed, parameter name, element index),
// so the same seed gives bit-identical parameters on every run, whatever
// the order of the parameters in the manifest, whatever the thread count,
// and adding a parameter changes no other. The scheme, exactly:
//
//   h      = FNV-1a 64 of the parameter name's bytes (UTF-8, no terminator)
//   j      = i / 2, the Philox block of flat (row-major) element i;
//            lane = i % 2
//   key    = (lo32(seed), hi32(seed))
//   ctr    = (lo32(j), hi32(j), lo32(h), hi32(h))
//   (x0, x1, x2, x3) = Philox-4x32-10(ctr, key)
//   u1     = ((x0 << 32 | x1) >> 11) · 2⁻⁵³          in [0, 1)
//   u2     = ((x2 << 32 | x3) >> 11) · 2⁻⁵³          in [0, 1)
//
//   zeros, ones, constant(a): the value, converted to the dtype
//   uniform(a, b):  v = a + (b − a) · (lane ? u2 : u1), in double, then
//                   rounded to the dtype; a result that rounds to b or
//                   beyond is replaced by the largest value below b, so
//                   every value lies in [a, b) (a when a = b)
//   normal(a, b):   r = sqrt(−2 ln(1 − u1)), θ = 2π u2 (Box–Muller; both
//                   lanes of a block share r and θ),
//                   z = lane ? r sin θ : r cos θ,  v = a + b · z in double,
//                   then rounded to the dtype
//
// Philox-4x32-10 is Salmon et al., "Parallel random numbers: as easy as
// 1, 2, 3" (SC'11), with Random123's constants (Philox.h, checked against
// Random123's known-answer vectors). RuntimeInitTest recomputes this scheme
// from the description above and compares bit for bit. The doubles go
// through glibc's log, sin and cos, so values are bit-identical wherever the
// same libm runs.
//===----------------------------------------------------------------------===//
#include "Philox.h"
#include "Runtime.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace transfuse::rt {

namespace {

constexpr double kTwoPi = 6.283185307179586476925286766559;

double unit(uint32_t hi, uint32_t lo) {
  uint64_t bits = (static_cast<uint64_t>(hi) << 32 | lo) >> 11;
  return static_cast<double>(bits) * 0x1.0p-53;
}

/// The double value of element i of a uniform or normal parameter.
struct Sampler {
  std::array<uint32_t, 2> key;
  uint32_t nameLo, nameHi;
  InitRule rule;

  double operator()(int64_t i) const {
    uint64_t block = static_cast<uint64_t>(i) >> 1;
    bool lane = i & 1;
    std::array<uint32_t, 4> x = philox4x32_10<uint32_t>(
        {static_cast<uint32_t>(block), static_cast<uint32_t>(block >> 32),
         nameLo, nameHi},
        key);
    double u1 = unit(x[0], x[1]), u2 = unit(x[2], x[3]);
    if (rule.kind == TF_INIT_UNIFORM)
      return rule.a + (rule.b - rule.a) * (lane ? u2 : u1);
    double r = std::sqrt(-2.0 * std::log(1.0 - u1));
    double theta = kTwoPi * u2;
    return rule.a + rule.b * (lane ? r * std::sin(theta) : r * std::cos(theta));
  }
};

/// Rounds a uniform sample to T, keeping it in [T(a), T(b)).
template <typename T> T roundUniform(double value, double a, double b) {
  T lo = static_cast<T>(a), hi = static_cast<T>(b);
  if (!(lo < hi))
    return lo;
  T result = static_cast<T>(value);
  if (result >= hi)
    result = std::nextafter(hi, lo);
  if (result < lo)
    result = lo;
  return result;
}

template <typename T>
void sample(const TensorDesc &param, const Sampler &sampler, T *out) {
  // Each element depends only on its index, so the split is invisible.
  parallelFor(param.numel, 1 << 15, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      double value = sampler(i);
      out[i] = sampler.rule.kind == TF_INIT_UNIFORM
                   ? roundUniform<T>(value, sampler.rule.a, sampler.rule.b)
                   : static_cast<T>(value);
    }
  });
}

template <typename T> void fill(T *out, int64_t numel, T value) {
  std::fill(out, out + numel, value);
}

} // namespace

void initializeTensor(const TensorDesc &param, uint64_t seed, void *data) {
  const InitRule &rule = param.init;
  if (rule.kind == TF_INIT_UNIFORM || rule.kind == TF_INIT_NORMAL) {
    uint64_t name = fnv1a64(param.name.data(), param.name.size());
    Sampler sampler{
        {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)},
        static_cast<uint32_t>(name),
        static_cast<uint32_t>(name >> 32),
        rule};
    if (param.dtype == TF_F32)
      sample(param, sampler, static_cast<float *>(data));
    else if (param.dtype == TF_F64)
      sample(param, sampler, static_cast<double *>(data));
    else // the manifest parser allows these kinds for floats only
      fail(TF_ERROR_INVALID_ARGUMENT, "parameter '" + param.name +
                                          "': cannot sample a " +
                                          dtypeName(param.dtype) + " tensor");
    return;
  }
  double value = rule.kind == TF_INIT_ZEROS  ? 0.0
                 : rule.kind == TF_INIT_ONES ? 1.0
                                             : rule.a;
  switch (param.dtype) {
  case TF_F32:
    fill(static_cast<float *>(data), param.numel, static_cast<float>(value));
    break;
  case TF_F64:
    fill(static_cast<double *>(data), param.numel, value);
    break;
  case TF_I64:
    fill(static_cast<int64_t *>(data), param.numel,
         static_cast<int64_t>(value));
    break;
  case TF_I32:
    fill(static_cast<int32_t *>(data), param.numel,
         static_cast<int32_t>(value));
    break;
  case TF_BOOL:
    fill(static_cast<uint8_t *>(data), param.numel,
         static_cast<uint8_t>(value != 0.0));
    break;
  }
}

} // namespace transfuse::rt
