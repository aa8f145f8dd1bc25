// The role table: every tensor a config needs, its role name and its expected shape.
// Binding, validation and random initialisation all walk this one list, so adding a
// weight to a model means adding one line here.
#include "model/weights.h"

#include <cmath>
#include <random>

#include "kernels/kernels.h"

namespace tfp::model {

ModelWeights ModelWeights::for_config(const ModelConfig& cfg) {
  ModelWeights w;
  w.encoder_layers.resize(cfg.has_encoder() ? cfg.n_encoder_layers : 0);
  w.decoder_layers.resize(cfg.has_decoder() ? cfg.n_decoder_layers : 0);
  auto shape_norm = [&](nn::LayerNormWeights& n) {
    n.eps = cfg.layer_norm_eps;
    n.rms = cfg.norm == NormKind::rms_norm;
    n.plus_one = cfg.norm_plus_one;
  };
  for (auto* n : {&w.embed.norm, &w.tgt_embed.norm, &w.encoder_norm, &w.decoder_norm}) shape_norm(*n);
  w.mlm_norm.eps = cfg.layer_norm_eps;  // BERT's head: always a LayerNorm
  for (auto* layers : {&w.encoder_layers, &w.decoder_layers})
    for (auto& l : *layers)
      for (auto* n : {&l.norm_attn, &l.post_attn_norm, &l.norm_cross, &l.norm_ffn, &l.post_ffn_norm,
                      &l.attn.q_norm, &l.attn.k_norm, &l.cross.q_norm, &l.cross.k_norm})
        shape_norm(*n);
  return w;
}

TensorView ModelWeights::own(Tensor t) {
  storage.push_back(std::move(t));
  return storage.back().view();
}

TensorView WeightSlot::f32(Tensor& tmp) const {
  if (!view->empty()) return *view;
  tmp = Tensor(view->shape);
  f32_into(tmp.ptr());
  return tmp.view();
}

void WeightSlot::f32_into(float* dst) const {
  const size_t n = static_cast<size_t>(numel_of(view->shape));
  if (view->empty() && int8 && !int8->empty()) {  // (rows, cols) int8, one scale per row
    const int64_t cols = view->shape.size() == 2 ? view->shape[1] : 0;
    for (size_t i = 0; i < n; ++i)
      dst[i] = static_cast<float>(int8->q[i]) * int8->scale[cols ? static_cast<int64_t>(i) / cols : 0];
  } else if (view->empty() && half && !half->empty()) {
    if (half->bf16) kernels::bf16_to_f32(half->data, dst, n);
    else kernels::f16_to_f32(half->data, dst, n);
  } else if (n > 0) {
    std::copy_n(view->data, n, dst);
  }
}

Shape WeightSlot::expected_now() const {
  if (linear && view == &linear->weight && linear->layout == nn::WeightLayout::InOut &&
      expected.size() == 2)
    return {expected[1], expected[0]};
  return expected;
}

namespace {

struct SlotList {
  const ModelConfig& cfg;
  std::vector<WeightSlot> slots;

