// The Learn chapter "Efficiency": sparse attention that skips what its pattern masks
// (nn/sparse_attention.h), per-channel int8 weights (nn/quantize_int8.h) and their C API
// (src/api/tfp_learn_efficiency_api.h). Oracles:
//  - the patterns' pair counts derived by hand below, and sparse_keys against the rule
//    sparse_allowed checked on every (i, j);
//  - sparse_attention against the dense path: scaled_dot_product_attention with the same
//    pattern as a -inf mask (sparse_as_dense_mask). Tolerance 1e-5 absolute on outputs of
//    size ~1 and on probabilities: both are float32 with the same operations in a
//    different order (dot products summed in 8 lanes vs the matmul kernel's order);
//  - int8: the round-trip bound |W' − W| <= scale/2 per element (scale = max|row|/127),
//    with 1e-6 relative slack for the float product q·scale.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "api/tfp_api.h"
#include "api/tfp_learn_efficiency_api.h"
#include "model/model.h"
#include "model/transformer.h"
#include "nn/attention.h"
#include "nn/quantize_int8.h"
#include "nn/sparse_attention.h"
#include "test_api_params.h"
#include "test_api_tensors.h"
#include "test_checkpoint_util.h"

using namespace tfp;
using namespace tfp::nn;

namespace {

std::string repo_path(const std::string& rel) { return std::string(TFP_FIXTURES_DIR) + "/../../" + rel; }

std::vector<float> randn(size_t n, uint32_t seed) {
  std::mt19937 g(seed);
  std::normal_distribution<float> d(0.0f, 1.0f);
  std::vector<float> x(n);
  for (float& v : x) v = d(g);
  return x;
}

SparsePattern make(SparseKind kind, int w, int d = 1, int g = 0, bool causal = false) {
  SparsePattern p;
  p.kind = kind;
  p.window = w;
  p.dilation = d;
  p.n_global = g;
  p.causal = causal;
  return p;
}

std::vector<SparsePattern> some_patterns() {
  std::vector<SparsePattern> ps;
  for (bool causal : {false, true}) {
    ps.push_back(make(SparseKind::window, 0, 1, 0, causal));
    ps.push_back(make(SparseKind::window, 3, 1, 0, causal));
    ps.push_back(make(SparseKind::window, 100, 1, 0, causal));  // wider than T: full attention
    ps.push_back(make(SparseKind::dilated, 2, 3, 0, causal));
    ps.push_back(make(SparseKind::dilated, 4, 2, 0, causal));
    ps.push_back(make(SparseKind::global, 2, 1, 2, causal));
    ps.push_back(make(SparseKind::global, 1, 1, 40, causal));  // more globals than tokens
  }
  return ps;
}

}  // namespace

TEST_CASE("sparse patterns: pair counts by hand, and the key lists follow the rule") {
  // window w = 1, T = 4: the diagonal (4) and the two neighbouring diagonals (3 each) = 10.
  CHECK(sparse_pair_count(make(SparseKind::window, 1), 4) == 10);
  // causal: the diagonal and the one below = 4 + 3 = 7.
  CHECK(sparse_pair_count(make(SparseKind::window, 1, 1, 0, true), 4) == 7);
  // dilated w = 1, d = 2, T = 5: keys i−2, i, i+2 inside 0..4: diagonal 5 + 2·3 = 11.
  CHECK(sparse_pair_count(make(SparseKind::dilated, 1, 2), 5) == 11);
  // global g = 1, w = 0, T = 5: the diagonal (5), row 0 (4 more), column 0 (4 more) = 13.
  CHECK(sparse_pair_count(make(SparseKind::global, 0, 1, 1), 5) == 13);
  for (const SparsePattern& p : some_patterns())
    for (int T : {1, 7, 23}) {
      const std::vector<uint8_t> m = sparse_pattern_matrix(p, T);
      for (int i = 0; i < T; ++i)
        for (int j = 0; j < T; ++j) {
          INFO("kind ", int(p.kind), " w ", p.window, " d ", p.dilation, " g ", p.n_global, " causal ",
               p.causal, " T ", T, " i ", i, " j ", j);
          REQUIRE(bool(m[size_t(i) * T + j]) == sparse_allowed(p, i, j));
        }
      std::vector<int> keys;
      for (int i = 0; i < T; ++i) {
        sparse_keys(p, i, T, keys);
        for (size_t a = 1; a < keys.size(); ++a) REQUIRE(keys[a - 1] < keys[a]);  // ascending, no repeats
      }
    }
}

