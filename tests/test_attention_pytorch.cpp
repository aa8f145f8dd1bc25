// PyTorch parity: nn::multi_head_attention against torch.nn.MultiheadAttention.
// Oracle: tests/fixtures/attention/mha.json, written by tests/fixtures/gen_attention.py
// (torch 1.13, reference outputs computed in float64 from the exact float32 weights and
// inputs). Tolerance: max abs error <= 1e-4 on outputs and per-head probabilities
// (the engine computes in float32; observed errors are ~1e-6).
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "nn/attention.h"

using namespace tfp;
using namespace tfp::nn;
using nlohmann::json;

namespace {

Tensor tensor_from(const json& values, Shape shape) {
  return Tensor(std::move(shape), values.get<std::vector<float>>());
}

double max_abs_err(const Tensor& got, const json& expect) {
  const auto e = expect.get<std::vector<double>>();
  REQUIRE(e.size() == got.data.size());
  double m = 0;
  for (size_t i = 0; i < e.size(); ++i) {
    const double d = std::fabs(got.data[i] - e[i]);
    if (std::isnan(d)) return INFINITY;
    m = std::max(m, d);
  }
  return m;
}

}  // namespace

TEST_CASE("attention/pytorch: nn.MultiheadAttention parity (self, cross, masks, per-head weights)") {
  std::ifstream f(std::string(TFP_FIXTURES_DIR) + "/attention/mha.json");
  REQUIRE(f.good());
  const json doc = json::parse(f, nullptr, false);
  REQUIRE(!doc.is_discarded());
  REQUIRE(doc["cases"].size() >= 7);

  double worst = 0;
  for (const json& c : doc["cases"]) {
    const std::string name = c["name"];
    CAPTURE(name);
    const int64_t C = c["embed_dim"], H = c["num_heads"], Tq = c["Tq"], Tk = c["Tk"];
    Tensor W = tensor_from(c["in_proj_weight"], {3 * C, C});
    Tensor b = tensor_from(c["in_proj_bias"], {3 * C});
    Tensor Wo = tensor_from(c["out_proj_weight"], {C, C});
    Tensor bo = tensor_from(c["out_proj_bias"], {C});
    AttentionWeights w;
    w.qkv = Linear{W, b, WeightLayout::OutIn};
    w.out = Linear{Wo, bo, WeightLayout::OutIn};

    const json& am = c["attn_mask"];
    int s = 0;
    for (const json& seq : c["sequences"]) {
      CAPTURE(s);
      AttentionMask mask;
      mask.causal = am["kind"] == "causal";
      if (am["kind"] == "float") {
        const auto shape = am["shape"].get<std::vector<int64_t>>();
        const auto all = am["data"].get<std::vector<float>>();
        if (shape.size() == 2) {
          mask.additive = Tensor({Tq, Tk}, all);
        } else {  // (B*H, Tq, Tk): sequence s owns rows s*H .. s*H + H - 1
          const size_t per = static_cast<size_t>(H * Tq * Tk);
          mask.additive = Tensor({H, Tq, Tk}, std::vector<float>(all.begin() + s * per,
                                                                all.begin() + (s + 1) * per));
        }
      }
      for (int p : seq["key_padding"]) mask.key_padding.push_back(static_cast<uint8_t>(p));

      Tensor xq = tensor_from(seq["x_q"], {Tq, C});
      Tensor xkv_own;
      const bool cross = c["cross"];
      if (cross) xkv_own = tensor_from(seq["x_kv"], {Tk, C});
      // Self-attention passes the same tensor twice (the fused single-projection path).
      const Tensor& xkv = cross ? xkv_own : xq;
      AttentionResult r = multi_head_attention(xq, xkv, w, static_cast<int>(H), mask, true);
      REQUIRE(r.out.shape == Shape{Tq, C});
      REQUIRE(r.probs.shape == Shape{H, Tq, Tk});
      const double eo = max_abs_err(r.out, seq["out"]);
      const double ep = max_abs_err(r.probs, seq["probs"]);
      CHECK(eo <= 1e-4);
      CHECK(ep <= 1e-4);
      worst = std::max({worst, eo, ep});
      ++s;
    }
  }
  MESSAGE("worst abs error vs PyTorch (float64 reference): " << worst);
}
