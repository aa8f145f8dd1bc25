// Model assembly: embeddings, the layer stacks, final norms and heads, wired per
// architecture. The maths lives in nn/; this file decides what goes where and checks
// that inputs fit the config before any layer sees them.
#include "model/transformer.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "kernels/kernels.h"
#include "nn/feed_forward.h"
#include "nn/layer_norm.h"
#include "nn/linear.h"
#include "nn/positional_alibi.h"
#include "nn/positional_learned.h"
#include "nn/positional_relative.h"
#include "nn/positional_rope.h"
#include "nn/positional_sinusoidal.h"

namespace tfp::model {

nn::LayerOptions layer_options(const ModelConfig& cfg) {
  nn::LayerOptions o;
  o.n_heads = static_cast<int>(cfg.n_heads);
  o.activation = cfg.activation;
  o.norm_first = cfg.norm_first;
  o.parallel_residual = cfg.parallel_residual;
  o.n_kv_heads = static_cast<int>(cfg.n_kv_heads);
  o.head_dim = static_cast<int>(cfg.head_dim_override);
  o.attn_scale = cfg.attn_scale;
  o.attn_softcap = cfg.attn_softcap;
  return o;
}

nn::RopeConfig rope_config(const ModelConfig& cfg, bool local) {
  nn::RopeConfig r;
  r.pairing = cfg.rope.interleaved ? nn::RopePairing::Interleaved : nn::RopePairing::HalfSplit;
  r.rotary_dim = static_cast<int>(static_cast<double>(cfg.head_dim()) * cfg.rope.fraction);
  const bool own_local = local && cfg.rope.local_base > 0;
  r.base = own_local ? cfg.rope.local_base : cfg.rope.base;
  if (!own_local) {  // the scaling belongs to the global layers (Gemma 3's local ones keep theirs)
    r.scaling = cfg.rope.scaling;
    r.factor = cfg.rope.factor;
    r.low_freq_factor = cfg.rope.low_freq_factor;
    r.high_freq_factor = cfg.rope.high_freq_factor;
    r.original_max_positions = cfg.rope.original_max_positions;
  }
  return r;
}

nn::LayerOptions layer_options(const ModelConfig& cfg, const ModelWeights& w, bool encoder_side, size_t i) {
  nn::LayerOptions o = layer_options(cfg);
  const bool local = cfg.layer_window(encoder_side, i) > 0;
  switch (cfg.positional) {
    case Positional::rope: o.self_hooks.rotate = nn::rope_rotation(rope_config(cfg, local)); break;
    case Positional::alibi:
      o.self_hooks.score_bias = nn::alibi_score_bias(static_cast<int>(cfg.n_heads), /*symmetric=*/encoder_side);
      break;
    case Positional::relative: {
      nn::RelativePositionBias rel;
      rel.table = encoder_side ? w.encoder_relative_bias : w.decoder_relative_bias;
      rel.bucketing = nn::RelativeBucketing::T5Log;
      rel.bidirectional = encoder_side;
      rel.max_distance = cfg.relative.max_distance;
      o.self_hooks.score_bias = rel.hook();
      break;
    }
    default: break;  // none, learned, sinusoidal: added to the embeddings
  }
  return o;
}

nn::AttentionMask layer_mask(const ModelConfig& cfg, const nn::AttentionMask& base, bool encoder_side, size_t i) {
  nn::AttentionMask m = base;
  // A window of W keys: itself and the W - 1 before (the mask's window counts distance).
  const int64_t W = cfg.layer_window(encoder_side, i);
  if (W > 1) m.window = static_cast<int>(W - 1);
  return m;
}

namespace {

// Checks a mask against the (Tq, Tk) attention it will be used in, naming it.
void check_mask(const nn::AttentionMask& m, int64_t Tq, int64_t Tk, const char* op,
                const char* what) {
  TFP_CHECK(m.key_padding.empty() || static_cast<int64_t>(m.key_padding.size()) == Tk, op, ": ",
            what, " key padding has ", m.key_padding.size(), " entries, expected ", Tk);
  if (!m.additive.empty()) {
    const Shape& s = m.additive.shape;
    const bool ok = (s.size() == 2 && s[0] == Tq && s[1] == Tk) ||
                    (s.size() == 3 && s[1] == Tq && s[2] == Tk);
    TFP_CHECK(ok, op, ": ", what, " mask has shape ", shape_str(s), ", expected [", Tq, ", ", Tk,
              "] or [H, ", Tq, ", ", Tk, "]");
  }
}

void check_input(const TensorView& x, const ModelConfig& cfg, const char* op, const char* what) {
  TFP_CHECK(x.rank() == 2 && x.dim(1) == cfg.d_model, op, ": ", what, " has shape ",
            shape_str(x.shape), ", expected (tokens, ", cfg.d_model, ")");
  TFP_CHECK(x.dim(0) > 0, op, ": ", what, " is an empty sequence ", shape_str(x.shape),
            " (needs at least one token)");
}

void check_arch(const ModelConfig& cfg, Architecture want, const char* op) {
  TFP_CHECK(cfg.architecture == want, op, ": needs an ", architecture_name(want),
            " model, this one is ", architecture_name(cfg.architecture));
}

const EmbeddingWeights& target_embeddings(const ModelConfig& cfg, const ModelWeights& w) {
  const bool separate =
      cfg.architecture == Architecture::encoder_decoder && !cfg.shared_src_tgt_embeddings;
  return separate ? w.tgt_embed : w.embed;
}

void add_to(Tensor& x, const Tensor& y) {
  for (size_t i = 0; i < x.data.size(); ++i) x.data[i] += y.data[i];
}

Tensor copy_of(const TensorView& x) {
  return Tensor(x.shape, std::vector<float>(x.data, x.data + x.numel()));
}

}  // namespace

Tensor sinusoidal_positions(int64_t pos0, int64_t T, int64_t C) {
  return nn::sinusoidal_encoding(T, C, pos0);
}

Tensor token_rows(const ModelConfig& cfg, const EmbeddingWeights& e, std::span<const int32_t> ids) {
  TFP_CHECK(cfg.has_embeddings, "embed: this model takes embeddings as input, not token ids");
  const int64_t T = static_cast<int64_t>(ids.size()), C = cfg.d_model, V = cfg.vocab_size;
  TFP_CHECK(T > 0, "embed: empty input (0 tokens)");
  expect_shape("embed", "token embedding", e.token.shape, {V, C});
  Tensor x({T, C});
  for (int64_t t = 0; t < T; ++t) {
    const int32_t id = ids[t];
    TFP_CHECK(id >= 0 && id < V, "embed: token id ", id, " at position ", t,
              " is out of range [0, ", V, ")");
    float* row = x.row(t);
    if (!e.token8.empty()) {  // an int8 table: dequantise the one row
      const int8_t* q = e.token8.q + static_cast<int64_t>(id) * C;
      for (int64_t c = 0; c < C; ++c) row[c] = static_cast<float>(q[c]) * e.token8.scale[id];
    } else if (e.token16.empty()) {
      std::copy_n(e.token.data + static_cast<int64_t>(id) * C, C, row);
    } else {  // a 16-bit table: widen the one row
      const uint16_t* src = e.token16.data + static_cast<int64_t>(id) * C;
      if (e.token16.bf16) kernels::bf16_to_f32(src, row, static_cast<size_t>(C));
      else kernels::f16_to_f32(src, row, static_cast<size_t>(C));
    }
  }
  return x;
}

Tensor embedding_sum(const ModelConfig& cfg, const EmbeddingWeights& e, Tensor x,
                     std::span<const int32_t> token_types, int64_t pos0) {
  const int64_t T = x.dim(0), C = cfg.d_model;
  if (cfg.embedding_scale != 1.0f)
    for (float& v : x.data) v *= cfg.embedding_scale;
  if (cfg.positional == Positional::learned) {
    const int64_t P = e.position.empty() ? 0 : e.position.dim(0);
    TFP_CHECK(!e.position.empty(), "embed: learned positions configured but no position table");
    TFP_CHECK(pos0 + T + cfg.learned_offset <= P, "embed: positions ", pos0, "..", pos0 + T - 1,
              " exceed the context length max_positions = ", P - cfg.learned_offset);
    nn::add_learned_positions(x, e.position, pos0 + cfg.learned_offset);
  } else if (cfg.positional == Positional::sinusoidal) {
    if (cfg.sinusoidal_halves) {
      const Tensor pe = nn::sinusoidal_encoding(T, C, pos0, 10000.0, nn::SinusoidalLayout::Halves);
      add_to(x, pe);
    } else {
      nn::add_sinusoidal_encoding(x, pos0);
    }
  }
  if (!e.token_type.empty()) {
    TFP_CHECK(token_types.empty() || static_cast<int64_t>(token_types.size()) == T,
              "embed: ", token_types.size(), " token types for ", T, " tokens");
    const int64_t Tt = e.token_type.dim(0);
    for (int64_t t = 0; t < T; ++t) {
      const int32_t ty = token_types.empty() ? 0 : token_types[t];
      TFP_CHECK(ty >= 0 && ty < Tt, "embed: token type ", ty, " at position ", t,
                " is out of range [0, ", Tt, ")");
      for (int64_t c = 0; c < C; ++c) x.row(t)[c] += e.token_type.data[ty * C + c];
    }
  } else {
    TFP_CHECK(token_types.empty(), "embed: token types given but the model has none");
  }
  return x;
}

Tensor embed(const ModelConfig& cfg, const EmbeddingWeights& e, std::span<const int32_t> ids,
             std::span<const int32_t> token_types, int64_t pos0, const nn::Scope& scope) {
  Tensor x = embedding_sum(cfg, e, token_rows(cfg, e, ids), token_types, pos0);
  if (cfg.embedding_norm) nn::layer_norm_inplace(x, e.norm, "embed.norm");
  scope.emit("out", x);
  return x;
}

Tensor encoder_stack(const ModelConfig& cfg, const ModelWeights& w, const TensorView& x,
                     const nn::AttentionMask& mask, nn::Observer* obs) {
  check_input(x, cfg, "encoder", "input");
  check_mask(mask, x.dim(0), x.dim(0), "encoder", "source");
  TFP_CHECK(static_cast<int64_t>(w.encoder_layers.size()) == cfg.n_encoder_layers,
            "encoder: ", w.encoder_layers.size(), " layers bound, config says ",
            cfg.n_encoder_layers);
  const nn::Scope root(obs);
  Tensor h = copy_of(x);  // (S, C)
  for (size_t i = 0; i < w.encoder_layers.size(); ++i)
    h = nn::transformer_block(h.view(), {}, w.encoder_layers[i], layer_options(cfg, w, true, i),
                              layer_mask(cfg, mask, true, i), {}, nullptr, root.sub("enc", static_cast<int>(i)));
  if (cfg.encoder_final_norm) {
    nn::layer_norm_inplace(h, w.encoder_norm, "encoder.norm");
    root.sub("enc").sub("norm").emit("out", h);
  }
  return h;
}

Tensor decoder_stack(const ModelConfig& cfg, const ModelWeights& w, const TensorView& y,
                     const TensorView& memory, const nn::AttentionMask& self_mask,
                     const nn::AttentionMask& memory_mask,
                     std::vector<nn::DecoderLayerCache>* caches, nn::Observer* obs, int64_t first) {
  check_input(y, cfg, "decoder", "input");
  TFP_CHECK(first >= 0 && first <= cfg.n_decoder_layers, "decoder: first block ", first, " is not 0..",
            cfg.n_decoder_layers);
  TFP_CHECK(first == 0 || !caches, "decoder: a cached pass starts at block 0, not ", first);
  TFP_CHECK(static_cast<int64_t>(w.decoder_layers.size()) == cfg.n_decoder_layers,
            "decoder: ", w.decoder_layers.size(), " layers bound, config says ",
            cfg.n_decoder_layers);
  TFP_CHECK(!caches || caches->size() == w.decoder_layers.size(), "decoder: cache has ",
            caches ? caches->size() : 0, " layers, model has ", w.decoder_layers.size());
  const int64_t T = y.dim(0);
  const int64_t Tk = caches && !caches->empty() ? (*caches)[0].self.length + T : T;
  check_mask(self_mask, T, Tk, "decoder", "target");
  const bool cross = cfg.architecture == Architecture::encoder_decoder;
  const bool memory_cached = caches && !caches->empty() && (*caches)[0].has_memory();
  if (cross && !memory_cached) {
    check_input(memory, cfg, "decoder", "memory");
    check_mask(memory_mask, T, memory.dim(0), "decoder", "memory");
  }
  const nn::Scope root(obs);
  Tensor h = copy_of(y);  // (T, C)
  for (size_t i = static_cast<size_t>(first); i < w.decoder_layers.size(); ++i)
    h = nn::transformer_block(h.view(), cross ? memory : TensorView{}, w.decoder_layers[i],
                              layer_options(cfg, w, false, i), layer_mask(cfg, self_mask, false, i), memory_mask,
                              caches ? &(*caches)[i] : nullptr, root.sub("dec", static_cast<int>(i)));
  if (cfg.decoder_final_norm) {
    nn::layer_norm_inplace(h, w.decoder_norm, "decoder.norm");
    root.sub("dec").sub("norm").emit("out", h);
  }
  return h;
}

TensorView logit_rows(const Tensor& hidden, int64_t last_logits) {
  const int64_t T = hidden.dim(0), k = last_logits > 0 ? std::min(last_logits, T) : T;
  return TensorView(hidden.row(T - k), {k, hidden.dim(1)});
}

nn::Linear lm_head_of(const ModelConfig& cfg, const ModelWeights& w) {
  nn::Linear head = w.lm_head;
  if (cfg.tied_lm_head) {
    head = nn::Linear{};
    head.weight = target_embeddings(cfg, w).token;
    head.weight16 = target_embeddings(cfg, w).token16;
    head.weight8 = target_embeddings(cfg, w).token8;  // per-row scales = per-output scales
  }
  TFP_CHECK(!head.empty(), "lm_logits: the model has no LM head weight");
  return head;
}

nn::Linear mlm_decoder_of(const ModelWeights& w) {
  nn::Linear dec;
  dec.weight = w.mlm_decoder.empty() ? w.embed.token : w.mlm_decoder;
  if (w.mlm_decoder.empty()) dec.weight16 = w.embed.token16;
  if (w.mlm_decoder.empty()) dec.weight8 = w.embed.token8;
  dec.bias = w.mlm_bias;
  return dec;
}

void lm_logits_into(const ModelConfig& cfg, const ModelWeights& w, const TensorView& hidden, int64_t v_begin,
                    int64_t v_end, float* out) {
  const nn::Linear head = lm_head_of(cfg, w);
  if (v_end < 0) v_end = head.out_features();
  if (cfg.lm_head_scale != 1.0f) {  // T5's tied head reads the hidden states × d_model^-½
    Tensor scaled = copy_of(hidden);
    for (float& v : scaled.data) v *= cfg.lm_head_scale;
    nn::linear_slice_into(scaled.view(), head, v_begin, v_end, out, "lm_head");
  } else {
    nn::linear_slice_into(hidden, head, v_begin, v_end, out, "lm_head");
  }
  if (cfg.final_softcap > 0.0f) {  // Gemma 2: logits squashed into (-cap, cap)
    const int64_t n = hidden.numel() / std::max<int64_t>(1, hidden.dim(-1)) * (v_end - v_begin);
    for (int64_t i = 0; i < n; ++i) out[i] = cfg.final_softcap * std::tanh(out[i] / cfg.final_softcap);
  }
}

Tensor lm_logits(const ModelConfig& cfg, const ModelWeights& w, const TensorView& hidden,
                 nn::Observer* obs, int64_t v_begin, int64_t v_end) {
  if (v_end < 0) v_end = lm_head_of(cfg, w).out_features();
  TFP_CHECK(hidden.rank() >= 1, "lm_head: hidden must have at least 1 dimension");
  Shape shape = hidden.shape;
  shape.back() = std::max<int64_t>(0, v_end - v_begin);
  Tensor logits(shape);  // (T, v_end - v_begin); lm_logits_into checks the range and widths
  lm_logits_into(cfg, w, hidden, v_begin, v_end, logits.ptr());
  nn::Scope(obs).emit("logits", logits);
  return logits;
}

Tensor encoder_head(const ModelConfig& cfg, const ModelWeights& w, const TensorView& hidden,
                    nn::Observer* obs) {
  Tensor out;
  switch (cfg.encoder_head) {
    case EncoderHead::none: return out;
    case EncoderHead::token_classifier:
      out = nn::linear(hidden, w.classifier, "classifier");  // (T, n_labels)
      break;
    case EncoderHead::masked_lm: {
      // BERT: dense → activation (config hidden_act; erf GELU) → LayerNorm → decoder
      // (V, C), tied to the token embeddings unless the file stored its own, + bias (V).
      Tensor t = nn::linear(hidden, w.mlm_transform, "mlm.transform");  // (T, C)
      nn::apply_activation(t, cfg.activation);
      nn::layer_norm_inplace(t, w.mlm_norm, "mlm.norm");
      out = nn::linear(t.view(), mlm_decoder_of(w), "mlm.decoder");  // (T, V)
      break;
    }
  }
  nn::Scope(obs).emit("logits", out);
  return out;
}

ForwardResult forward_encoder_only(const ModelConfig& cfg, const ModelWeights& w,
                                   std::span<const int32_t> ids,
                                   std::span<const int32_t> token_types,
                                   const std::vector<uint8_t>& padding, nn::Observer* obs, int64_t last_logits) {
  check_arch(cfg, Architecture::encoder_only, "forward_encoder_only");
  const nn::Scope root(obs);
  const Tensor x = embed(cfg, w.embed, ids, token_types, 0, root.sub("embed"));
  nn::AttentionMask mask;
  mask.key_padding = padding;
  ForwardResult r;
  r.hidden = encoder_stack(cfg, w, x.view(), mask, obs);
  if (last_logits >= 0) r.logits = encoder_head(cfg, w, logit_rows(r.hidden, last_logits), obs);
  return r;
}

ForwardResult forward_decoder_only(const ModelConfig& cfg, const ModelWeights& w,
                                   std::span<const int32_t> ids, nn::Observer* obs, int64_t last_logits) {
  check_arch(cfg, Architecture::decoder_only, "forward_decoder_only");
  const nn::Scope root(obs);
  const Tensor x = embed(cfg, w.embed, ids, {}, 0, root.sub("embed"));
  nn::AttentionMask causal;
  causal.causal = true;  // token t sees tokens 0..t only
  ForwardResult r;
  r.hidden = decoder_stack(cfg, w, x.view(), {}, causal, {}, nullptr, obs);
  if (cfg.lm_head && last_logits >= 0) r.logits = lm_logits(cfg, w, logit_rows(r.hidden, last_logits), obs);
  return r;
}

ForwardResult forward_decoder_only_from(const ModelConfig& cfg, const ModelWeights& w, const TensorView& resid,
                                        int64_t first, nn::Observer* obs, int64_t last_logits) {
  check_arch(cfg, Architecture::decoder_only, "forward_decoder_only_from");
  nn::AttentionMask causal;
  causal.causal = true;
  ForwardResult r;
  r.hidden = decoder_stack(cfg, w, resid, {}, causal, {}, nullptr, obs, first);
  if (cfg.lm_head && last_logits >= 0) r.logits = lm_logits(cfg, w, logit_rows(r.hidden, last_logits), obs);
  return r;
}

Tensor encode_source(const ModelConfig& cfg, const ModelWeights& w,
                     std::span<const int32_t> src_ids, const std::vector<uint8_t>& src_padding,
                     nn::Observer* obs) {
  check_arch(cfg, Architecture::encoder_decoder, "encode_source");
  const nn::Scope root(obs);
  const Tensor x = embed(cfg, w.embed, src_ids, {}, 0, root.sub("enc").sub("embed"));
  nn::AttentionMask mask;
  mask.key_padding = src_padding;
  return encoder_stack(cfg, w, x.view(), mask, obs);
}

ForwardResult forward_encoder_decoder(const ModelConfig& cfg, const ModelWeights& w,
                                      std::span<const int32_t> src_ids,
                                      std::span<const int32_t> tgt_ids,
                                      const std::vector<uint8_t>& src_padding,
                                      nn::Observer* obs, int64_t last_logits) {
  const Tensor memory = encode_source(cfg, w, src_ids, src_padding, obs);  // (S, C)
  const nn::Scope root(obs);
  const Tensor y = embed(cfg, target_embeddings(cfg, w), tgt_ids, {}, 0,
                         root.sub("dec").sub("embed"));
  nn::AttentionMask self_mask;
  self_mask.causal = true;
  nn::AttentionMask memory_mask;
  memory_mask.key_padding = src_padding;  // padded source tokens are never attended to
  ForwardResult r;
  r.hidden = decoder_stack(cfg, w, y.view(), memory.view(), self_mask, memory_mask, nullptr, obs);
  if (cfg.lm_head && last_logits >= 0) r.logits = lm_logits(cfg, w, logit_rows(r.hidden, last_logits), obs);
  return r;
}

Tensor bool_mask(const std::vector<uint8_t>& masked, int64_t rows, int64_t cols) {
  TFP_CHECK(static_cast<int64_t>(masked.size()) == rows * cols, "bool_mask: ", masked.size(),
            " entries for a [", rows, ", ", cols, "] mask");
  Tensor m({rows, cols});
  for (size_t i = 0; i < masked.size(); ++i)
    m.data[i] = masked[i] ? -std::numeric_limits<float>::infinity() : 0.0f;
  return m;
}

Tensor transformer_encoder_forward(const ModelConfig& cfg, const ModelWeights& w,
                                   const TensorView& src, const TransformerMasks& masks,
                                   nn::Observer* obs) {
  TFP_CHECK(cfg.has_encoder(), "transformer_encoder_forward: the model has no encoder");
  check_input(src, cfg, "transformer_encoder_forward", "src");
  nn::AttentionMask m;
  m.additive = masks.src_mask;
  m.key_padding = masks.src_key_padding;
  return encoder_stack(cfg, w, src, m, obs);
}

Tensor transformer_decoder_forward(const ModelConfig& cfg, const ModelWeights& w,
                                   const TensorView& tgt, const TensorView& memory,
                                   const TransformerMasks& masks, nn::Observer* obs) {
  check_arch(cfg, Architecture::encoder_decoder, "transformer_decoder_forward");
  check_input(tgt, cfg, "transformer_decoder_forward", "tgt");
  check_input(memory, cfg, "transformer_decoder_forward", "memory");
  nn::AttentionMask self_mask;
  self_mask.causal = masks.tgt_causal;
  self_mask.additive = masks.tgt_mask;
  self_mask.key_padding = masks.tgt_key_padding;
  nn::AttentionMask memory_mask;
  memory_mask.additive = masks.memory_mask;
  memory_mask.key_padding = masks.memory_key_padding;
  return decoder_stack(cfg, w, tgt, memory, self_mask, memory_mask, nullptr, obs);
}

Tensor transformer_forward(const ModelConfig& cfg, const ModelWeights& w, const TensorView& src,
                           const TensorView& tgt, const TransformerMasks& masks,
                           nn::Observer* obs) {
  check_arch(cfg, Architecture::encoder_decoder, "transformer_forward");
  const Tensor memory = transformer_encoder_forward(cfg, w, src, masks, obs);  // (S, C)
  return transformer_decoder_forward(cfg, w, tgt, memory.view(), masks, obs);
}

}  // namespace tfp::model