TEST_CASE("sparse_reach: stacked windows reach l·w; every reached pair has a path of allowed pairs") {
  // window w = 2, T = 20: after l layers query i is reached from |i − j| <= 2l (a path of l
  // steps of at most 2), first at layer ceil(|i − j| / 2) (at least 1).
  const std::vector<int> r = sparse_reach(make(SparseKind::window, 2), 20, 3);
  for (int i = 0; i < 20; ++i)
    for (int j = 0; j < 20; ++j) {
      const int dist = std::abs(i - j), want = dist <= 6 ? std::max(1, (dist + 1) / 2) : 0;
      INFO("i ", i, " j ", j);
      REQUIRE(r[size_t(i) * 20 + j] == want);
    }
  // Brute force for the other patterns: reach after l layers = (allowed)^l as boolean matrices.
  for (const SparsePattern& p : some_patterns()) {
    const int T = 17, L = 3;
    const std::vector<uint8_t> a = sparse_pattern_matrix(p, T);
    std::vector<uint8_t> cur = a;
    const std::vector<int> got = sparse_reach(p, T, L);
    for (int l = 1; l <= L; ++l) {
      for (int e = 0; e < T * T; ++e) REQUIRE(bool(cur[e]) == (got[e] != 0 && got[e] <= l));
      std::vector<uint8_t> nxt(size_t(T) * T, 0);
      for (int i = 0; i < T; ++i)
        for (int k = 0; k < T; ++k)
          if (a[size_t(i) * T + k])
            for (int j = 0; j < T; ++j) nxt[size_t(i) * T + j] |= cur[size_t(k) * T + j];
      cur = nxt;
    }
  }
  double far = 0;
  std::vector<int32_t> out(64 * 64);
  REQUIRE(tfp_learn_sparse_reach(tfp::testing::params(tfp_learn_sparse_params{
                                     .kind = 0, .T = 64, .window = 4, .dilation = 1, .n_global = 0, .causal = 1}),
                                 5, out.data(), &far) == TFP_OK);
  CHECK(far == 20);  // causal window 4, 5 layers: 5 · 4
  CHECK(tfp_learn_sparse_reach(tfp::testing::params(tfp_learn_sparse_params{
                                   .kind = 0, .T = 64, .window = 4, .dilation = 1, .n_global = 0, .causal = 1}),
                               0, out.data(), &far) != TFP_OK);
}

TEST_CASE("sparse_attention equals dense attention with the pattern as a -inf mask (1e-5)") {
  const int64_t H = 2, T = 23, D = 8, Dv = 5;
  const std::vector<float> qv = randn(H * T * D, 1), kv = randn(H * T * D, 2), vv = randn(H * T * Dv, 3);
  const TensorView q(qv.data(), {H, T, D}), k(kv.data(), {H, T, D}), v(vv.data(), {H, T, Dv});
  const float scale = 1.0f / std::sqrt(float(D));
  for (const SparsePattern& p : some_patterns()) {
    INFO("kind ", int(p.kind), " w ", p.window, " d ", p.dilation, " g ", p.n_global, " causal ", p.causal);
    const AttentionResult s = sparse_attention(q, k, v, p, scale, true);
    const AttentionResult d = scaled_dot_product_attention(q, k, v, sparse_as_dense_mask(p, T), scale, true);
    for (size_t i = 0; i < d.out.data.size(); ++i) REQUIRE(std::fabs(s.out.data[i] - d.out.data[i]) <= 1e-5f);
    for (size_t i = 0; i < d.probs.data.size(); ++i) REQUIRE(std::fabs(s.probs.data[i] - d.probs.data[i]) <= 1e-5f);
  }
  // A window wider than T is full attention.
  const AttentionResult wide = sparse_attention(q, k, v, make(SparseKind::window, 100), scale);
  const AttentionResult full = scaled_dot_product_attention(q, k, v, {}, scale, false);
  for (size_t i = 0; i < full.out.data.size(); ++i) CHECK(std::fabs(wide.out.data[i] - full.out.data[i]) <= 1e-5f);
  // Bad patterns are refused by rule.
  CHECK_THROWS_WITH_AS(sparse_attention(q, k, v, make(SparseKind::dilated, 2, 0), scale),
                       doctest::Contains("dilation must be >= 1"), tfp::Error);
  CHECK_THROWS_WITH_AS(sparse_attention(q, k, v, make(SparseKind::window, -1), scale),
                       doctest::Contains("window must be >= 0"), tfp::Error);
}

