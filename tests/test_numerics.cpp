// A forward pass never returns NaN for finite weights and inputs (issue 15), at the edges
// where naive maths breaks: every key masked, logits far beyond exp's range, a
// temperature a hair above 0, and inputs thousands of tokens long. Whole models
// (model::random_weights, seeded), checked end to end; the kernels' own edge cases are
// in test_kernels_softmax.cpp and test_attention.cpp (sdpa's fully masked rows, large
// logits). Oracle: finiteness, and where a value is known, that value (exact).
#include <doctest/doctest.h>

#include <cfloat>
#include <cmath>
#include <numeric>

#include "model/generate.h"
#include "model/sampling.h"
#include "model/transformer.h"
#include "model/weights.h"

using namespace tfp;

namespace {

model::ModelConfig tiny(model::Architecture arch, model::Positional pos = model::Positional::learned,
                        int64_t max_positions = 16) {
  model::ModelConfig c;
  c.architecture = arch;
  c.family = "test";
  c.d_model = 16;
  c.n_heads = 4;
  c.d_ff = 32;
  c.vocab_size = 29;
  c.max_positions = max_positions;
  c.positional = pos;
  c.n_encoder_layers = arch == model::Architecture::decoder_only ? 0 : 2;
  c.n_decoder_layers = arch == model::Architecture::encoder_only ? 0 : 2;
  c.norm_first = arch == model::Architecture::decoder_only;
  c.decoder_final_norm = c.norm_first;
  return c;
}

// Every value finite; the count of bad ones in the message when not.
void require_finite(const Tensor& t, const char* what) {
  int64_t bad = 0;
  for (float v : t.data) bad += std::isfinite(v) ? 0 : 1;
  INFO(what, ": ", bad, " of ", t.data.size(), " values not finite");
  REQUIRE(bad == 0);
}

std::vector<int32_t> ids_of(int64_t n, int64_t vocab) {
  std::vector<int32_t> ids(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) ids[i] = static_cast<int32_t>((i * 7 + 3) % vocab);
  return ids;
}

}  // namespace

TEST_CASE("numerics: every key masked (all padding) gives finite hidden states, logits and memory") {
  // Encoder-only: an all-padding input masks every key of every query: softmax has no
  // allowed entry. The engine's convention is a zero probability row (sum 0), not 0/0.
  model::ModelConfig enc = tiny(model::Architecture::encoder_only);
  enc.encoder_head = model::EncoderHead::masked_lm;
  const model::ModelWeights we = model::random_weights(enc, 11, 0.5f, true);
  const std::vector<int32_t> ids = ids_of(6, enc.vocab_size);
  const model::ForwardResult r = model::forward_encoder_only(enc, we, ids, {}, std::vector<uint8_t>(6, 1));
  require_finite(r.hidden, "encoder hidden");
  require_finite(r.logits, "masked-LM logits");

  // Encoder-decoder: a fully padded source leaves every cross-attention row masked.
  const model::ModelConfig ed = tiny(model::Architecture::encoder_decoder, model::Positional::sinusoidal);
  const model::ModelWeights wd = model::random_weights(ed, 12, 0.5f, true);
  const model::ForwardResult s = model::forward_encoder_decoder(ed, wd, ids, std::vector<int32_t>{1, 2, 3},
                                                                 std::vector<uint8_t>(6, 1));
  require_finite(s.logits, "seq2seq logits with an all-padding source");
}

TEST_CASE("numerics: sampling at the float range's ends and at temperatures just above 0") {
  // Logits a float can hold but exp cannot: the max subtraction happens in double, so
  // (z - max) / T is finite or -inf-free for every T > 0 and exp gives 1 for the winner.
  const std::vector<float> z = {-FLT_MAX, FLT_MAX, 0.0f, FLT_MAX / 2, -1e30f, 1e30f};
  for (const float t : {1.0f, 1e-3f, 1e-20f, FLT_MIN, 1e-45f /* the smallest denormal */}) {
    CAPTURE(t);
    for (const model::SamplingOptions opt : {model::SamplingOptions{t, 0, 1.0f}, model::SamplingOptions{t, 3, 0.5f}}) {
      const std::vector<double> p = model::warped_probabilities(z, opt);
      for (double x : p) REQUIRE(std::isfinite(x));
      // The largest logit holds all the mass: its nearest rival is FLT_MAX / 2 away.
      CHECK(p[1] == 1.0);
      CHECK(std::accumulate(p.begin(), p.end(), 0.0) == 1.0);
      model::Pcg32 rng(5);
      CHECK(model::sample_token(z, opt, rng) == 1);
    }
    const std::vector<double> q = model::token_probabilities(z, t);
    for (double x : q) REQUIRE(std::isfinite(x));
    CHECK(q[1] == 1.0);
  }
  // Two tied maxima at the top of the range share the mass equally at any temperature.
  const std::vector<float> tie = {FLT_MAX, -FLT_MAX, FLT_MAX};
  const std::vector<double> p = model::token_probabilities(tie, 1e-30f);
  CHECK(p[0] == 0.5);
  CHECK(p[1] == 0.0);
  CHECK(p[2] == 0.5);
}

