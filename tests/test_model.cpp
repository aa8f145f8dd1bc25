// Whole models: PyTorch nn.Transformer parity (golden fixture), and properties that
// need no reference — permutation equivariance without positions, causality of the
// decoder, padding invariance of the encoder, observer names and interventions.
// Tolerances: 1e-4 max abs vs PyTorch (float32 both sides); 1e-5 for properties where
// only the summation order differs between the two runs compared.
#include <doctest/doctest.h>

#include <numeric>

#include "nn/observer.h"
#include "model/transformer.h"
#include "test_layers_fixture.h"

using namespace tfp;
using namespace tfp_test;

namespace {

// A small random token model of each architecture (weights from model::random_weights,
// with biases and norms randomised so that every tensor matters).
model::ModelConfig tiny(model::Architecture arch) {
  model::ModelConfig c;
  c.architecture = arch;
  c.family = "test";
  c.d_model = 16;
  c.n_heads = 4;
  c.d_ff = 32;
  c.vocab_size = 23;
  c.max_positions = 12;
  c.n_encoder_layers = arch == model::Architecture::decoder_only ? 0 : 2;
  c.n_decoder_layers = arch == model::Architecture::encoder_only ? 0 : 2;
  if (arch == model::Architecture::decoder_only) {  // GPT-2 shape
    c.norm_first = true;
    c.activation = nn::Activation::gelu_tanh;
    c.decoder_final_norm = true;
  } else if (arch == model::Architecture::encoder_only) {  // BERT shape
    c.activation = nn::Activation::gelu_erf;
    c.type_vocab_size = 2;
    c.embedding_norm = true;
    c.layer_norm_eps = 1e-12f;
    c.fused_qkv = false;
  }
  return c;
}

Tensor rows_permuted(const Tensor& x, const std::vector<int>& perm) {
  Tensor y(x.shape);
  const int64_t C = x.dim(1);
  for (size_t i = 0; i < perm.size(); ++i)
    std::copy(x.row(perm[i]), x.row(perm[i]) + C, y.row(static_cast<int64_t>(i)));
  return y;
}

Tensor first_rows(const Tensor& x, int64_t n) {
  const int64_t C = x.dim(1);
  return Tensor({n, C}, std::vector<float>(x.data.begin(), x.data.begin() + n * C));
}

}  // namespace

TEST_CASE("model: nn.Transformer matches PyTorch, with per-layer attention") {
  const json fx = load_layers_fixture("transformer.json");
  REQUIRE(fx.at("cases").size() == 2);
  for (const json& c : fx.at("cases")) {
    CAPTURE(c.at("name").get<std::string>());
    model::ModelConfig cfg = torch_config(c, model::Architecture::encoder_decoder, 2, 2, true);
    model::ModelWeights w = model::ModelWeights::for_config(cfg);
    bind_torch(cfg, w, c.at("weights"), "encoder.layers.{i}.", "decoder.layers.{i}.");

    const Tensor src = to_tensor(c.at("src")), tgt = to_tensor(c.at("tgt"));
    const Tensor y = to_tensor(c.at("y")), memory = to_tensor(c.at("memory"));
    const int64_t B = src.dim(0), S = src.dim(1), T = tgt.dim(1);
    for (int64_t b = 0; b < B; ++b) {
      CAPTURE(b);
      model::TransformerMasks m;
      m.tgt_causal = true;
      m.src_key_padding = batch_mask(c.at("src_key_padding_mask"), b, S);
      m.memory_key_padding = m.src_key_padding;
      nn::RecordingObserver rec({"*.probs", "enc.norm.out"});
      const Tensor out =
          model::transformer_forward(cfg, w, batch_item(src, b), batch_item(tgt, b), m, &rec);
      CHECK(max_abs_diff(out, batch_item(y, b)) <= 1e-4f);
      CHECK(max_abs_diff(rec.get("enc.norm.out"), batch_item(memory, b)) <= 1e-4f);
      for (int i = 0; i < 2; ++i) {
        const std::string l = std::to_string(i);
        CHECK(max_abs_diff(rec.get("enc." + l + ".attn.probs"),
                           batch_item(to_tensor(c.at("enc_probs")[i]), b)) <= 1e-4f);
        CHECK(max_abs_diff(rec.get("dec." + l + ".attn.probs"),
                           batch_item(to_tensor(c.at("dec_self_probs")[i]), b)) <= 1e-4f);
        CHECK(max_abs_diff(rec.get("dec." + l + ".cross.probs"),
                           batch_item(to_tensor(c.at("dec_cross_probs")[i]), b)) <= 1e-4f);
      }
      // The same through the encoder and decoder entry points separately, with the
      // causal mask given the PyTorch way: a boolean (T, T) mask, true above the diagonal.
      std::vector<uint8_t> upper(static_cast<size_t>(T * T));
      for (int64_t i = 0; i < T; ++i)
        for (int64_t j = 0; j < T; ++j) upper[i * T + j] = j > i;
      model::TransformerMasks m2 = m;
      m2.tgt_causal = false;
      m2.tgt_mask = model::bool_mask(upper, T, T);
      const Tensor mem = model::transformer_encoder_forward(cfg, w, batch_item(src, b), m2);
      const Tensor out2 = model::transformer_decoder_forward(cfg, w, batch_item(tgt, b), mem, m2);
      CHECK(max_abs_diff(out2, batch_item(y, b)) <= 1e-4f);
    }
  }
}

