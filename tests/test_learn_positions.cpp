// The Learn chapter "Positional encoding" (tfp_learn_positions_api.h) and the two additions
// to nn/positional_sinusoidal.h it needs (the halves layout, the shift rotation).
// Oracles:
//  - the closed form sin/cos written out here (halves: sines first, then cosines);
//  - trigonometry by hand: PE(p)·PE(q) = Σ_i cos((p − q) ω_i) (sin a sin b + cos a cos b =
//    cos(a − b)), the same in both layouts and a function of |p − q| only; the rotation
//    M(kω) (sin pω, cos pω) = (sin (p+k)ω, cos (p+k)ω);
//  - brown-gpt's wpe table read here through model::load_model_dir, cosines written here;
//  - relative buckets: the clip rule by hand, T5 through nn::t5_relative_bucket;
//  - RoPE: a 2-channel rotation by hand, and the offset invariance of the score;
//  - ALiBi slopes by hand for H = 8 and H = 6 (Press et al.'s rule for non-powers of two).
// Tolerances: 1e-6 for float tables against double formulas of size <= 1; 1e-4 for sums
// of up to 64 float products.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "api/tfp_learn_positions_api.h"
#include "model/model.h"
#include "nn/positional.h"
#include "test_api_params.h"
#include "test_checkpoint_util.h"

using namespace tfp;

namespace {
const std::string kGptDir = std::string(TFP_FIXTURES_DIR) + "/../../models/brown-gpt";
}

TEST_CASE("positional/sinusoidal: halves layout = the interleaved numbers, channels regrouped") {
  const int64_t T = 7, C = 10;
  const Tensor inter = nn::sinusoidal_encoding(T, C, 0, 10000.0, nn::SinusoidalLayout::Interleaved);
  const Tensor halves = nn::sinusoidal_encoding(T, C, 0, 10000.0, nn::SinusoidalLayout::Halves);
  CHECK(inter.data == nn::sinusoidal_encoding(T, C).data);
  for (int64_t t = 0; t < T; ++t)
    for (int64_t i = 0; i < C / 2; ++i) {
      const double w = std::pow(10000.0, -2.0 * i / C);
      CHECK(std::fabs(halves.data[t * C + i] - std::sin(t * w)) < 1e-6);          // sines first
      CHECK(std::fabs(halves.data[t * C + C / 2 + i] - std::cos(t * w)) < 1e-6);  // then cosines
      CHECK(halves.data[t * C + i] == inter.data[t * C + 2 * i]);
      CHECK(halves.data[t * C + C / 2 + i] == inter.data[t * C + 2 * i + 1]);
    }
  CHECK_THROWS_AS(nn::sinusoidal_encoding(3, 5, 0, 10000.0, nn::SinusoidalLayout::Halves), Error);
  // ω_i and the shift matrix: C = 2, pair 0 has ω = 1; k = 1 gives angle 1 rad.
  CHECK(nn::sinusoidal_frequency(2, 0) == 1.0);
  CHECK(nn::sinusoidal_frequency(8, 2) == doctest::Approx(std::pow(10000.0, -0.5)));
  const auto m = nn::sinusoidal_shift_matrix(2, 0, 1);
  CHECK(m[0] == doctest::Approx(std::cos(1.0)));
  CHECK(m[1] == doctest::Approx(std::sin(1.0)));
  CHECK(m[2] == doctest::Approx(-std::sin(1.0)));
  CHECK(m[3] == doctest::Approx(std::cos(1.0)));
  CHECK_THROWS_AS(nn::sinusoidal_frequency(4, 2), Error);
}

