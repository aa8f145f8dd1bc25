// The role table: every tensor a config needs, its role name and its expected shape.
// Binding, validation and random initialisation all walk this one list, so adding a
// weight to a model means adding one line here.
#include "model/weights.h"

#include <cmath>
#include <random>

namespace tfp::model {

ModelWeights ModelWeights::for_config(const ModelConfig& cfg) {
  ModelWeights w;
  w.encoder_layers.resize(cfg.has_encoder() ? cfg.n_encoder_layers : 0);
  w.decoder_layers.resize(cfg.has_decoder() ? cfg.n_decoder_layers : 0);
  const float eps = cfg.layer_norm_eps;
  for (auto* n : {&w.embed.norm, &w.tgt_embed.norm, &w.encoder_norm, &w.decoder_norm, &w.mlm_norm})
    n->eps = eps;
  for (auto& l : w.encoder_layers) l.norm_attn.eps = l.norm_ffn.eps = eps;
  for (auto& l : w.decoder_layers) l.norm_attn.eps = l.norm_cross.eps = l.norm_ffn.eps = eps;
  return w;
}

TensorView ModelWeights::own(Tensor t) {
  storage.push_back(std::move(t));
  return storage.back().view();
}

Shape WeightSlot::expected_now() const {
  if (linear && view == &linear->weight && linear->layout == nn::WeightLayout::InOut &&
      expected.size() == 2)
    return {expected[1], expected[0]};
  return expected;
}

namespace {

struct SlotList {
  std::vector<WeightSlot> slots;

