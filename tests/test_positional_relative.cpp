// Relative position bias: T5 log buckets (oracle: hand derivations below, and T5's rule
// run with torch float32 ops by tests/fixtures/gen_attention.py — exact integer match),
// Shaw-style clipping (hand values), and the bias inside attention (oracle: the same
// biases passed as an additive mask — exact match, same float operations).
#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "nn/positional_relative.h"
#include "test_attention_ref.h"

using namespace tfp;
using namespace tfp::nn;

TEST_CASE("positional/relative: T5 buckets by hand") {
  // Bidirectional, 32 buckets, max_distance 128: 16 per direction, max_exact = 8.
  // r = key − query. Past/present (r <= 0) use buckets 0..15, future 16..31.
  CHECK(t5_relative_bucket(0, true, 32, 128) == 0);
  CHECK(t5_relative_bucket(-3, true, 32, 128) == 3);    // exact: n = 3
  CHECK(t5_relative_bucket(3, true, 32, 128) == 19);    // 16 + 3
  CHECK(t5_relative_bucket(-7, true, 32, 128) == 7);    // last exact bucket
  CHECK(t5_relative_bucket(-8, true, 32, 128) == 8);    // 8 + log(8/8)/log(16)·8 = 8
  CHECK(t5_relative_bucket(-16, true, 32, 128) == 10);  // 8 + log 2 / log 16 · 8 = 8 + 2
  CHECK(t5_relative_bucket(-64, true, 32, 128) == 14);  // 8 + log 8 / log 16 · 8 = 8 + 6
  CHECK(t5_relative_bucket(-127, true, 32, 128) == 15); // 8 + 7.98 → 15
  CHECK(t5_relative_bucket(-128, true, 32, 128) == 15); // 8 + 8 = 16, clamped to 15
  CHECK(t5_relative_bucket(-100000, true, 32, 128) == 15);
  CHECK(t5_relative_bucket(100000, true, 32, 128) == 31);
  // Causal, 32 buckets: max_exact = 16; the future all falls in bucket 0.
  CHECK(t5_relative_bucket(5, false, 32, 128) == 0);
  CHECK(t5_relative_bucket(-15, false, 32, 128) == 15);
  CHECK(t5_relative_bucket(-20, false, 32, 128) == 17);  // 16 + log(20/16)/log(8)·16 = 16 + 1.72
  CHECK(t5_relative_bucket(-128, false, 32, 128) == 31);
}

TEST_CASE("positional/relative: T5 buckets match T5's rule evaluated in torch for r in [-300, 300]") {
  std::ifstream f(std::string(TFP_FIXTURES_DIR) + "/attention/positional.json");
  REQUIRE(f.good());
  const auto doc = nlohmann::json::parse(f, nullptr, false);
  REQUIRE(!doc.is_discarded());
  REQUIRE(doc["t5_buckets"].size() == 4);
  for (const auto& c : doc["t5_buckets"]) {
    const bool bidi = c["bidirectional"];
    const int nb = c["num_buckets"], md = c["max_distance"];
    const int from = c["rel_from"];
    const auto expect = c["buckets"].get<std::vector<int>>();
    int mismatches = 0;
    for (size_t i = 0; i < expect.size(); ++i)
      if (t5_relative_bucket(from + static_cast<int>(i), bidi, nb, md) != expect[i]) ++mismatches;
    CAPTURE(bidi);
    CAPTURE(nb);
    CHECK(mismatches == 0);
  }
}

TEST_CASE("positional/relative: Shaw clipping buckets") {
  Tensor table({5, 1});  // k = 2 bidirectional: 2k+1 = 5 buckets for r = -2..2
  RelativePositionBias rp{table, RelativeBucketing::Clip, true, 2};
  CHECK(rp.num_buckets() == 5);
  CHECK(rp.bucket(-7) == 0);
  CHECK(rp.bucket(-1) == 1);
  CHECK(rp.bucket(0) == 2);
  CHECK(rp.bucket(2) == 4);
  CHECK(rp.bucket(9) == 4);
  Tensor t3({3, 1});
  RelativePositionBias causal{t3, RelativeBucketing::Clip, false, 2};  // past distance 0, 1, 2+
  CHECK(causal.bucket(3) == 0);
  CHECK(causal.bucket(-1) == 1);
  CHECK(causal.bucket(-5) == 2);
  RelativePositionBias wrong{t3, RelativeBucketing::Clip, true, 2};
  CHECK_THROWS_WITH_AS(wrong.validate("enc.rel"),
                       "enc.rel: table [3, 1] has 3 buckets, clipping at 2 needs 5 (2k+1)", Error);
}

TEST_CASE("positional/relative: bias tensor by hand and the hook inside attention") {
  // 2 heads, Shaw k = 1: buckets r = -1, 0, +1 → table rows 0, 1, 2; head h column h.
  Tensor table({3, 2}, {-1.0f, -10.0f, 0.0f, 0.0f, 1.0f, 10.0f});
  RelativePositionBias rp{table, RelativeBucketing::Clip, true, 1};
  Tensor b = rp.bias(2, 3, 0, 0);  // (2, 2, 3)
  // Head 0, query 0: keys r = 0, 1, 2 → rows 1, 2, 2 → 0, 1, 1. Query 1: r = -1, 0, 1 → -1, 0, 1.
  CHECK(b.data == std::vector<float>{0, 1, 1, -1, 0, 1, 0, 10, 10, -10, 0, 10});

  testref::Rng rng(4);
  Tensor big = rng.tensor({32, 3});
  RelativePositionBias t5{big, RelativeBucketing::T5Log, true, 20};
  const int H = 3, Tq = 2, Tk = 9, D = 4;
  Tensor q = rng.tensor({H, Tq, D}), k = rng.tensor({H, Tk, D}), v = rng.tensor({H, Tk, D});
  AttentionHooks hooks;
  hooks.score_bias = t5.hook();
  hooks.kv_pos0 = 5;  // keys at 5..13, queries at 12, 13
  AttentionResult a = scaled_dot_product_attention(q, k, v, {}, 1.0f, true, hooks);
  AttentionMask m;
  m.additive = t5.bias(Tq, Tk, 12, 5);
  AttentionResult r = scaled_dot_product_attention(q, k, v, m, 1.0f, true);
  CHECK(a.probs.data == r.probs.data);
  CHECK(a.out.data == r.out.data);

  Tensor odd({7, 2});
  RelativePositionBias bad{odd, RelativeBucketing::T5Log, true, 128};
  CHECK_THROWS_AS(bad.hook(), Error);
}