TEST_CASE("model: without positions, permuting the input tokens permutes the outputs") {
  // Self-attention is a weighted sum over a *set* of keys: with no positional signal
  // each output row depends on its own token and the multiset of the others.
  model::ModelConfig cfg = tiny(model::Architecture::encoder_only);
  cfg.positional = model::Positional::none;
  const model::ModelWeights w = model::random_weights(cfg, 7, 0.3f, true);
  const std::vector<int32_t> ids = {3, 17, 5, 9, 3, 20};
  const std::vector<int> perm = {4, 2, 0, 5, 1, 3};
  std::vector<int32_t> pids;
  for (int p : perm) pids.push_back(ids[p]);
  const Tensor h = model::forward_encoder_only(cfg, w, ids).hidden;
  const Tensor hp = model::forward_encoder_only(cfg, w, pids).hidden;
  CHECK(max_abs_diff(hp, rows_permuted(h, perm)) <= 1e-5f);

  // Control: with learned positions the equality breaks (so the check above can fail).
  cfg.positional = model::Positional::learned;
  const model::ModelWeights wl = model::random_weights(cfg, 7, 0.3f, true);
  const Tensor l = model::forward_encoder_only(cfg, wl, ids).hidden;
  const Tensor lp = model::forward_encoder_only(cfg, wl, pids).hidden;
  CHECK(max_abs_diff(lp, rows_permuted(l, perm)) > 1e-2f);
}

TEST_CASE("model: the decoder is causal — later tokens never change earlier logits") {
  const model::ModelConfig cfg = tiny(model::Architecture::decoder_only);
  const model::ModelWeights w = model::random_weights(cfg, 11, 0.3f, true);
  const std::vector<int32_t> a = {1, 2, 3, 4, 5}, b = {1, 2, 3, 9, 22};
  const Tensor la = model::forward_decoder_only(cfg, w, a).logits;  // (5, V)
  const Tensor lb = model::forward_decoder_only(cfg, w, b).logits;
  CHECK(la.shape == Shape{5, 23});
  CHECK(max_abs_diff(first_rows(la, 3), first_rows(lb, 3)) == 0.0f);  // bit-identical prefix
  CHECK(max_abs_diff(la, lb) > 1e-3f);
  // Tied head: logits = hidden · token_embeddingᵀ.
  const model::ForwardResult r = model::forward_decoder_only(cfg, w, a);
  double dot = 0;
  for (int c = 0; c < 16; ++c) dot += r.hidden.row(4)[c] * w.embed.token.data[7 * 16 + c];
  CHECK(r.logits.row(4)[7] == doctest::Approx(dot).epsilon(1e-5));
}

TEST_CASE("model: encoder padding — padded keys do not affect real tokens") {
  // BERT-like: appending padding tokens marked in `padding` leaves the real rows equal.
  const model::ModelConfig cfg = tiny(model::Architecture::encoder_only);
  const model::ModelWeights w = model::random_weights(cfg, 5, 0.3f, true);
  const std::vector<int32_t> ids = {4, 8, 15, 16}, padded = {4, 8, 15, 16, 0, 0};
  const std::vector<int32_t> types = {0, 0, 1, 1}, ptypes = {0, 0, 1, 1, 0, 0};
  const Tensor h = model::forward_encoder_only(cfg, w, ids, types).hidden;
  const Tensor hp =
      model::forward_encoder_only(cfg, w, padded, ptypes, {0, 0, 0, 0, 1, 1}).hidden;
  CHECK(max_abs_diff(first_rows(hp, 4), h) <= 1e-5f);
  // Token types matter.
  const Tensor h0 = model::forward_encoder_only(cfg, w, ids).hidden;
  CHECK(max_abs_diff(h0, h) > 1e-3f);
}

