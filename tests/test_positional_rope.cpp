// RoPE. Oracles: (1) hand rotation for D = 2; (2) tests/fixtures/attention/positional.json,
// RoPE computed in float64 by torch two independent ways (complex multiplication for
// interleaved pairs, rotate_half for half-split), tolerance 1e-5 at positions up to 4092
// (cos/sin rounded to float); (3) the relative property: q·k after rotating q to m and
// k to n depends only on m − n (tolerance 1e-4 on dots of size ~D); (4) RoPE inside
// attention equals attention on q, k rotated beforehand (exact: same operations).
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "nn/positional_rope.h"
#include "test_attention_ref.h"

using namespace tfp;
using namespace tfp::nn;

namespace {
double dot(const float* a, const float* b, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += static_cast<double>(a[i]) * b[i];
  return s;
}
}  // namespace

TEST_CASE("positional/rope: hand rotation, position 0 is identity, norms kept") {
  // D = 2, θ_0 = 1: position 1 rotates (1, 0) by 1 rad to (cos 1, sin 1).
  Tensor x({2, 2}, {1.0f, 0.0f, 1.0f, 0.0f});
  Tensor y = rope(x, 0, {});
  CHECK(y.data[0] == 1.0f);
  CHECK(y.data[1] == 0.0f);
  CHECK(y.data[2] == doctest::Approx(std::cos(1.0)));
  CHECK(y.data[3] == doctest::Approx(std::sin(1.0)));

  testref::Rng rng(2);
  Tensor h = rng.tensor({3, 5, 8});
  for (auto pairing : {RopePairing::Interleaved, RopePairing::HalfSplit}) {
    Tensor r = rope(h, 3, {pairing, 0, 10000.0});
    for (int t = 0; t < 15; ++t)
      CHECK(dot(r.ptr() + t * 8, r.ptr() + t * 8, 8) ==
            doctest::Approx(dot(h.ptr() + t * 8, h.ptr() + t * 8, 8)).epsilon(1e-5));
  }
  // Half-split on channels (a0 a1 a2 a3 b0 b1 b2 b3) equals interleaved on (a0 b0 a1 b1 ...).
  Tensor hs({1, 8}), il({1, 8});
  for (int p = 0; p < 4; ++p) {
    hs.data[p] = il.data[2 * p] = rng.sym();
    hs.data[p + 4] = il.data[2 * p + 1] = rng.sym();
  }
  Tensor rh = rope(hs, 7, {RopePairing::HalfSplit}), ri = rope(il, 7, {RopePairing::Interleaved});
  for (int p = 0; p < 4; ++p) {
    // Same maths; the compiler may contract a·c − b·s into an FMA differently per path.
    CHECK(rh.data[p] == doctest::Approx(ri.data[2 * p]).epsilon(1e-6));
    CHECK(rh.data[p + 4] == doctest::Approx(ri.data[2 * p + 1]).epsilon(1e-6));
  }
}

TEST_CASE("positional/rope: matches torch (complex and rotate_half formulations), partial rotary") {
  std::ifstream f(std::string(TFP_FIXTURES_DIR) + "/attention/positional.json");
  REQUIRE(f.good());
  const auto doc = nlohmann::json::parse(f, nullptr, false);
  REQUIRE(!doc.is_discarded());
  REQUIRE(doc["rope"].size() == 5);
  for (const auto& c : doc["rope"]) {
    const int64_t T = c["T"], D = c["D"];
    RopeConfig cfg;
    cfg.rotary_dim = c["rotary_dim"];
    cfg.pairing = c["pairing"] == "interleaved" ? RopePairing::Interleaved : RopePairing::HalfSplit;
    Tensor x({T, D}, c["x"].get<std::vector<float>>());
    Tensor y = rope(x, c["pos0"].get<int64_t>(), cfg);
    CAPTURE(c["pairing"].get<std::string>());
    CAPTURE(c["pos0"].get<int64_t>());
    CHECK(testref::max_abs_diff(y.ptr(), c["y"].get<std::vector<double>>()) < 1e-5);
  }
}