TEST_CASE("positional/sinusoidal: tensor2tensor's timing signal has its own frequencies, not the paper's rearranged") {
  // C = 4: n = 2 pairs, ω = 10000^(-i/(n-1)) = (1, 1/10000) exactly; the paper's are (1, 1/100).
  const Tensor t4 = nn::sinusoidal_encoding(3, 4, 0, 10000.0, nn::SinusoidalLayout::Tensor2Tensor);
  CHECK(t4.data[4 + 0] == doctest::Approx(std::sin(1.0)));
  CHECK(t4.data[4 + 1] == doctest::Approx(std::sin(1e-4)).epsilon(1e-6));
  CHECK(t4.data[4 + 2] == doctest::Approx(std::cos(1.0)));
  CHECK(t4.data[4 + 3] == doctest::Approx(std::cos(1e-4)));
  CHECK(nn::timing_signal_frequency(4, 1) == doctest::Approx(1e-4).epsilon(1e-12));
  CHECK(nn::sinusoidal_frequency(4, 1) == doctest::Approx(1e-2).epsilon(1e-12));
  // Any even C: the log-spaced increment of get_timing_signal_1d, sines then cosines.
  const int64_t T = 9, C = 16, n = C / 2;
  const Tensor t2t = nn::sinusoidal_encoding(T, C, 2, 10000.0, nn::SinusoidalLayout::Tensor2Tensor);
  const Tensor halves = nn::sinusoidal_encoding(T, C, 2, 10000.0, nn::SinusoidalLayout::Halves);
  const double inc = std::log(10000.0) / static_cast<double>(n - 1);
  int differ = 0;
  for (int64_t t = 0; t < T; ++t)
    for (int64_t i = 0; i < n; ++i) {
      const double w = std::exp(-static_cast<double>(i) * inc), pos = static_cast<double>(t + 2);
      CHECK(std::fabs(t2t.data[t * C + i] - std::sin(pos * w)) < 1e-6);
      CHECK(std::fabs(t2t.data[t * C + n + i] - std::cos(pos * w)) < 1e-6);
      differ += std::fabs(t2t.data[t * C + i] - halves.data[t * C + i]) > 1e-4;
    }
  CHECK(differ > 0);  // only pair 0 (ω = 1 in both) agrees everywhere
  CHECK(t2t.data[C + 0] == halves.data[C + 0]);
  CHECK(t2t.data[C + n] == halves.data[C + n]);
  // Odd C: tensor2tensor pads one zero channel.
  const Tensor odd = nn::sinusoidal_encoding(2, 5, 1, 10000.0, nn::SinusoidalLayout::Tensor2Tensor);
  CHECK(odd.data[4] == 0.0f);
  CHECK(odd.data[5 + 4] == 0.0f);
  CHECK(odd.data[5 + 0] == doctest::Approx(std::sin(2.0)));
  CHECK_THROWS_AS(nn::timing_signal_frequency(4, 2), Error);
}

