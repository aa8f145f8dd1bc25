// Positional encodings that act on embeddings: sinusoidal (oracle: the closed form in
// double, tolerance 1e-6 — float rounding of values in [-1, 1]) and learned absolute
// positions (oracle: exact row additions). ALiBi slopes and biases: hand values, and the
// ALiBi paper's rule evaluated by tests/fixtures/gen_attention.py (tolerance 1e-7 relative).
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "nn/positional.h"
#include "test_attention_ref.h"

using namespace tfp;
using namespace tfp::nn;

TEST_CASE("positional/sinusoidal: closed form, hand values, odd C, offset") {
  // Hand values: position 0 is (sin 0, cos 0, ...) = (0, 1, 0, 1); with C = 4 the second
  // pair turns at 1/10000^(2/4) = 1/100, so PE[3] = (sin 3, cos 3, sin 0.03, cos 0.03).
  Tensor pe = sinusoidal_encoding(4, 4);
  CHECK(pe.row(0)[0] == 0.0f);
  CHECK(pe.row(0)[1] == 1.0f);
  CHECK(pe.row(0)[2] == 0.0f);
  CHECK(pe.row(0)[3] == 1.0f);
  CHECK(pe.row(3)[0] == doctest::Approx(std::sin(3.0)).epsilon(1e-6));
  CHECK(pe.row(3)[1] == doctest::Approx(std::cos(3.0)).epsilon(1e-6));
  CHECK(pe.row(3)[2] == doctest::Approx(std::sin(0.03)).epsilon(1e-6));
  CHECK(pe.row(3)[3] == doctest::Approx(std::cos(0.03)).epsilon(1e-6));

  for (int64_t C : {1, 5, 16, 33}) {
    CAPTURE(C);
    const int64_t T = 50, pos0 = 2000;
    Tensor t = sinusoidal_encoding(T, C, pos0);
    REQUIRE(t.shape == Shape{T, C});
    double worst = 0;
    for (int64_t p = 0; p < T; ++p)
      for (int64_t i = 0; 2 * i < C; ++i) {
        const double angle = static_cast<double>(pos0 + p) / std::pow(10000.0, 2.0 * i / C);
        worst = std::max(worst, std::fabs(t.row(p)[2 * i] - std::sin(angle)));
        if (2 * i + 1 < C) worst = std::max(worst, std::fabs(t.row(p)[2 * i + 1] - std::cos(angle)));
      }
    CHECK(worst < 1e-6);
  }
  // An offset table is the tail of the full one (a KV cache continues the positions).
  Tensor full = sinusoidal_encoding(10, 6), tail = sinusoidal_encoding(4, 6, 6);
  for (int i = 0; i < 24; ++i) CHECK(tail.data[i] == full.data[36 + i]);

  Tensor x({3, 6}, 1.0f);
  add_sinusoidal_encoding(x, 2);
  for (int i = 0; i < 18; ++i) CHECK(x.data[i] == 1.0f + full.data[12 + i]);
  CHECK_THROWS_AS(sinusoidal_encoding(3, 0), Error);
}

TEST_CASE("positional/learned: adds table rows at an offset; too long is an error") {
  Tensor table({4, 2}, {0, 1, 10, 11, 20, 21, 30, 31});
  Tensor x({2, 2}, {0.5f, 0.5f, 0.25f, 0.25f});
  add_learned_positions(x, table, 1);  // rows 1 and 2
  CHECK(x.data == std::vector<float>{10.5f, 11.5f, 20.25f, 21.25f});
  Tensor y({3, 2});
  CHECK_THROWS_WITH_AS(add_learned_positions(y, table, 2),
                       "add_learned_positions: positions 2..4 do not fit the table of 4 positions [4, 2] "
                       "(input longer than the context)",
                       Error);
  Tensor z({2, 3});
  CHECK_THROWS_WITH_AS(add_learned_positions(z, table),
                       "add_learned_positions: table [4, 2] does not match the width of x [2, 3]", Error);
}

TEST_CASE("positional/alibi: slopes for powers of two and the interpolation") {
  // H = 8: 2^(-8(h+1)/8) = 2^-(h+1): 1/2, 1/4, ..., 1/256.
  auto s8 = alibi_slopes(8);
  REQUIRE(s8.size() == 8);
  for (int h = 0; h < 8; ++h) CHECK(s8[h] == std::ldexp(1.0f, -(h + 1)));
  // H = 6: the 4-head slopes 2^-2, 2^-4, 2^-6, 2^-8, then slopes(8)[0], [2] = 2^-1, 2^-3.
  CHECK(alibi_slopes(6) == std::vector<float>{0.25f, 0.0625f, 0.015625f, 0.00390625f, 0.5f, 0.125f});
  CHECK(alibi_slopes(1) == std::vector<float>{0.00390625f});  // 2^-8

  std::ifstream f(std::string(TFP_FIXTURES_DIR) + "/attention/positional.json");
  REQUIRE(f.good());
  const auto doc = nlohmann::json::parse(f, nullptr, false);
  REQUIRE(!doc.is_discarded());
  for (int H = 1; H <= 16; ++H) {
    CAPTURE(H);
    const auto expect = doc["alibi_slopes"][std::to_string(H)].get<std::vector<double>>();
    const auto got = alibi_slopes(H);
    REQUIRE(got.size() == expect.size());
    for (int h = 0; h < H; ++h) CHECK(got[h] == doctest::Approx(expect[h]).epsilon(1e-7));
  }
  CHECK_THROWS_AS(alibi_slopes(0), Error);
}

TEST_CASE("positional/alibi: bias -slope*(i-j), KV offset, inside attention") {
  // H = 2: slopes 2^-4, 2^-8. Query 2 on key 0: -(1/16)·2 = -0.125 for head 0.
  Tensor b = alibi_bias(2, 3, 3, 0, 0);
  CHECK(b.data[2 * 3 + 0] == -0.125f);
  CHECK(b.data[2 * 3 + 2] == 0.0f);
  CHECK(b.data[9 + 2 * 3 + 1] == -0.00390625f);  // head 1, i=2, j=1
  // One new query at position 4 over 5 cached keys: distances 4, 3, 2, 1, 0.
  Tensor g = alibi_bias(1, 1, 5, 4, 0);
  for (int j = 0; j < 5; ++j) CHECK(g.data[j] == -0.00390625f * static_cast<float>(4 - j));
  Tensor sym = alibi_bias(1, 2, 2, 0, 0, true);
  CHECK(sym.data[1] == -0.00390625f);  // |0 - 1| = 1, not +1 for the future key

  // The hook inside SDPA equals passing the same biases as an additive mask.
  testref::Rng rng(21);
  const int H = 3, T = 6, D = 4;
  Tensor q = rng.tensor({H, T, D}), k = rng.tensor({H, T, D}), v = rng.tensor({H, T, D});
  AttentionMask causal;
  causal.causal = true;
  AttentionHooks hooks;
  hooks.score_bias = alibi_score_bias(H);
  AttentionResult a = scaled_dot_product_attention(q, k, v, causal, 0.5f, true, hooks);
  AttentionMask with_bias = causal;
  with_bias.additive = alibi_bias(H, T, T, 0, 0);
  AttentionResult r = scaled_dot_product_attention(q, k, v, with_bias, 0.5f, true);
  CHECK(a.probs.data == r.probs.data);
  CHECK(a.out.data == r.out.data);
  AttentionHooks wrong;
  wrong.score_bias = alibi_score_bias(2);  // built for 2 heads, used with 3
  CHECK_THROWS_AS(scaled_dot_product_attention(q, k, v, causal, 0.5f, false, wrong), Error);
}
