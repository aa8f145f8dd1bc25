// A small seeded pseudo-random generator for the trainer: initial weights, toy-task
// data, shuffling and dropout all draw from it, so a run is fixed by its seed.
//
// Why our own and not <random>: std::mt19937 is portable, but the distributions
// (std::uniform_real_distribution, std::normal_distribution) are implementation-defined,
// so libstdc++ (native) and libc++ (Emscripten) would give different numbers for the same
// seed. Here every value is made from integer arithmetic and exact float scaling, so the
// sequence is bit-identical natively and in WASM.
//
// The generator is SplitMix64 (Steele, Lea, Flood 2014): a 64-bit counter advanced by
// an odd constant and scrambled by two xor-shift-multiply rounds. It passes BigCrush,
// is a few instructions per draw, and any seed (including 0) is a good one.
#pragma once
#include <cstdint>

namespace tfp::train {

class Rng {
 public:
  explicit Rng(uint64_t seed = 0) : state_(seed) {}

  uint64_t next_u64() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint32_t next_u32() { return static_cast<uint32_t>(next_u64() >> 32); }

  // Uniform in [0, 1) with 24 random bits: exactly representable as a float, so no
  // rounding mode or libm is involved.
  float uniform() { return static_cast<float>(next_u64() >> 40) * (1.0f / 16777216.0f); }
  // Uniform in [lo, hi).
  float uniform(float lo, float hi) { return lo + (hi - lo) * uniform(); }

  // Uniform integer in [0, n) for n >= 1, unbiased: draws in the biased tail
  // (the last 2^64 mod n values) are rejected and redrawn.
  uint64_t below(uint64_t n) {
    const uint64_t limit = ~uint64_t{0} - (~uint64_t{0} % n);  // a multiple of n
    uint64_t r;
    do r = next_u64(); while (r >= limit);
    return r % n;
  }
  int below(int n) { return static_cast<int>(below(static_cast<uint64_t>(n))); }

  // An independent stream derived from this seed and a label (e.g. "train" vs "test"
  // data): the label is hashed into the seed, so streams never overlap in practice.
  static Rng stream(uint64_t seed, uint64_t label) {
    Rng mix(seed ^ (label * 0xD1B54A32D192ED03ull));
    mix.next_u64();
    return Rng(mix.next_u64());
  }

 private:
  uint64_t state_;
};

}  // namespace tfp::train