TEST_CASE("int8 per-channel quantisation: round trip within scale/2, zero rows, both layouts") {
  const int64_t O = 7, I = 33;
  std::vector<float> w = randn(O * I, 4);
  for (int64_t i = 0; i < I; ++i) w[3 * I + i] = 0.0f;  // an all-zero channel: scale 0, exact
  w[5 * I + 2] = 1000.0f;                                // an outlier only hurts its own channel
  const Int8Channels q = quantize_int8_channels(w.data(), O, I, I, 1);
  CHECK(q.bytes() == O * I + 4 * O);
  std::vector<float> back(w.size());
  dequantize_int8_channels(q, back.data(), I, 1);
  for (int64_t o = 0; o < O; ++o) {
    float amax = 0;
    for (int64_t i = 0; i < I; ++i) amax = std::max(amax, std::fabs(w[o * I + i]));
    CHECK(q.scale[o] == doctest::Approx(amax / 127.0f).epsilon(1e-7));
    for (int64_t i = 0; i < I; ++i) {
      INFO("channel ", o, " input ", i);
      CHECK(std::fabs(back[o * I + i] - w[o * I + i]) <= 0.5f * q.scale[o] * (1 + 1e-6f) + 1e-30f);
      CHECK(std::abs(int(q.q[o * I + i])) <= 127);
    }
  }
  CHECK(q.scale[3] == 0.0f);
  CHECK(back[5 * I + 2] == doctest::Approx(1000.0f).epsilon(1e-6));  // the max is exactly ±127
  // The same matrix stored transposed (I, O), channels as columns: the same numbers.
  std::vector<float> wt(w.size());
  for (int64_t o = 0; o < O; ++o)
    for (int64_t i = 0; i < I; ++i) wt[i * O + o] = w[o * I + i];
  const Int8Channels qt = quantize_int8_channels(wt.data(), O, I, 1, O);
  CHECK(qt.q == q.q);
  CHECK(qt.scale == q.scale);
  std::vector<float> nan_w = {1.0f, NAN};
  CHECK_THROWS_WITH_AS(quantize_int8_channels(nan_w.data(), 1, 2, 2, 1), doctest::Contains("weight [0, 1]"),
                       tfp::Error);
  std::vector<float> inf_w = {1.0f, 2.0f, -INFINITY};
  CHECK_THROWS_WITH_AS(quantize_int8_channels(inf_w.data(), 1, 3, 3, 1), doctest::Contains("weight [0, 2] is -inf"),
                       tfp::Error);
}

TEST_CASE("int8 per-channel quantisation rounds half away from zero, as std::round of w / scale") {
  // scale = 127 / 127 = 1: w / scale is w itself; halves, the float just below a half, signs
  std::vector<float> w = {127.0f, 0.5f, -0.5f, 1.5f, -2.5f, std::nextafter(0.5f, 0.0f), -std::nextafter(0.5f, 0.0f),
                          126.5f, -126.5f, 0.0f, -0.0f, 3.49999976f};
  std::vector<float> r = randn(4096, 9);  // and many ordinary values at another scale
  for (float& x : r) x *= 3.0f;
  for (const std::vector<float>* v : {&w, &r}) {
    const int64_t I = static_cast<int64_t>(v->size());
    const Int8Channels q = quantize_int8_channels(v->data(), 1, I, I, 1);
    for (int64_t i = 0; i < I; ++i) {
      INFO("input ", i, " = ", (*v)[static_cast<size_t>(i)]);
      const float want = std::clamp(std::round((*v)[static_cast<size_t>(i)] / q.scale[0]), -127.0f, 127.0f);
      CHECK(int(q.q[static_cast<size_t>(i)]) == int(want));
    }
  }
}