  void add(std::string role, TensorView* v, Shape s, bool required = true) {
    slots.push_back({std::move(role), v, std::move(s), nullptr, required});
  }
  // A Linear in → out: weight (out, in) required, bias (out) optional unless `bias` is false.
  void linear(const std::string& role, nn::Linear& l, int64_t out, int64_t in, bool bias = true) {
    slots.push_back({role + ".weight", &l.weight, {out, in}, &l, true, &l.weight16, &l.weight8});
    if (bias) slots.push_back({role + ".bias", &l.bias, {out}, &l, false});
  }
  void norm(const std::string& role, nn::LayerNormWeights& n, int64_t C) {
    add(role + ".gamma", &n.gamma, {C});
    if (cfg.norm == NormKind::layer_norm) add(role + ".beta", &n.beta, {C});
  }
  void attention(const std::string& role, nn::AttentionWeights& a) {
    const int64_t C = cfg.d_model, D = cfg.head_dim();
    const int64_t Oq = cfg.n_heads * D, Okv = cfg.kv_heads() * D;
    if (cfg.fused_qkv) {
      linear(role + ".qkv", a.qkv, Oq + 2 * Okv, C, cfg.qkv_bias);
    } else {
      linear(role + ".q", a.q, Oq, C, cfg.qkv_bias);
      linear(role + ".k", a.k, Okv, C, cfg.qkv_bias);
      linear(role + ".v", a.v, Okv, C, cfg.qkv_bias);
    }
    linear(role + ".out", a.out, C, Oq, cfg.out_bias);
    if (cfg.qk_norm) {
      norm(role + ".q_norm", a.q_norm, D);
      norm(role + ".k_norm", a.k_norm, D);
    }
  }
  void ffn(const std::string& role, nn::FeedForwardWeights& f) {
    const int64_t C = cfg.d_model, F = cfg.d_ff;
    if (cfg.gated_ffn) linear(role + ".gate", f.gate, F, C, cfg.ffn_bias);
    linear(role + ".fc1", f.fc1, F, C, cfg.ffn_bias);
    linear(role + ".fc2", f.fc2, C, F, cfg.ffn_bias);
  }
  // The layer's sublayers and their norms; cross-attention when `cross`.
  void layer(const std::string& p, nn::BlockWeights& l, bool cross) {
    const int64_t C = cfg.d_model;
    attention(p + ".attn", l.attn);
    norm(p + ".norm_attn", l.norm_attn, C);
    if (cfg.sandwich_norms) norm(p + ".post_attn_norm", l.post_attn_norm, C);
    if (cross) {
      attention(p + ".cross", l.cross);
      norm(p + ".norm_cross", l.norm_cross, C);
    }
    if (cfg.d_ff == 0) return;  // attention-only layers: no MLP and no norm before it
    ffn(p + ".ffn", l.ffn);
    norm(p + ".norm_ffn", l.norm_ffn, C);
    if (cfg.sandwich_norms) norm(p + ".post_ffn_norm", l.post_ffn_norm, C);
  }
  void embeddings(const std::string& role, EmbeddingWeights& e, const ModelConfig& c) {
    add(role + ".token", &e.token, {c.vocab_size, c.d_model});
    slots.back().half = &e.token16;
    slots.back().int8 = &e.token8;
    if (c.positional == Positional::learned)
      add(role + ".position", &e.position, {c.max_positions + c.learned_offset, c.d_model});
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
  const int64_t C = cfg.d_model, V = cfg.vocab_size;
  SlotList s{cfg, {}};
  if (cfg.has_embeddings) {
    s.embeddings("embed", w.embed, cfg);
    if (cfg.architecture == Architecture::encoder_decoder && !cfg.shared_src_tgt_embeddings)
      s.embeddings("tgt_embed", w.tgt_embed, cfg);
  }
  const bool relative = cfg.positional == Positional::relative;
  const Shape relative_shape{cfg.relative.num_buckets, cfg.n_heads};
  if (relative && !w.encoder_layers.empty()) s.add("enc.relative_bias", &w.encoder_relative_bias, relative_shape);
  for (size_t i = 0; i < w.encoder_layers.size(); ++i)
    s.layer("enc." + std::to_string(i), w.encoder_layers[i], false);
  if (cfg.has_encoder() && cfg.encoder_final_norm) s.norm("enc.norm", w.encoder_norm, C);
  const bool cross = cfg.architecture == Architecture::encoder_decoder;
  if (relative && !w.decoder_layers.empty()) s.add("dec.relative_bias", &w.decoder_relative_bias, relative_shape);
  for (size_t i = 0; i < w.decoder_layers.size(); ++i)
    s.layer("dec." + std::to_string(i), w.decoder_layers[i], cross);
  if (cfg.has_decoder() && cfg.decoder_final_norm) s.norm("dec.norm", w.decoder_norm, C);
  if (cfg.has_embeddings && cfg.has_decoder() && cfg.lm_head && !cfg.tied_lm_head)
    s.linear("lm_head", w.lm_head, V, C);
  if (cfg.architecture == Architecture::encoder_only) {
    if (cfg.encoder_head == EncoderHead::token_classifier)
      s.linear("classifier", w.classifier, cfg.n_labels, C);
    if (cfg.encoder_head == EncoderHead::masked_lm) {
      s.linear("mlm.transform", w.mlm_transform, C, C);
      s.add("mlm.norm.gamma", &w.mlm_norm.gamma, {C});  // BERT's head: a LayerNorm
      s.add("mlm.norm.beta", &w.mlm_norm.beta, {C});
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
    if (s.empty()) {
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
      if (is_gamma) x = (cfg.norm_plus_one ? 0.0f : 1.0f) + (randomize_norms_and_biases ? 0.1f * static_cast<float>(normal()) : 0.0f);
      else if (is_shift) x = randomize_norms_and_biases ? 0.1f * static_cast<float>(normal()) : 0.0f;
      else x = std_dev * static_cast<float>(normal());
    }
    *s.view = w.own(std::move(t));
  }
  return w;
}

}  // namespace tfp::model
