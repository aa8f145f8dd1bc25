// Deterministic pseudo-random numbers for inputs and weights the user did not supply:
// the same seed gives the same floats natively and in WebAssembly (integer mixing, one
// multiply, and sqrt, which IEEE-754 rounds exactly), so a page, a test and the CLI
// reproduce one another.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

namespace tfp::api {

// SplitMix64 (Steele, Lea, Flood 2014): a 64-bit counter pushed through a mixer.
class SeededStream {
 public:
  // A stream keyed by a seed and a purpose ("attn.in_proj"), so that streams for
  // different tensors never overlap even with the same seed.
  SeededStream(uint64_t seed, std::string_view purpose);
  uint64_t next_u64();
  // Uniform in [-bound, bound), with 24 random bits (a float's full mantissa).
  float uniform(float bound);
  void fill_uniform(std::vector<float>& out, float bound);

 private:
  uint64_t state_;
};

// FNV-1a 64-bit hash of bytes; used to key a stream by a token's text.
uint64_t fnv1a64(std::string_view bytes, uint64_t basis = 0xcbf29ce484222325ull);

}  // namespace tfp::api
