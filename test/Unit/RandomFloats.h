//===- RandomFloats.h - Seeded uniform test inputs --------------*- C++ -*-===//
//
// The random inputs of the host tests of the shared formulas and of the
// emulated CUDA kernels: the same seed gives the same values everywhere.
//===----------------------------------------------------------------------===//
#ifndef TRANSFUSE_TEST_UNIT_RANDOMFLOATS_H
#define TRANSFUSE_TEST_UNIT_RANDOMFLOATS_H

#include <random>
#include <vector>

/// `count` floats uniform in [low, high), drawn from `seed`.
inline std::vector<float> uniformFloats(size_t count, float low, float high,
                                        unsigned seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> distribution(low, high);
  std::vector<float> values(count);
  for (float &value : values)
    value = distribution(generator);
  return values;
}

#endif // TRANSFUSE_TEST_UNIT_RANDOMFLOATS_H
