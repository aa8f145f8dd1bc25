// Encoder and decoder layers against PyTorch 1.13 (nn.TransformerEncoderLayer /
// nn.TransformerDecoderLayer, slow path), post-LN and norm_first, relu and gelu, with
// causal, key-padding and additive masks; plus hand-derivable LayerNorm / FFN checks.
// Oracle: tests/fixtures/layers/*.json from tests/fixtures/gen_layers.py.
// Tolerance: max abs error <= 1e-4 on outputs and on attention probabilities
// (float32 on both sides; differences come from summation order).
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>

#include "nn/observer.h"
#include "nn/transformer_block.h"
#include "nn/feed_forward.h"
#include "nn/layer_norm.h"
#include "test_layers_fixture.h"

using namespace tfp;
using namespace tfp_test;

namespace {
constexpr float kTol = 1e-4f;

nn::Linear lin(model::ModelWeights& store, const json& st, const std::string& name) {
  nn::Linear l;
  l.weight = store.own(to_tensor(st.at(name + "weight")));
  l.bias = store.own(to_tensor(st.at(name + "bias")));
  return l;
}
nn::LayerNormWeights norm(model::ModelWeights& store, const json& st, const std::string& name,
                          float eps) {
  nn::LayerNormWeights n;
  n.gamma = store.own(to_tensor(st.at(name + ".weight")));
  n.beta = store.own(to_tensor(st.at(name + ".bias")));
  n.eps = eps;
  return n;
}
nn::AttentionWeights mha(model::ModelWeights& store, const json& st, const std::string& p) {
  nn::AttentionWeights a;
  a.qkv.weight = store.own(to_tensor(st.at(p + ".in_proj_weight")));
  a.qkv.bias = store.own(to_tensor(st.at(p + ".in_proj_bias")));
  a.out = lin(store, st, p + ".out_proj.");
  return a;
}
}  // namespace

TEST_CASE("layers: encoder layer matches PyTorch nn.TransformerEncoderLayer") {
  const json fx = load_layers_fixture("encoder_layer.json");
  REQUIRE(fx.at("cases").size() == 4);
  for (const json& c : fx.at("cases")) {
    CAPTURE(c.at("name").get<std::string>());
    // Bind through the role table with a one-layer encoder config; the bare layer's
    // state_dict names have no prefix.
    model::ModelConfig cfg = torch_config(c, model::Architecture::encoder_only, 1, 0, false);
    model::ModelWeights w = model::ModelWeights::for_config(cfg);
    bind_torch(cfg, w, c.at("weights"), "", "");
    const nn::LayerOptions opt{static_cast<int>(cfg.n_heads), cfg.activation, cfg.norm_first};

    const Tensor x = to_tensor(c.at("x")), y = to_tensor(c.at("y"));
    const Tensor probs = to_tensor(c.at("attn_probs"));  // (B, H, T, T)
    const int64_t B = x.dim(0), T = x.dim(1);
    for (int64_t b = 0; b < B; ++b) {
      CAPTURE(b);
      nn::AttentionMask mask;
      mask.key_padding = batch_mask(c.at("src_key_padding_mask"), b, T);
      if (!c.at("src_mask").is_null()) mask.additive = to_tensor(c.at("src_mask"));
      nn::RecordingObserver rec({"enc.0.attn.probs"});
      const Tensor out = nn::encoder_layer(batch_item(x, b), w.encoder_layers[0], opt, mask,
                                           nn::Scope(&rec, "enc.0"));
      CHECK(max_abs_diff(out, batch_item(y, b)) <= kTol);
      REQUIRE(rec.has("enc.0.attn.probs"));
      CHECK(max_abs_diff(rec.get("enc.0.attn.probs"), batch_item(probs, b)) <= kTol);
      CHECK(rec.records().size() == 1);  // the filter let nothing else through
    }
  }
}

TEST_CASE("layers: decoder layer matches PyTorch nn.TransformerDecoderLayer") {
  const json fx = load_layers_fixture("decoder_layer.json");
  REQUIRE(fx.at("cases").size() == 4);
  for (const json& c : fx.at("cases")) {
    CAPTURE(c.at("name").get<std::string>());
    const json& st = c.at("weights");
    const float eps = c.at("eps").get<float>();
    model::ModelWeights store;  // only its storage is used: views for a hand-bound layer
    nn::DecoderLayerWeights w;
    w.attn = mha(store, st, "self_attn");
    w.cross = mha(store, st, "multihead_attn");
    w.norm_attn = norm(store, st, "norm1", eps);
    w.norm_cross = norm(store, st, "norm2", eps);
    w.norm_ffn = norm(store, st, "norm3", eps);
    w.ffn.fc1 = lin(store, st, "linear1.");
    w.ffn.fc2 = lin(store, st, "linear2.");
    const nn::LayerOptions opt{c.at("n_heads").get<int>(),
                               nn::activation_from_string(c.at("activation").get<std::string>()),
                               c.at("norm_first").get<bool>()};

    const Tensor x = to_tensor(c.at("x")), mem = to_tensor(c.at("memory"));
    const Tensor y = to_tensor(c.at("y"));
    const Tensor sp = to_tensor(c.at("self_probs")), cp = to_tensor(c.at("cross_probs"));
    const int64_t B = x.dim(0), T = x.dim(1), S = mem.dim(1);
    for (int64_t b = 0; b < B; ++b) {
      CAPTURE(b);
      nn::AttentionMask self_mask, mem_mask;
      self_mask.causal = true;  // = generate_square_subsequent_mask(T) in the fixture
      self_mask.key_padding = batch_mask(c.at("tgt_key_padding_mask"), b, T);
      mem_mask.key_padding = batch_mask(c.at("memory_key_padding_mask"), b, S);
      nn::RecordingObserver rec({"*.probs"});
      const Tensor out = nn::decoder_layer(batch_item(x, b), batch_item(mem, b), w, opt,
                                           self_mask, mem_mask, nullptr,
                                           nn::Scope(&rec, "dec.0"));
      CHECK(max_abs_diff(out, batch_item(y, b)) <= kTol);
      CHECK(max_abs_diff(rec.get("dec.0.attn.probs"), batch_item(sp, b)) <= kTol);
      CHECK(max_abs_diff(rec.get("dec.0.cross.probs"), batch_item(cp, b)) <= kTol);
    }
  }
}