TEST_CASE("learn positions: the frequencies of each layout and the tensor2tensor table through the C API") {
  const int C = 8;
  std::vector<double> paper(C / 2), t2t(C / 2), halves(C / 2);
  REQUIRE(tfp_learn_sinusoidal_frequencies(C, 0, paper.data()) == TFP_OK);
  REQUIRE(tfp_learn_sinusoidal_frequencies(C, 1, halves.data()) == TFP_OK);
  REQUIRE(tfp_learn_sinusoidal_frequencies(C, 2, t2t.data()) == TFP_OK);
  for (int i = 0; i < C / 2; ++i) {
    CHECK(paper[i] == doctest::Approx(std::pow(10000.0, -2.0 * i / C)));
    CHECK(halves[i] == paper[i]);
    CHECK(t2t[i] == doctest::Approx(std::pow(10000.0, -static_cast<double>(i) / (C / 2 - 1))));
  }
  CHECK(t2t[C / 2 - 1] == doctest::Approx(1e-4));
  std::vector<float> tab(5 * C);
  REQUIRE(tfp_learn_sinusoidal_table(5, C, 2, tab.data(), nullptr) == TFP_OK);
  const Tensor ref = nn::sinusoidal_encoding(5, C, 0, 10000.0, nn::SinusoidalLayout::Tensor2Tensor);
  CHECK(tab == ref.data);
  CHECK(tfp_learn_sinusoidal_table(5, 7, 2, tab.data(), nullptr) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(tfp_learn_sinusoidal_table(5, C, 3, tab.data(), nullptr) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(tfp_learn_sinusoidal_frequencies(7, 0, paper.data()) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(tfp_learn_sinusoidal_frequencies(C, -1, paper.data()) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(tfp_learn_sinusoidal_frequencies(C, 0, nullptr) == TFP_ERR_INVALID_ARGUMENT);
}

TEST_CASE("learn positions: sinusoidal table, dot products by distance, PE(p+k) as a rotation") {
  const int T = 12, C = 8;
  std::vector<float> a(T * C), b(T * C), da(T * T), db(T * T);
  REQUIRE(tfp_learn_sinusoidal_table(T, C, 0, a.data(), da.data()) == TFP_OK);
  REQUIRE(tfp_learn_sinusoidal_table(T, C, 1, b.data(), db.data()) == TFP_OK);
  CHECK(a != b);  // the same numbers, other channels
  for (int p = 0; p < T; ++p)
    for (int q = 0; q < T; ++q) {
      double want = 0;
      for (int i = 0; i < C / 2; ++i) want += std::cos((p - q) * std::pow(10000.0, -2.0 * i / C));
      CHECK(std::fabs(da[p * T + q] - want) < 1e-5);
      CHECK(std::fabs(db[p * T + q] - want) < 1e-5);
    }
  CHECK(da[0] == doctest::Approx(C / 2).epsilon(1e-6));  // |PE(p)|² = C/2
  // Rotation: pair 1 (ω = 10000^(-2/8) = 0.1), p = 3, k = 5.
  double out[TFP_LEARN_SIN_SHIFT_VALUES];
  REQUIRE(tfp_learn_sinusoidal_shift(C, 1, 3, 5, out) == TFP_OK);
  CHECK(out[0] == doctest::Approx(0.1));
  CHECK(out[1] == doctest::Approx(0.5));
  CHECK(out[6] == doctest::Approx(a[3 * C + 2]));
  CHECK(out[7] == doctest::Approx(a[3 * C + 3]));
  CHECK(std::fabs(out[8] - a[8 * C + 2]) < 1e-6);  // M·PE(3) = PE(8)
  CHECK(std::fabs(out[9] - a[8 * C + 3]) < 1e-6);
  // Errors.
  CHECK(tfp_learn_sinusoidal_table(T, 7, 1, a.data(), nullptr) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(tfp_last_error()).find("even C") != std::string::npos);
  CHECK(tfp_learn_sinusoidal_table(0, C, 0, a.data(), nullptr) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(tfp_learn_sinusoidal_shift(C, 4, 0, 1, out) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(tfp_learn_sinusoidal_shift(C, 0, -1, 1, out) == TFP_ERR_INVALID_ARGUMENT);
}

TEST_CASE("learn positions: brown-gpt's learned position table as cosine similarities") {
  const model::LoadedModel lm = model::load_model_dir(kGptDir);
  const TensorView wpe = lm.weights().embed.position;  // (128, 128)
  REQUIRE(wpe.rank() == 2);
  const int64_t C = wpe.shape[1];
  tfp_model* m = testing::open_through_api(kGptDir, "brown-gpt");
  REQUIRE(m != nullptr);
  const int P = 16;
  std::vector<float> cs(P * P), rows(P * C);
  REQUIRE(tfp_learn_position_similarity(m, P, cs.data(), rows.data()) == TFP_OK);
  for (int p = 0; p < P; ++p)
    for (int q = 0; q < P; ++q) {
      double ab = 0, aa = 0, bb = 0;
      for (int64_t c = 0; c < C; ++c) {
        const double x = wpe.data[p * C + c], y = wpe.data[q * C + c];
        ab += x * y, aa += x * x, bb += y * y;
      }
      CHECK(std::fabs(cs[p * P + q] - ab / std::sqrt(aa * bb)) < 1e-6);
    }
  CHECK(rows[5 * C + 3] == wpe.data[5 * C + 3]);
  CHECK(tfp_learn_position_similarity(m, 129, cs.data(), nullptr) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(tfp_learn_position_similarity(m, 0, cs.data(), nullptr) == TFP_ERR_INVALID_ARGUMENT);
  tfp_model_free(m);
}

TEST_CASE("learn positions: relative bias, clip buckets by hand and T5 buckets") {
  // Clip, k = 2, bidirectional: bucket = clamp(j - i, -2, 2) + 2, 5 buckets.
  const int T = 6;
  std::vector<float> table(5), buckets(T * T), bias(T * T);
  REQUIRE(tfp_learn_relative_bias(tfp::testing::params(tfp_learn_relative_bias_params{
                                      .bidirectional = 1, .num_buckets = 5, .max_distance = 2, .T = T, .seed = 3}),
                                  table.data(), buckets.data(), bias.data()) == TFP_OK);
  for (int i = 0; i < T; ++i)
    for (int j = 0; j < T; ++j) {
      const int want = std::min(2, std::max(-2, j - i)) + 2;
      CHECK(buckets[i * T + j] == want);
      CHECK(bias[i * T + j] == table[want]);  // the bias is the table's entry, nothing else
    }
  for (float v : table) CHECK((v >= -1.0f && v < 1.0f));
  // T5, 8 buckets, max distance 16, causal: nn::t5_relative_bucket.
  std::vector<float> t5(8);
  REQUIRE(tfp_learn_relative_bias(tfp::testing::params(tfp_learn_relative_bias_params{
                                      .bucketing = 1, .num_buckets = 8, .max_distance = 16, .T = T, .seed = 3}),
                                  t5.data(), buckets.data(), bias.data()) == TFP_OK);
  for (int i = 0; i < T; ++i)
    for (int j = 0; j < T; ++j) {
      const int want = nn::t5_relative_bucket(j - i, false, 8, 16);
      CHECK(buckets[i * T + j] == want);
      CHECK(bias[i * T + j] == t5[want]);
    }
  CHECK(tfp_learn_relative_bias(tfp::testing::params(tfp_learn_relative_bias_params{
                                    .bidirectional = 1, .num_buckets = 4, .max_distance = 2, .T = T, .seed = 3}),
                                table.data(), buckets.data(), bias.data()) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(tfp_last_error()).find("5 buckets") != std::string::npos);
}

TEST_CASE("learn positions: RoPE score depends only on the offset") {
  // D = 2, ω = 1: q = (1, 0) at m = 1 turns to (cos 1, sin 1); k = (1, 0) at n = 0 stays.
  const float q2[2] = {1, 0}, k2[2] = {1, 0};
  float o2[6];
  REQUIRE(tfp_learn_rope_score(q2, k2, 2, 0, 1, 0, o2) == TFP_OK);
  CHECK(o2[0] == doctest::Approx(std::cos(1.0)));
  CHECK(o2[1] == doctest::Approx(std::sin(1.0)));
  CHECK(o2[2] == 1.0f);
  CHECK(o2[3] == 0.0f);
  CHECK(o2[4] == 1.0f);                               // q·k before
  CHECK(o2[5] == doctest::Approx(std::cos(1.0)));     // cos(m − n)
  const int D = 8;
  const float q[D] = {0.5f, -1.0f, 0.3f, 0.8f, -0.2f, 1.1f, 0.7f, -0.4f};
  const float k[D] = {0.9f, 0.1f, -0.6f, 0.4f, 1.0f, -0.3f, 0.2f, 0.5f};
  for (int pairing = 0; pairing < 2; ++pairing) {
    float a[2 * D + 2], b[2 * D + 2], c[2 * D + 2];
    REQUIRE(tfp_learn_rope_score(q, k, D, pairing, 5, 3, a) == TFP_OK);
    REQUIRE(tfp_learn_rope_score(q, k, D, pairing, 12, 10, b) == TFP_OK);
    REQUIRE(tfp_learn_rope_score(q, k, D, pairing, 3, 5, c) == TFP_OK);
    CHECK(std::fabs(a[2 * D + 1] - b[2 * D + 1]) < 1e-4);  // same offset 2
    CHECK(std::fabs(a[2 * D + 1] - c[2 * D + 1]) > 1e-3);  // offset −2: another score
    CHECK(a[2 * D] == b[2 * D]);
  }
  CHECK(tfp_learn_rope_score(q, k, 7, 0, 0, 0, nullptr) == TFP_ERR_INVALID_ARGUMENT);
  float o[2 * D + 2];
  CHECK(tfp_learn_rope_score(q, k, 7, 0, 0, 0, o) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(tfp_learn_rope_score(q, k, D, 2, 0, 0, o) == TFP_ERR_INVALID_ARGUMENT);
}

TEST_CASE("learn positions: ALiBi slopes for 8 and 6 heads, biases") {
  std::vector<float> s(8), b(8 * 4 * 4);
  REQUIRE(tfp_learn_alibi(8, 4, 0, s.data(), b.data()) == TFP_OK);
  for (int h = 0; h < 8; ++h) CHECK(s[h] == doctest::Approx(std::pow(2.0, -(h + 1))));  // 1/2 .. 1/256
  for (int h = 0; h < 8; ++h)
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) CHECK(b[(h * 4 + i) * 4 + j] == doctest::Approx(-s[h] * (i - j)));
  // 6 heads: the 4 slopes of 4 heads (2^-2, 2^-4, 2^-6, 2^-8), then slopes(8)[0], [2] = 2^-1, 2^-3.
  std::vector<float> s6(6), b6(6);
  REQUIRE(tfp_learn_alibi(6, 1, 1, s6.data(), b6.data()) == TFP_OK);
  const double want[6] = {0.25, 0.0625, 0.015625, 0.00390625, 0.5, 0.125};
  for (int h = 0; h < 6; ++h) CHECK(s6[h] == doctest::Approx(want[h]));
  CHECK(tfp_learn_alibi(0, 4, 0, s.data(), b.data()) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(tfp_learn_alibi(4, 4, 2, s.data(), b.data()) == TFP_ERR_INVALID_ARGUMENT);
}