TEST_CASE("numerics: a model with huge logits generates at temperature 1e-30 as greedy, probabilities finite") {
  // The tied token table scaled by 1e15: the residual stream carries ~1e15, LayerNorm's
  // variance ~1e30 (below FLT_MAX ~3.4e38), logits ~1e15 — far beyond exp's range.
  const model::ModelConfig c = tiny(model::Architecture::decoder_only, model::Positional::learned, 64);
  model::ModelWeights w = model::random_weights(c, 13, 0.5f, true);
  Tensor big(w.embed.token.shape);
  for (int64_t i = 0; i < big.numel(); ++i) big.data[i] = w.embed.token.data[i] * 1e15f;
  w.embed.token = w.own(std::move(big));
  const std::vector<int32_t> prompt = ids_of(5, c.vocab_size);
  const model::ForwardResult r = model::forward_decoder_only(c, w, prompt);
  require_finite(r.logits, "huge logits");
  float largest = 0;
  for (float v : r.logits.data) largest = std::max(largest, std::fabs(v));
  CHECK(largest > 1e12f);

  model::GenerateOptions greedy;
  greedy.max_tokens = 20;
  greedy.sampling.temperature = 0.0f;
  model::GenerateOptions cold = greedy;
  cold.sampling.temperature = 1e-30f;
  cold.seed = 99;
  const model::GenerateResult a = model::generate(c, w, prompt, greedy);
  const model::GenerateResult b = model::generate(c, w, prompt, cold);
  REQUIRE(a.tokens.size() == b.tokens.size());
  for (size_t i = 0; i < a.tokens.size(); ++i) {
    CHECK(a.tokens[i].id == b.tokens[i].id);
    CHECK(std::isfinite(b.tokens[i].prob));
    CHECK(b.tokens[i].prob >= 0.0f);
    CHECK(b.tokens[i].prob <= 1.0f);
  }
}

TEST_CASE("numerics: thousands of tokens stay finite (RoPE, ALiBi, sinusoidal) and generation stops at a full context") {
  const int64_t T = 2048;
  for (const model::Positional pos : {model::Positional::rope, model::Positional::alibi}) {
    CAPTURE(static_cast<int>(pos));
    const model::ModelConfig c = tiny(model::Architecture::decoder_only, pos, T);
    const model::ModelWeights w = model::random_weights(c, 14, 0.5f, true);
    const model::ForwardResult r = model::forward_decoder_only(c, w, ids_of(T, c.vocab_size));
    REQUIRE(r.logits.shape == Shape{T, c.vocab_size});
    require_finite(r.logits, "long decoder logits");
  }
  const model::ModelConfig e = tiny(model::Architecture::encoder_only, model::Positional::sinusoidal, T);
  const model::ModelWeights we = model::random_weights(e, 15, 0.5f, true);
  require_finite(model::forward_encoder_only(e, we, ids_of(T, e.vocab_size)).hidden, "long encoder hidden");

  // Generation past the context: it stops with context_full, every probability finite.
  const model::ModelConfig g = tiny(model::Architecture::decoder_only, model::Positional::learned, 48);
  const model::ModelWeights wg = model::random_weights(g, 16, 0.5f, true);
  model::GenerateOptions opt;
  opt.max_tokens = 1000;
  opt.seed = 3;
  const model::GenerateResult res = model::generate(g, wg, ids_of(3, g.vocab_size), opt);
  // 48 positions: the 3 prompt tokens and 45 generated ones are fed; the 46th is sampled
  // from the last position's logits and never needs a position of its own.
  CHECK(res.reason == model::StopReason::context_full);
  CHECK(res.tokens.size() == 46);
  for (const auto& t : res.tokens) CHECK(std::isfinite(t.prob));
}
