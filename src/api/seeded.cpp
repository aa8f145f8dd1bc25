// Seeded values: the generator itself and the C API's token embeddings.
#include "api/seeded.h"

#include <cmath>
#include <string_view>

#include "api/api_edge.h"

namespace tfp::api {

namespace {
uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
}  // namespace

uint64_t fnv1a64(std::string_view bytes, uint64_t basis) {
  uint64_t h = basis;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

SeededStream::SeededStream(uint64_t seed, std::string_view purpose)
    : state_(mix64(seed) ^ fnv1a64(purpose)) {}

uint64_t SeededStream::next_u64() {
  state_ += 0x9e3779b97f4a7c15ull;  // the golden-ratio increment of SplitMix64
  return mix64(state_);
}

float SeededStream::uniform(float bound) {
  // Top 24 bits → an exact float in [0, 1); the scaling is exact up to rounding of
  // one multiply, which is correctly rounded on every IEEE-754 target.
  const float u = static_cast<float>(next_u64() >> 40) * (1.0f / 16777216.0f);
  return (2.0f * u - 1.0f) * bound;
}

void SeededStream::fill_uniform(std::vector<float>& out, float bound) {
  for (float& v : out) v = uniform(bound);
}

}  // namespace tfp::api

extern "C" int tfp_seeded_token_embeddings(const char* token_bytes, const int32_t* token_lengths,
                                           int n_tokens, int C, uint32_t seed, float* out) {
  return tfp::api::guard("tfp_seeded_token_embeddings", [&] {
    TFP_API_REQUIRE(n_tokens >= 0, "tfp_seeded_token_embeddings: n_tokens is ", n_tokens);
    TFP_API_REQUIRE(C > 0, "tfp_seeded_token_embeddings: C must be positive, got ", C);
    if (n_tokens == 0) return;
    TFP_API_REQUIRE(token_lengths && out, "tfp_seeded_token_embeddings: NULL ",
                    token_lengths ? "out" : "token_lengths");
    // Uniform on [-√3, √3] has variance 1, the scale of nn.Embedding's N(0, 1) init.
    const float bound = std::sqrt(3.0f);
    size_t offset = 0;
    for (int t = 0; t < n_tokens; ++t) {
      const int32_t len = token_lengths[t];
      TFP_API_REQUIRE(len >= 0, "tfp_seeded_token_embeddings: token ", t, " has length ", len);
      TFP_API_REQUIRE(len == 0 || token_bytes, "tfp_seeded_token_embeddings: token_bytes is NULL");
      const std::string_view text(len ? token_bytes + offset : "", static_cast<size_t>(len));
      offset += static_cast<size_t>(len);
      tfp::api::SeededStream stream(seed, "embedding");
      tfp::api::SeededStream row(stream.next_u64() ^ tfp::api::fnv1a64(text), "embedding.row");
      for (int c = 0; c < C; ++c) out[static_cast<size_t>(t) * C + c] = row.uniform(bound);
    }
  });
}