TEST_CASE("learn efficiency C API: pattern, timing columns, int8 brown-gpt") {
  std::vector<uint8_t> m(16);
  double pairs = 0;
  REQUIRE(tfp_learn_sparse_pattern(tfp::testing::params(tfp_learn_sparse_params{
                                       .kind = 0, .T = 4, .window = 1, .dilation = 1, .n_global = 0, .causal = 0}),
                                   m.data(), &pairs) == TFP_OK);
  CHECK(pairs == 10);  // as derived above
  CHECK(m == std::vector<uint8_t>{1, 1, 0, 0, 1, 1, 1, 0, 0, 1, 1, 1, 0, 0, 1, 1});
  CHECK(tfp_learn_sparse_pattern(tfp::testing::params(tfp_learn_sparse_params{
                                     .kind = 3, .T = 4, .window = 1, .dilation = 1, .n_global = 0, .causal = 0}),
                                 m.data(), &pairs) != TFP_OK);
  CHECK(std::string(tfp_last_error()).find("kind must be 0") != std::string::npos);

  const int32_t lengths[] = {16, 64};
  double out[2 * TFP_EFF_COLUMNS];
  tfp_learn_efficiency_params p;
  tfp_learn_efficiency_params_init(&p);
  p.d = 32;
  p.heads = 4;
  p.lengths = lengths;
  p.n_lengths = 2;
  p.kind = 0;
  p.window = 4;
  p.dilation = 1;
  p.n_global = 0;
  p.repeats = 1;
  p.seed = 7;
  REQUIRE(tfp_learn_efficiency_timing(&p, out) == TFP_OK);
  for (int r = 0; r < 2; ++r) {
    const double* row = out + r * TFP_EFF_COLUMNS;
    const double T = lengths[r];
    CHECK(row[TFP_EFF_FULL_MS] > 0);
    CHECK(row[TFP_EFF_SPARSE_MS] > 0);
    CHECK(row[TFP_EFF_SCORE_BYTES] == 4 * T * T * 4);  // H·T²·4
    // window 4: 9 keys per query minus the 2·(1+2+3+4) = 20 cut off at the two ends.
    CHECK(row[TFP_EFF_SPARSE_PAIRS] == 9 * T - 20);
    CHECK(row[TFP_EFF_LINEAR_BYTES] == 4 * (8 * 8 + 8) * 4);  // H·(D² + D)·4, D = 8
    CHECK(row[TFP_EFF_SPARSE_DIFF] <= 1e-5);
    CHECK(row[TFP_EFF_LINEAR_REL_ERR] > 0.01);  // a different function, not a rounding
    CHECK(row[TFP_EFF_LINEAR_REL_ERR] < 2);
  }
  p.d = 30;
  CHECK(tfp_learn_efficiency_timing(&p, out) != TFP_OK);
  CHECK(std::string(tfp_last_error()).find("do not divide") != std::string::npos);

  tfp_model* model = tfp::testing::open_through_api(repo_path("models/brown-gpt"), "brown-gpt");
  std::vector<int32_t> ids;
  for (int i = 0; i < 40; ++i) ids.push_back((i * 37 + 11) % 2048);
  double r[8];
  REQUIRE(tfp_learn_int8_model(model, ids.data(), int(ids.size()), r) == TFP_OK);
  CHECK(r[0] > 0);         // int8 changes the logits ...
  CHECK(r[0] < 1.0);       // ... a little
  CHECK(r[1] > 1);
  CHECK(std::fabs(std::log(r[2] / r[1])) < 0.1);  // perplexity within 10 %
  CHECK(r[6] > r[5]);      // biases and norms stay float32
  CHECK(r[4] < 0.3 * r[3]);
  // int8 bytes = 1 per quantised weight + 4 per float32 weight + 4 per channel scale
  // (a few % of the total: one scale per 128-wide row).
  CHECK(r[4] > r[5] + 4 * (r[6] - r[5]));
  CHECK(r[4] < 1.05 * (r[5] + 4 * (r[6] - r[5])));
  // The float32 perplexity by hand: exp(mean over t of logsumexp(z_t) − z_t[ids[t+1]]), in
  // double from the engine's logits (tolerance 1e-9 relative on the mean loss: the engine
  // sums in double too, in the same order per row, but through a different function).
  {
    const model::LoadedModel lm = model::load_model_dir(repo_path("models/brown-gpt"));
    const model::ForwardResult f = model::forward_decoder_only(lm.config(), lm.weights(), ids);
    const int64_t V = f.logits.dim(1);
    double nll = 0;
    for (size_t t = 0; t + 1 < ids.size(); ++t) {
      const float* z = f.logits.row(int64_t(t));
      double m = z[0], s = 0;
      for (int64_t v = 1; v < V; ++v) m = std::max(m, double(z[v]));
      for (int64_t v = 0; v < V; ++v) s += std::exp(double(z[v]) - m);
      nll += std::log(s) + m - z[ids[t + 1]];
    }
    CHECK(std::log(r[1]) == doctest::Approx(nll / double(ids.size() - 1)).epsilon(1e-9));
  }
  CHECK(tfp_learn_int8_model(model, ids.data(), 1, r) != TFP_OK);
  tfp_model_free(model);
}