  void add(std::string role, TensorView* v, Shape s, bool required = true) {
    slots.push_back({std::move(role), v, std::move(s), nullptr, required});
  }
  // A Linear in → out: weight (out, in) required, bias (out) optional.
  void linear(const std::string& role, nn::Linear& l, int64_t out, int64_t in) {
    slots.push_back({role + ".weight", &l.weight, {out, in}, &l, true});
    slots.push_back({role + ".bias", &l.bias, {out}, &l, false});
  }
  void norm(const std::string& role, nn::LayerNormWeights& n, int64_t C) {
    add(role + ".gamma", &n.gamma, {C});
    add(role + ".beta", &n.beta, {C});
  }
  void attention(const std::string& role, nn::AttentionWeights& a, int64_t C, bool fused) {
    if (fused) {
      linear(role + ".qkv", a.qkv, 3 * C, C);
    } else {
      linear(role + ".q", a.q, C, C);
      linear(role + ".k", a.k, C, C);
      linear(role + ".v", a.v, C, C);
    }
    linear(role + ".out", a.out, C, C);
  }
  void ffn(const std::string& role, nn::FeedForwardWeights& f, int64_t C, int64_t F) {
    linear(role + ".fc1", f.fc1, F, C);
    linear(role + ".fc2", f.fc2, C, F);
  }
  void embeddings(const std::string& role, EmbeddingWeights& e, const ModelConfig& c) {
    add(role + ".token", &e.token, {c.vocab_size, c.d_model});
    if (c.positional == Positional::learned)
      add(role + ".position", &e.position, {c.max_positions, c.d_model});
    if (c.type_vocab_size > 0)
      add(role + ".token_type", &e.token_type, {c.type_vocab_size, c.d_model});
    if (c.embedding_norm) norm(role + ".norm", e.norm, c.d_model);
  }
};

void check_layer_counts(const ModelConfig& cfg, const ModelWeights& w) {
  const size_t ne = cfg.has_encoder() ? static_cast<size_t>(cfg.n_encoder_layers) : 0;
  const size_t nd = cfg.has_decoder() ? static_cast<size_t>(cfg.n_decoder_layers) : 0;
  TFP_CHECK(w.encoder_layers.size() == ne && w.decoder_layers.size() == nd,
            "model weights: ", w.encoder_layers.size(), " encoder and ", w.decoder_layers.size(),
            " decoder layers, but the config says ", ne, " and ", nd);
}

}  // namespace

std::vector<WeightSlot> weight_slots(const ModelConfig& cfg, ModelWeights& w) {
  check_config(cfg);
  if (w.encoder_layers.empty() && w.decoder_layers.empty()) {
    ModelWeights fresh = ModelWeights::for_config(cfg);
    w.encoder_layers = std::move(fresh.encoder_layers);
    w.decoder_layers = std::move(fresh.decoder_layers);
  }
  check_layer_counts(cfg, w);
  const int64_t C = cfg.d_model, F = cfg.d_ff, V = cfg.vocab_size;
  SlotList s;
  if (cfg.has_embeddings) {
    s.embeddings("embed", w.embed, cfg);
    if (cfg.architecture == Architecture::encoder_decoder && !cfg.shared_src_tgt_embeddings)
      s.embeddings("tgt_embed", w.tgt_embed, cfg);
  }
  for (size_t i = 0; i < w.encoder_layers.size(); ++i) {
    const std::string p = "enc." + std::to_string(i);
    auto& l = w.encoder_layers[i];
    s.attention(p + ".attn", l.attn, C, cfg.fused_qkv);
    s.norm(p + ".norm_attn", l.norm_attn, C);
    s.ffn(p + ".ffn", l.ffn, C, F);
    s.norm(p + ".norm_ffn", l.norm_ffn, C);
  }
  if (cfg.has_encoder() && cfg.encoder_final_norm) s.norm("enc.norm", w.encoder_norm, C);
  const bool cross = cfg.architecture == Architecture::encoder_decoder;
  for (size_t i = 0; i < w.decoder_layers.size(); ++i) {
    const std::string p = "dec." + std::to_string(i);
    auto& l = w.decoder_layers[i];
    s.attention(p + ".attn", l.attn, C, cfg.fused_qkv);
    s.norm(p + ".norm_attn", l.norm_attn, C);
    if (cross) {
      s.attention(p + ".cross", l.cross, C, cfg.fused_qkv);
      s.norm(p + ".norm_cross", l.norm_cross, C);
    }
    s.ffn(p + ".ffn", l.ffn, C, F);
    s.norm(p + ".norm_ffn", l.norm_ffn, C);
  }
  if (cfg.has_decoder() && cfg.decoder_final_norm) s.norm("dec.norm", w.decoder_norm, C);
  if (cfg.has_embeddings && cfg.has_decoder() && cfg.lm_head && !cfg.tied_lm_head)
    s.linear("lm_head", w.lm_head, V, C);
  if (cfg.architecture == Architecture::encoder_only) {
    if (cfg.encoder_head == EncoderHead::token_classifier)
      s.linear("classifier", w.classifier, cfg.n_labels, C);
    if (cfg.encoder_head == EncoderHead::masked_lm) {
      s.linear("mlm.transform", w.mlm_transform, C, C);
      s.norm("mlm.norm", w.mlm_norm, C);
      s.add("mlm.bias", &w.mlm_bias, {V});
      s.add("mlm.decoder.weight", &w.mlm_decoder, {V, C}, /*required=*/false);  // absent = tied
    }
  }
  return std::move(s.slots);
}

std::vector<std::string> weight_problems(const ModelConfig& cfg, const ModelWeights& w) {
  std::vector<std::string> problems;
  try {
    check_config(cfg);
    check_layer_counts(cfg, w);
  } catch (const Error& e) {
    problems.emplace_back(e.what());
    return problems;
  }
  // Sizes match, so weight_slots will not resize: reading through the slots is safe.
  for (const WeightSlot& s : weight_slots(cfg, const_cast<ModelWeights&>(w))) {
    if (s.view->empty()) {
      if (s.required) problems.push_back(s.role + ": missing");
      continue;
    }
    const Shape want = s.expected_now();
    if (s.view->shape != want)
      problems.push_back(s.role + ": shape " + shape_str(s.view->shape) + ", expected " +
                         shape_str(want));
  }
  return problems;
}

void validate_weights(const ModelConfig& cfg, const ModelWeights& w) {
  const std::vector<std::string> problems = weight_problems(cfg, w);
  if (problems.empty()) return;
  std::string msg = "model weights: " + std::to_string(problems.size()) + " problem" +
                    (problems.size() == 1 ? "" : "s") + ":";
  for (const std::string& p : problems) msg += "\n  " + p;
  TFP_FAIL(msg);
}

ModelWeights random_weights(const ModelConfig& cfg, uint64_t seed, float std_dev,
                            bool randomize_norms_and_biases) {
  ModelWeights w = ModelWeights::for_config(cfg);
  // mt19937_64 is specified bit-exactly by the standard; std::normal_distribution is not
  // (libstdc++ and Emscripten's libc++ differ), so draw normals by Box–Muller ourselves.
  std::mt19937_64 rng(seed);
  auto uniform = [&] { return (static_cast<double>(rng() >> 11) + 0.5) * 0x1.0p-53; };  // (0,1)
  auto normal = [&] {
    return std::sqrt(-2.0 * std::log(uniform())) * std::cos(6.283185307179586 * uniform());
  };
  for (WeightSlot& s : weight_slots(cfg, w)) {
    const bool is_gamma = s.role.size() > 6 && s.role.ends_with(".gamma");
    const bool is_shift = s.role.ends_with(".bias") || s.role.ends_with(".beta");
    if (!s.required && !is_shift) continue;  // an optional untied copy (mlm.decoder): tied
    Tensor t(s.expected_now());
    for (float& x : t.data) {
      if (is_gamma) x = 1.0f + (randomize_norms_and_biases ? 0.1f * static_cast<float>(normal()) : 0.0f);
      else if (is_shift) x = randomize_norms_and_biases ? 0.1f * static_cast<float>(normal()) : 0.0f;
      else x = std_dev * static_cast<float>(normal());
    }
    *s.view = w.own(std::move(t));
  }
  return w;
}

}  // namespace tfp::model