TEST_CASE("model: observer names, shapes, probabilities, and edits") {
  const model::ModelConfig cfg = tiny(model::Architecture::encoder_decoder);
  const model::ModelWeights w = model::random_weights(cfg, 3, 0.3f, true);
  const std::vector<int32_t> src = {5, 6, 7, 8, 9}, tgt = {1, 2, 3};
  nn::RecordingObserver all({"*"});
  const model::ForwardResult r = model::forward_encoder_decoder(cfg, w, src, tgt, {}, &all);
  std::vector<std::string> names;
  for (const auto& [n, t] : all.records()) names.push_back(n);
  // Each attention block also reports what the query-key drill-down replays (q, k, v,
  // head_out, mask: inspect/attention_steps.h); first, from inside attention, activation
  // patching's edit points hook_q, hook_k, hook_v, hook_pattern and then head_out, before
  // the output projection (so edits of them flow on: inspect/head_mask.h, activation_patching.h).
  auto heads = [](const std::string& b) {
    return std::vector<std::string>{b + ".hook_q", b + ".hook_k", b + ".hook_v", b + ".hook_pattern",
                                    b + ".head_out", b + ".probs", b + ".q", b + ".k", b + ".v", b + ".mask"};
  };
  std::vector<std::string> expected = {"enc.embed.out"};
  auto add = [&](std::vector<std::string> more) { expected.insert(expected.end(), more.begin(), more.end()); };
  for (const char* l : {"enc.0", "enc.1"}) {
    add(heads(std::string(l) + ".attn"));
    add({std::string(l) + ".attn.out", std::string(l) + ".ffn.hidden", std::string(l) + ".ffn.out", std::string(l) + ".out"});
  }
  add({"dec.embed.out"});
  for (const char* l : {"dec.0", "dec.1"}) {
    add(heads(std::string(l) + ".attn"));
    add({std::string(l) + ".attn.out"});
    add(heads(std::string(l) + ".cross"));
    add({std::string(l) + ".cross.out", std::string(l) + ".ffn.hidden", std::string(l) + ".ffn.out", std::string(l) + ".out"});
  }
  add({"logits"});
  CHECK(names == expected);
  CHECK(all.get("enc.1.attn.probs").shape == Shape{4, 5, 5});   // (H, S, S)
  CHECK(all.get("dec.1.attn.probs").shape == Shape{4, 3, 3});   // (H, T, T)
  CHECK(all.get("dec.0.cross.probs").shape == Shape{4, 3, 5});  // (H, T, S)
  // Every row of every head is a distribution; the causal rows put 0 on the future.
  const Tensor& p = all.get("dec.0.attn.probs");
  for (int64_t row = 0; row < 4 * 3; ++row) {
    const float* pr = p.ptr() + row * 3;
    CHECK(pr[0] + pr[1] + pr[2] == doctest::Approx(1.0f).epsilon(1e-6));
    const int64_t i = row % 3;
    for (int64_t j = i + 1; j < 3; ++j) CHECK(pr[j] == 0.0f);
  }
  // Recorded logits are the returned logits.
  CHECK(max_abs_diff(all.get("logits"), r.logits) == 0.0f);

  // Prefix filter: "dec.1" takes dec.1.* only.
  nn::RecordingObserver one({"dec.1"});
  model::forward_encoder_decoder(cfg, w, src, tgt, {}, &one);
  CHECK(one.records().size() == 25);  // attn: 4 edit points, probs, 5 drill-down tensors, out; cross: same; ffn.hidden, ffn.out, out
  CHECK_THROWS_WITH_AS(one.get("enc.0.out"),
                       doctest::Contains("nothing recorded as \"enc.0.out\""), Error);
  CHECK(nn::glob_match("dec.*.cross.probs", "dec.12.cross.probs"));
  CHECK(!nn::glob_match("dec.*.cross.probs", "enc.1.attn.probs"));

  // An edit of a layer output flows downstream: zeroing the encoder output changes the
  // logits; an observer that only watches changes nothing.
  struct ZeroEncoder : nn::Observer {
    bool wants(std::string_view n) const override { return n == "enc.1.out"; }
    void observe(std::string_view, Tensor& t) override { std::fill(t.data.begin(), t.data.end(), 0.0f); }
  } zero;
  const Tensor edited = model::forward_encoder_decoder(cfg, w, src, tgt, {}, &zero).logits;
  CHECK(max_abs_diff(edited, r.logits) > 1e-3f);
  CHECK(max_abs_diff(model::forward_encoder_decoder(cfg, w, src, tgt).logits, r.logits) == 0.0f);
}

TEST_CASE("model: sinusoidal positions match the formula") {
  // PE[p, 2i] = sin(p / 10000^(2i/C)), PE[p, 2i+1] = cos(...). C = 4, p = 3:
  // i=0: sin(3), cos(3); i=1: sin(3/100), cos(3/100).
  const Tensor pe = model::sinusoidal_positions(3, 1, 4);
  CHECK(pe.data[0] == doctest::Approx(std::sin(3.0)).epsilon(1e-6));
  CHECK(pe.data[1] == doctest::Approx(std::cos(3.0)).epsilon(1e-6));
  CHECK(pe.data[2] == doctest::Approx(std::sin(0.03)).epsilon(1e-6));
  CHECK(pe.data[3] == doctest::Approx(std::cos(0.03)).epsilon(1e-6));
}

TEST_CASE("model: heads — token classifier and masked LM shapes") {
  model::ModelConfig cfg = tiny(model::Architecture::encoder_only);
  cfg.encoder_head = model::EncoderHead::token_classifier;
  cfg.n_labels = 5;
  const model::ModelWeights w = model::random_weights(cfg, 9);
  CHECK(model::forward_encoder_only(cfg, w, std::vector<int32_t>{1, 2, 3}).logits.shape ==
        Shape{3, 5});
  cfg.encoder_head = model::EncoderHead::masked_lm;
  const model::ModelWeights wm = model::random_weights(cfg, 9);
  CHECK(model::forward_encoder_only(cfg, wm, std::vector<int32_t>{1, 2, 3}).logits.shape ==
        Shape{3, 23});
}