TEST_CASE("learn linear attention C API: the running state, the weights and softmax's, by hand in double; refusals") {
  const int T = 5, D = 3, Dv = 2;
  std::mt19937 rng(11);
  std::normal_distribution<float> normal;
  std::vector<float> q(T * D), k(T * D), v(T * Dv);
  for (auto* m : {&q, &k, &v})
    for (float& x : *m) x = normal(rng);
  const auto phi = [](double x) { return x > 0 ? x + 1 : std::exp(x); };
  for (const int causal : {0, 1}) {
    CAPTURE(causal);
    testing::Tensors o;
    REQUIRE(tfp_learn_linear_attention(q.data(), k.data(), v.data(), T, D, Dv, causal, &o.list) == TFP_OK);
    const auto S = o.data("state"), z = o.data("norm"), out = o.data("out"), w = o.data("weights");
    const auto so = o.data("softmax_out"), sw = o.data("softmax_weights");
    CHECK(o.dims("state") == std::vector<int>{T, D, Dv});
    for (int i = 0; i < T; ++i) {
      const int last = causal ? i : T - 1;  // the last key query i reads
      // The running state by hand: Σ_{j <= last} φ(k_j) v_jᵀ and Σ φ(k_j).
      for (int d = 0; d < D; ++d) {
        double zd = 0;
        for (int j = 0; j <= i; ++j) zd += phi(k[j * D + d]);
        CHECK(std::abs(z[i * D + d] - zd) < 1e-5 * (1 + zd));
        for (int c = 0; c < Dv; ++c) {
          double s = 0;
          for (int j = 0; j <= i; ++j) s += phi(k[j * D + d]) * v[j * Dv + c];
          CHECK(std::abs(S[(i * D + d) * Dv + c] - s) < 1e-5 * (1 + std::abs(s)));
        }
      }
      // Weights φ(q_i)·φ(k_j) / Σ, and the output both ways: weights · v and φ(q_i)ᵀS / φ(q_i)ᵀz.
      std::vector<double> wi(T, 0.0), si(T, 0.0);
      double sum = 0, ssum = 0, mx = -1e30;
      for (int j = 0; j <= last; ++j) {
        for (int d = 0; d < D; ++d) wi[j] += phi(q[i * D + d]) * phi(k[j * D + d]);
        double dot = 0;
        for (int d = 0; d < D; ++d) dot += static_cast<double>(q[i * D + d]) * k[j * D + d];
        si[j] = dot / std::sqrt(static_cast<double>(D));
        mx = std::max(mx, si[j]);
        sum += wi[j];
      }
      for (int j = 0; j <= last; ++j) ssum += (si[j] = std::exp(si[j] - mx));
      for (int j = 0; j < T; ++j) {
        CHECK(std::abs(w[i * T + j] - (j <= last ? wi[j] / sum : 0.0)) < 1e-5);
        CHECK(std::abs(sw[i * T + j] - (j <= last ? si[j] / ssum : 0.0)) < 1e-5);
      }
      for (int c = 0; c < Dv; ++c) {
        double lin = 0, soft = 0, num = 0, den = 0;
        for (int j = 0; j <= last; ++j) {
          lin += wi[j] / sum * v[j * Dv + c];
          soft += si[j] / ssum * v[j * Dv + c];
        }
        for (int d = 0; d < D; ++d) {
          num += phi(q[i * D + d]) * S[(last * D + d) * Dv + c];
          den += phi(q[i * D + d]) * z[last * D + d];
        }
        CHECK(std::abs(out[i * Dv + c] - lin) < 1e-5);
        CHECK(std::abs(out[i * Dv + c] - num / den) < 1e-5);
        CHECK(std::abs(o.data("numerator")[i * Dv + c] - num) < 1e-5 * (1 + std::abs(num)));
        if (c == 0) CHECK(std::abs(o.data("denominator")[i] - den) < 1e-5 * (1 + den));
        CHECK(std::abs(so[i * Dv + c] - soft) < 1e-5);
      }
    }
  }
  tfp_tensors* none = nullptr;
  CHECK(tfp_learn_linear_attention(q.data(), k.data(), v.data(), 0, D, Dv, 0, &none) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(none == nullptr);
  CHECK(std::string(tfp_last_error()).find("T 1..32") != std::string::npos);
  std::vector<float> bad = k;
  bad[1 * D + 0] = std::nanf("");
  CHECK(tfp_learn_linear_attention(q.data(), bad.data(), v.data(), T, D, Dv, 1, &none) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(tfp_last_error()).find("k has nan at row 2, column 1") != std::string::npos);
  CHECK(tfp_learn_linear_attention(q.data(), k.data(), nullptr, T, D, Dv, 1, &none) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(tfp_last_error()).find("v is NULL") != std::string::npos);
}