TEST_CASE("positional/rope: q·k after rotation depends only on m − n") {
  testref::Rng rng(8);
  for (auto pairing : {RopePairing::Interleaved, RopePairing::HalfSplit}) {
    for (int R : {0, 4}) {  // full and partial rotary (the unrotated tail adds a constant)
      CAPTURE(R);
      RopeConfig cfg{pairing, R, 10000.0};
      Tensor q = rng.tensor({1, 8}), k = rng.tensor({1, 8});
      for (int64_t delta : {0, 1, 5, -3, 40}) {
        const int64_t m0 = 50;
        const double ref = dot(rope(q, m0, cfg).ptr(), rope(k, m0 - delta, cfg).ptr(), 8);
        for (int64_t shift : {1, 17, 300, 2000}) {
          const double d = dot(rope(q, m0 + shift, cfg).ptr(), rope(k, m0 - delta + shift, cfg).ptr(), 8);
          CHECK(std::fabs(d - ref) < 1e-4);
        }
      }
      // ... and does depend on it (the test could fail): a different offset changes the dot.
      const double d0 = dot(rope(q, 10, cfg).ptr(), rope(k, 10, cfg).ptr(), 8);
      const double d3 = dot(rope(q, 13, cfg).ptr(), rope(k, 10, cfg).ptr(), 8);
      CHECK(std::fabs(d0 - d3) > 1e-3);
    }
  }
}

TEST_CASE("positional/rope: as an attention hook, with KV-cache positions") {
  testref::Rng rng(12);
  const int H = 2, Tq = 2, Tk = 6, D = 8;
  Tensor q = rng.tensor({H, Tq, D}), k = rng.tensor({H, Tk, D}), v = rng.tensor({H, Tk, D});
  RopeConfig cfg{RopePairing::HalfSplit, 0, 10000.0};
  AttentionMask causal;
  causal.causal = true;
  AttentionHooks hooks;
  hooks.rotate = rope_rotation(cfg);
  hooks.kv_pos0 = 3;  // keys at positions 3..8, the two queries at 7 and 8
  AttentionResult a = scaled_dot_product_attention(q, k, v, causal, 0.35f, true, hooks);
  AttentionResult r = scaled_dot_product_attention(rope(q, 7, cfg), rope(k, 3, cfg), v, causal, 0.35f, true);
  CHECK(a.out.data == r.out.data);
  CHECK(a.probs.data == r.probs.data);
  Tensor q2 = q;
  scaled_dot_product_attention(q, k, v, causal, 0.35f, false, hooks);
  CHECK(q.data == q2.data);

  // Inside multi_head_attention: rotation of the projected heads, fused self-attention.
  const int C = 8, T = 4, MH = 2;
  Tensor W = rng.tensor({3 * C, C}, 0.5f), Wo = rng.tensor({C, C}, 0.5f), x = rng.tensor({T, C});
  AttentionWeights w;
  w.qkv = Linear{W, {}, WeightLayout::OutIn};
  w.out = Linear{Wo, {}, WeightLayout::OutIn};
  AttentionHooks mh;
  mh.rotate = rope_rotation(cfg);
  AttentionResult got = multi_head_attention(x, x, w, MH, causal, true, mh);
  // Oracle: project, split heads, rotate every head from position 0, SDPA, merge, project.
  Tensor qkv = linear(x, w.qkv);
  Tensor qh({MH, T, C / MH}), kh({MH, T, C / MH}), vh({MH, T, C / MH});
  for (int h = 0; h < MH; ++h)
    for (int t = 0; t < T; ++t)
      for (int d = 0; d < C / MH; ++d) {
        qh.data[(h * T + t) * (C / MH) + d] = qkv.row(t)[h * (C / MH) + d];
        kh.data[(h * T + t) * (C / MH) + d] = qkv.row(t)[C + h * (C / MH) + d];
        vh.data[(h * T + t) * (C / MH) + d] = qkv.row(t)[2 * C + h * (C / MH) + d];
      }
  AttentionResult e = scaled_dot_product_attention(rope(qh, 0, cfg), rope(kh, 0, cfg), vh, causal,
                                                   1.0f / std::sqrt(static_cast<float>(C / MH)), true);
  CHECK(testref::max_abs_diff(got.probs.ptr(), testref::to_double(e.probs.ptr(), e.probs.data.size())) < 1e-6);
  Tensor merged({T, C});
  for (int h = 0; h < MH; ++h)
    for (int t = 0; t < T; ++t)
      for (int d = 0; d < C / MH; ++d) merged.row(t)[h * (C / MH) + d] = e.out.data[(h * T + t) * (C / MH) + d];
  Tensor expect = linear(merged, w.out);
  CHECK(testref::max_abs_diff(got.out.ptr(), testref::to_double(expect.ptr(), expect.data.size())) < 1e-6);

  CHECK_THROWS_WITH_AS(rope(Tensor({2, 6}), 0, {RopePairing::Interleaved, 3, 10000.0}),
                       "rope: rotary_dim must be even and in 1..D = 6 (0 = D), got 3", Error);
}