TEST_CASE("layers: layer norm by hand") {
  // x = [1, 2, 3, 4]: mean 2.5, biased variance (2.25+0.25+0.25+2.25)/4 = 1.25, so
  // y = (x - 2.5)/sqrt(1.25) · gamma + beta = [-1.3416, -0.4472, 0.4472, 1.3416]·2 + 1.
  const Tensor x({1, 4}, {1, 2, 3, 4});
  const Tensor gamma({4}, 2.0f), beta({4}, 1.0f);
  nn::LayerNormWeights ln{gamma.view(), beta.view(), 0.0f};
  const Tensor y = nn::layer_norm(x.view(), ln);
  const float s = 1.0f / std::sqrt(1.25f);
  CHECK(y.data[0] == doctest::Approx(-1.5f * s * 2 + 1).epsilon(1e-6));
  CHECK(y.data[3] == doctest::Approx(1.5f * s * 2 + 1).epsilon(1e-6));
  const Tensor bad_gamma({3}, 1.0f);
  CHECK_THROWS_WITH_AS(nn::layer_norm(x.view(), {bad_gamma.view(), {}, 1e-5f}),
                       "layer_norm: gamma has shape [3], expected [4]", Error);
}

TEST_CASE("layers: feed-forward over a long input, in row chunks, = the whole-T pass, same bits") {
  // Unobserved, T > 64 rows go through the hidden layer in balanced chunks; observed
  // ("ffn.hidden" wanted) the whole (T, F) is computed at once. Plain and gated, T values
  // that leave uneven chunks (65 = 33 + 32, 200 = 4 × 50).
  const int64_t C = 24, F = 40;
  auto filled = [](Shape s, float k) {
    Tensor t(std::move(s));
    for (size_t i = 0; i < t.data.size(); ++i) t.data[i] = std::sin(k * static_cast<float>(i + 1));
    return t;
  };
  const Tensor w1 = filled({F, C}, 0.37f), b1 = filled({F}, 0.11f), wg = filled({F, C}, 0.23f);
  const Tensor w2 = filled({C, F}, 0.71f), b2 = filled({C}, 0.19f);
  for (const bool gated : {false, true})
    for (const int64_t T : {65, 200}) {
      nn::FeedForwardWeights f;
      f.fc1 = {w1.view(), b1.view()};
      f.fc2 = {w2.view(), b2.view()};
      if (gated) f.gate = {wg.view(), {}};
      const Tensor x = filled({T, C}, 0.013f);
      const Tensor chunked = nn::feed_forward(x.view(), f, nn::Activation::silu);
      nn::RecordingObserver obs({"ffn.hidden"});
      const Tensor whole = nn::feed_forward(x.view(), f, nn::Activation::silu, nn::Scope(&obs, "ffn"));
      REQUIRE(obs.has("ffn.hidden"));
      CHECK(obs.get("ffn.hidden").shape == Shape({T, F}));
      REQUIRE(chunked.shape == whole.shape);
      CHECK(std::memcmp(chunked.ptr(), whole.ptr(), sizeof(float) * chunked.data.size()) == 0);
    }
}

TEST_CASE("layers: feed-forward by hand and activation names") {
  // C = 1, F = 2: fc1 = [[1], [-1]], b1 = [0, 0]; fc2 = [[1, 1]], b2 = 0.5.
  // relu: x = 3 → h = [3, 0] → y = 3.5;  x = -2 → h = [0, 2] → y = 2.5 (= |x| + 0.5).
  const Tensor w1({2, 1}, {1, -1}), b1({2}, 0.0f), w2({1, 2}, {1, 1}), b2({1}, 0.5f);
  nn::FeedForwardWeights f;
  f.fc1 = {w1.view(), b1.view()};
  f.fc2 = {w2.view(), b2.view()};
  const Tensor x({2, 1}, {3, -2});
  const Tensor y = nn::feed_forward(x.view(), f, nn::Activation::relu);
  CHECK(y.data[0] == 3.5f);
  CHECK(y.data[1] == 2.5f);
  // gelu_erf(3) = 3·Φ(3) = 2.995950, gelu_erf(-3) = -0.004050 → y = 2.9919 + 0.5.
  const Tensor z = nn::feed_forward(Tensor({1, 1}, {3}).view(), f, nn::Activation::gelu_erf);
  CHECK(z.data[0] == doctest::Approx(2.995950 - 0.004050 + 0.5).epsilon(1e-5));
  CHECK(nn::activation_from_string("gelu_new") == nn::Activation::gelu_tanh);
  CHECK(nn::activation_from_string("gelu") == nn::Activation::gelu_erf);
  CHECK(std::string(nn::activation_name(nn::Activation::gelu_tanh)) == "gelu_new");
  CHECK_THROWS_AS(nn::activation_from_string("softsign"), Error);
}
