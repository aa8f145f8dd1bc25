// See train_model.h. The forward mirrors model/transformer.cpp and nn/*_layer.cpp
// (same sub-layer order, same pre/post-LN placement); the backward walks it in reverse.
#include "train/train_model.h"

#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>

#include "model/transformer.h"
#include "nn/positional_alibi.h"
#include "nn/positional_rope.h"
#include "nn/positional_sinusoidal.h"
#include "model/transformer.h"
#include "train/dropout.h"
#include "train/embedding_grad.h"
#include "train/layer_norm_grad.h"
#include "train/linear_grad.h"
#include "train/rng.h"

namespace tfp::train {

using model::Architecture;

namespace {

Activation to_train_activation(nn::Activation a) {
  switch (a) {
    case nn::Activation::relu: return Activation::Relu;
    case nn::Activation::gelu_erf: return Activation::GeluErf;
    case nn::Activation::gelu_tanh: return Activation::GeluTanh;
    case nn::Activation::silu: TFP_FAIL("trainer: the silu activation is not trainable yet (relu, gelu, gelu_new)");
  }
  return Activation::Relu;
}

bool ends_with(const std::string& s, const char* suffix) {
  const size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

template <class T>
void add_into(std::vector<T>& dst, const T* src, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] += src[i];
}

}  // namespace

template <class T>
TrainModel<T>::TrainModel(const model::ModelConfig& cfg) : cfg_(cfg) {
  model::check_config(cfg);
  const char* op = "train model";
  const bool enc_only = cfg.architecture == Architecture::encoder_only;
  TFP_CHECK(!enc_only || cfg.encoder_head == model::EncoderHead::token_classifier, op,
            ": encoder_only models are trainable with a token_classifier head only");
  TFP_CHECK(cfg.has_embeddings && (enc_only || cfg.lm_head), op,
            ": needs token embeddings and an LM head (or, encoder-only, a token classifier)");
  // Learned positions are a parameter; sinusoidal ones a fixed table added the same way
  // (nn's table, the one inference adds, so both compute the same sums); none adds nothing.
  if (cfg.positional == model::Positional::sinusoidal) {
    const Tensor pe = nn::sinusoidal_encoding(cfg.max_positions, cfg.d_model);
    fixed_positions_.assign(pe.data.begin(), pe.data.end());
  }
  // Positions inside attention: the same θ and slopes inference computes (nn/positional_*).
  if (cfg.positional == model::Positional::rope) {
    const nn::RopeConfig r = model::rope_config(cfg, false);
    TFP_CHECK(r.pairing == nn::RopePairing::HalfSplit, op, ": RoPE trains with half-split pairs only");
    rope_theta_ = nn::rope_inv_freq(r, r.rotary_dim);
  }
  if (cfg.positional == model::Positional::alibi) alibi_slopes_ = nn::alibi_slopes(static_cast<int>(cfg.n_heads));
  TFP_CHECK(cfg.positional != model::Positional::relative, op, ": relative position buckets are not trainable");
  TFP_CHECK(cfg.embedding_scale == 1.0f && !cfg.embedding_norm && cfg.type_vocab_size == 0, op,
            ": embedding scale, embedding LayerNorm and token types are not supported");
  // The trainer's layers are the classic ones: LayerNorm, plain MLP, H heads of C/H, 1/√D.
  TFP_CHECK(cfg.norm == model::NormKind::layer_norm && !cfg.sandwich_norms && !cfg.parallel_residual &&
                !cfg.gated_ffn && cfg.n_kv_heads == 0 && cfg.head_dim_override == 0 && cfg.attn_scale == 0.0f &&
                cfg.attn_softcap == 0.0f && !cfg.qk_norm && cfg.layer_windows.empty() &&
                cfg.lm_head_scale == 1.0f && cfg.final_softcap == 0.0f && cfg.learned_offset == 0 &&
                !cfg.sinusoidal_halves,
            op, ": only LayerNorm layers with a plain MLP and full multi-head attention are trainable "
            "(not RMSNorm, gated MLPs, grouped-query heads, windows or soft-caps)");
  TFP_CHECK(cfg.fused_qkv, op, ": needs fused q|k|v projections");
  TFP_CHECK(cfg.architecture != Architecture::encoder_decoder || cfg.shared_src_tgt_embeddings,
            op, ": encoder_decoder needs shared source/target embeddings");
  C_ = static_cast<int>(cfg.d_model);
  F_ = static_cast<int>(cfg.d_ff);
  V_ = static_cast<int>(cfg.vocab_size);
  H_ = static_cast<int>(cfg.n_heads);
  O_ = enc_only ? static_cast<int>(cfg.n_labels) : V_;
  // The engine's role table names and shapes every parameter.
  model::ModelWeights w;
  for (const model::WeightSlot& s : model::weight_slots(cfg, w))
    params.add(s.role, s.expected, s.expected.size() == 2);
  bind_params();
}

template <class T>
void TrainModel<T>::bind_params() {
  auto get = [&](const std::string& name) { return &params.get(name); };
  auto norm = [&](const std::string& p) { return Norm{get(p + ".gamma"), get(p + ".beta")}; };
  auto attn = [&](const std::string& p) {
    return Attn{get(p + ".qkv.weight"), get(p + ".qkv.bias"), get(p + ".out.weight"),
                get(p + ".out.bias")};
  };
  auto layer = [&](const std::string& p, bool cross) {
    LayerParams lp;
    lp.self = attn(p + ".attn");
    lp.norm_self = norm(p + ".norm_attn");
    if (cross) {
      lp.cross = attn(p + ".cross");
      lp.norm_cross = norm(p + ".norm_cross");
    }
    if (F_ == 0) return lp;  // attention-only layers: no MLP, no norm before it
    lp.norm_ffn = norm(p + ".norm_ffn");
    lp.fc1_w = get(p + ".ffn.fc1.weight");
    lp.fc1_b = get(p + ".ffn.fc1.bias");
    lp.fc2_w = get(p + ".ffn.fc2.weight");
    lp.fc2_b = get(p + ".ffn.fc2.bias");
    return lp;
  };
  wte_ = get("embed.token");
  wpe_ = cfg_.positional == model::Positional::learned ? get("embed.position") : nullptr;
  if (cfg_.architecture == Architecture::encoder_only) {
    head_w_ = get("classifier.weight");
    head_b_ = get("classifier.bias");
    for (int i = 0; i < cfg_.n_encoder_layers; ++i)
      enc_params_.push_back(layer("enc." + std::to_string(i), false));
    if (cfg_.encoder_final_norm) enc_norm_ = norm("enc.norm");
    enc_.resize(enc_params_.size());
    return;
  }
  if (!cfg_.tied_lm_head) {
    head_w_ = get("lm_head.weight");
    head_b_ = get("lm_head.bias");
  }
  const bool encdec = cfg_.architecture == Architecture::encoder_decoder;
  if (encdec) {
    for (int i = 0; i < cfg_.n_encoder_layers; ++i)
      enc_params_.push_back(layer("enc." + std::to_string(i), false));
    if (cfg_.encoder_final_norm) enc_norm_ = norm("enc.norm");
  }
  for (int i = 0; i < cfg_.n_decoder_layers; ++i)
    dec_params_.push_back(layer("dec." + std::to_string(i), encdec));
  if (cfg_.decoder_final_norm) dec_norm_ = norm("dec.norm");
  enc_.resize(enc_params_.size());
  dec_.resize(dec_params_.size());
}

template <class T>
void TrainModel<T>::init(uint64_t seed, double embed_std) {
  Rng rng = Rng::stream(seed, /*label "init"*/ 1);
  for (Param<T>& p : params) {
    if (ends_with(p.name, ".gamma")) {
      std::fill(p.value.begin(), p.value.end(), T(1));
    } else if (ends_with(p.name, ".beta") || ends_with(p.name, ".bias")) {
      std::fill(p.value.begin(), p.value.end(), T(0));
    } else {
      // Uniform(−a, a) has standard deviation a/√3.
      const bool embedding = p.name.rfind("embed.", 0) == 0;
      const double a = embedding ? embed_std * std::sqrt(3.0)
                                 : std::sqrt(6.0 / double(p.shape[0] + p.shape[1]));
      for (T& v : p.value) v = static_cast<T>(rng.uniform(-float(a), float(a)));
    }
  }
}

template <class T>
void TrainModel<T>::dropout_forward(std::vector<T>& mask, T* x, size_t n) {
  if (drop_p_ <= 0) {
    mask.clear();
    return;
  }
  dropout_mask(mask, drop_rng_, drop_p_, n);
  for (size_t i = 0; i < n; ++i) x[i] *= mask[i];
}

template <class T>
void TrainModel<T>::sublayer_forward(Sublayer& s, Kind kind, const LayerParams& lp, const T* x,
                                     int B, int Tn, const T* memory, int S,
                                     const AttentionMaskSpec& mask) {
  const size_t rows = static_cast<size_t>(B) * Tn, n = rows * C_;
  const Norm& nm = kind == Kind::SelfAttn ? lp.norm_self
                   : kind == Kind::CrossAttn ? lp.norm_cross : lp.norm_ffn;
  const T eps = static_cast<T>(cfg_.layer_norm_eps);
  s.in.assign(x, x + n);
  s.norm.out.resize(n);
  s.norm.mean.resize(rows);
  s.norm.rstd.resize(rows);
  s.f_out.resize(n);
  const T* fin = s.in.data();
  if (cfg_.norm_first) {
    layer_norm_forward<T>(s.norm.out.data(), s.norm.mean.data(), s.norm.rstd.data(), fin,
                          nm.gamma->data(), nm.beta->data(), int(rows), C_, eps);
    fin = s.norm.out.data();
  }
  if (kind == Kind::Ffn) {
    s.h.resize(rows * F_);
    s.a.resize(rows * F_);
    linear_forward<T>(s.h.data(), fin, lp.fc1_w->data(), lp.fc1_b->data(), int(rows), C_, F_);
    activation_forward<T>(to_train_activation(cfg_.activation), s.a.data(), s.h.data(), s.h.size());
    linear_forward<T>(s.f_out.data(), s.a.data(), lp.fc2_w->data(), lp.fc2_b->data(), int(rows), F_, C_);
  } else {
    const Attn& ap = kind == Kind::SelfAttn ? lp.self : lp.cross;
    const AttentionParams<T> w{ap.in_w->data(), ap.in_b->data(), ap.out_w->data(), ap.out_b->data()};
    const bool self = kind == Kind::SelfAttn;
    // Cross-attention reads the memory as it is: the sub-layer's norm applies to the queries.
    attention_forward<T>(s.f_out.data(), s.attn, fin, self ? fin : memory, w,
                         AttentionDims{B, Tn, self ? Tn : S, C_, H_}, mask);
  }
  dropout_forward(s.drop, s.f_out.data(), n);  // on the branch, before the residual sum
  s.out.resize(n);
  if (cfg_.norm_first) {
    for (size_t i = 0; i < n; ++i) s.out[i] = s.in[i] + s.f_out[i];  // the residual
  } else {
    s.sum.resize(n);
    for (size_t i = 0; i < n; ++i) s.sum[i] = s.in[i] + s.f_out[i];
    layer_norm_forward<T>(s.norm.out.data(), s.norm.mean.data(), s.norm.rstd.data(), s.sum.data(),
                          nm.gamma->data(), nm.beta->data(), int(rows), C_, eps);
    s.out = s.norm.out;
  }
}

template <class T>
void TrainModel<T>::sublayer_backward(Sublayer& s, Kind kind, const LayerParams& lp, T* dx,
                                      const T* dout, int B, int Tn, const T* memory, T* dmemory,
                                      int S) {
  const size_t rows = static_cast<size_t>(B) * Tn, n = rows * C_;
  const Norm& nm = kind == Kind::SelfAttn ? lp.norm_self
                   : kind == Kind::CrossAttn ? lp.norm_cross : lp.norm_ffn;
  // dF: the gradient reaching F's output; dfin: the gradient F sends to its input.
  std::vector<T> dF(n, T(0)), dfin(n, T(0));
  const T* fin;
  if (cfg_.norm_first) {
    // out = x + F(LN(x)): the residual passes dout straight through to x.
    for (size_t i = 0; i < n; ++i) dx[i] += dout[i];
    std::copy(dout, dout + n, dF.begin());
    fin = s.norm.out.data();
  } else {
    // out = LN(x + F(x)): LN's backward first, then both branches of the sum.
    layer_norm_backward<T>(dF.data(), nm.gamma->g(), nm.beta->g(), dout, s.sum.data(),
                           nm.gamma->data(), s.norm.mean.data(), s.norm.rstd.data(), int(rows), C_);
    for (size_t i = 0; i < n; ++i) dx[i] += dF[i];
    fin = s.in.data();
  }
  // F's output was multiplied by the dropout mask: so is the gradient reaching it.
  if (!s.drop.empty())
    for (size_t i = 0; i < n; ++i) dF[i] *= s.drop[i];
  if (kind == Kind::Ffn) {
    std::vector<T> da(rows * F_, T(0)), dh(rows * F_, T(0));
    linear_backward<T>(da.data(), lp.fc2_w->g(), lp.fc2_b->g(), dF.data(), s.a.data(),
                       lp.fc2_w->data(), int(rows), F_, C_);
    activation_backward<T>(to_train_activation(cfg_.activation), dh.data(), da.data(), s.h.data(),
                           dh.size());
    linear_backward<T>(dfin.data(), lp.fc1_w->g(), lp.fc1_b->g(), dh.data(), fin,
                       lp.fc1_w->data(), int(rows), C_, F_);
  } else {
    const Attn& ap = kind == Kind::SelfAttn ? lp.self : lp.cross;
    const AttentionParams<T> w{ap.in_w->data(), ap.in_b->data(), ap.out_w->data(), ap.out_b->data()};
    const AttentionGrads<T> g{ap.in_w->g(), ap.in_b->g(), ap.out_w->g(), ap.out_b->g()};
    const bool self = kind == Kind::SelfAttn;
    attention_backward<T>(dfin.data(), self ? dfin.data() : dmemory, g, dF.data(), s.attn, fin,
                          self ? fin : memory, w, AttentionDims{B, Tn, self ? Tn : S, C_, H_});
  }
  if (cfg_.norm_first)
    layer_norm_backward<T>(dx, nm.gamma->g(), nm.beta->g(), dfin.data(), s.in.data(),
                           nm.gamma->data(), s.norm.mean.data(), s.norm.rstd.data(), int(rows), C_);
  else
    for (size_t i = 0; i < n; ++i) dx[i] += dfin[i];
}

template <class T>
void TrainModel<T>::stack_forward(bool encoder, const T* x0, int B, int Tn, const T* memory,
                                  int S) {
  auto& caches = encoder ? enc_ : dec_;
  auto& lps = encoder ? enc_params_ : dec_params_;
  const bool cross = !encoder && cfg_.architecture == Architecture::encoder_decoder;
  const uint8_t* pad = batch_.src_pad.empty() ? nullptr : batch_.src_pad.data();
  AttentionMaskSpec self_mask, memory_mask;
  self_mask.causal = !encoder;                   // decoders see only the past
  if (encoder) self_mask.key_padding = pad;      // encoders skip padded source tokens
  self_mask.rope = rope_theta_.empty() ? nullptr : &rope_theta_;  // positions act in self-attention
  self_mask.alibi = alibi_slopes_.empty() ? nullptr : alibi_slopes_.data();
  memory_mask.key_padding = pad;                 // so does cross-attention
  const T* x = x0;
  for (size_t l = 0; l < caches.size(); ++l) {
    LayerCache& c = caches[l];
    sublayer_forward(c.self, Kind::SelfAttn, lps[l], x, B, Tn, nullptr, 0, self_mask);
    x = c.self.out.data();
    if (cross) {
      sublayer_forward(c.cross, Kind::CrossAttn, lps[l], x, B, Tn, memory, S, memory_mask);
      x = c.cross.out.data();
    }
    if (F_ == 0) continue;  // attention-only
    sublayer_forward(c.ffn, Kind::Ffn, lps[l], x, B, Tn, nullptr, 0, {});
    x = c.ffn.out.data();
  }
  const size_t rows = static_cast<size_t>(B) * Tn;
  std::vector<T>& out = encoder ? memory_ : hidden_;
  const Norm& fn = encoder ? enc_norm_ : dec_norm_;
  NormCache& nc = encoder ? enc_final_ : dec_final_;
  out.resize(rows * C_);
  if (fn.gamma) {
    nc.mean.resize(rows);
    nc.rstd.resize(rows);
    layer_norm_forward<T>(out.data(), nc.mean.data(), nc.rstd.data(), x, fn.gamma->data(),
                          fn.beta->data(), int(rows), C_, static_cast<T>(cfg_.layer_norm_eps));
  } else {
    std::copy(x, x + rows * C_, out.begin());
  }
}

template <class T>
void TrainModel<T>::stack_backward(bool encoder, T* dx0, const T* dout, int B, int Tn,
                                   const T* memory, T* dmemory, int S) {
  auto& caches = encoder ? enc_ : dec_;
  auto& lps = encoder ? enc_params_ : dec_params_;
  const bool cross = !encoder && cfg_.architecture == Architecture::encoder_decoder;
  const size_t rows = static_cast<size_t>(B) * Tn, n = rows * C_;
  const Norm& fn = encoder ? enc_norm_ : dec_norm_;
  const NormCache& nc = encoder ? enc_final_ : dec_final_;
  std::vector<T> d(n, T(0));
  if (fn.gamma) {
    const LayerCache& c = caches.back();  // the final norm's input: the last sublayer's output
    const T* last = F_ > 0 ? c.ffn.out.data() : cross ? c.cross.out.data() : c.self.out.data();
    layer_norm_backward<T>(d.data(), fn.gamma->g(), fn.beta->g(), dout, last, fn.gamma->data(),
                           nc.mean.data(), nc.rstd.data(), int(rows), C_);
  } else {
    std::copy(dout, dout + n, d.begin());
  }
  std::vector<T> dprev(n);
  for (size_t l = caches.size(); l-- > 0;) {
    LayerCache& c = caches[l];
    Sublayer* order[3] = {F_ > 0 ? &c.ffn : nullptr, cross ? &c.cross : nullptr, &c.self};
    const Kind kinds[3] = {Kind::Ffn, Kind::CrossAttn, Kind::SelfAttn};
    for (int k = 0; k < 3; ++k) {
      if (!order[k]) continue;
      std::fill(dprev.begin(), dprev.end(), T(0));
      sublayer_backward(*order[k], kinds[k], lps[l], dprev.data(), d.data(), B, Tn, memory,
                        dmemory, S);
      d.swap(dprev);
    }
  }
  for (size_t i = 0; i < n; ++i) dx0[i] += d[i];
}

template <class T>
CrossEntropyResult TrainModel<T>::forward_encoder_only(const Batch& batch, const LossOptions& loss) {
  const int B = batch.B, S = batch.S;
  const size_t bs = static_cast<size_t>(B) * S;
  TFP_CHECK(B > 0 && S > 0, "train forward: empty batch (B = ", B, ", S = ", S, ")");
  TFP_CHECK(batch.src.size() == bs && batch.targets.size() == bs, "train forward: ",
            batch.src.size(), " source ids and ", batch.targets.size(), " labels for B·S = ", bs);
  TFP_CHECK(batch.src_pad.empty() || batch.src_pad.size() == bs, "train forward: ",
            batch.src_pad.size(), " source padding flags for B·S = ", bs);
  batch_ = batch;
  const int P = static_cast<int>(cfg_.max_positions);
  src_x_.resize(bs * C_);
  embedding_forward<T>(src_x_.data(), batch.src.data(), wte_->data(), positions(), B, S, C_, V_, P);
  dropout_forward(src_drop_, src_x_.data(), src_x_.size());
  stack_forward(true, src_x_.data(), B, S, nullptr, 0);
  // The token classifier: (B·S, C) → (B·S, n_labels), one label distribution per token.
  logits_.resize(bs * O_);
  dlogits_.resize(bs * O_);
  linear_forward<T>(logits_.data(), memory_.data(), head_w_->data(), head_b_->data(), int(bs), C_, O_);
  return cross_entropy<T>(dlogits_.data(), logits_.data(), batch.targets.data(), int(bs), O_,
                          loss.label_smoothing, loss.ignore_index);
}

template <class T>
void TrainModel<T>::backward_encoder_only() {
  const int B = batch_.B, S = batch_.S;
  const size_t bs = static_cast<size_t>(B) * S;
  TFP_CHECK(logits_.size() == bs * O_, "train backward: no forward pass to differentiate");
  std::vector<T> dmemory(bs * C_, T(0)), dsrc(bs * C_, T(0));
  linear_backward<T>(dmemory.data(), head_w_->g(), head_b_->g(), dlogits_.data(), memory_.data(),
                     head_w_->data(), int(bs), C_, O_);
  stack_backward(true, dsrc.data(), dmemory.data(), B, S, nullptr, nullptr, 0);
  for (size_t i = 0; i < src_drop_.size(); ++i) dsrc[i] *= src_drop_[i];
  embedding_backward<T>(wte_->g(), wpe_ ? wpe_->g() : nullptr, dsrc.data(), batch_.src.data(), B, S, C_);
}

template <class T>
CrossEntropyResult TrainModel<T>::forward(const Batch& batch, const LossOptions& loss,
                                          const Dropout& dropout) {
  TFP_CHECK(dropout.p >= 0 && dropout.p < 1, "train forward: dropout must be in [0, 1), got ", dropout.p);
  drop_p_ = dropout.p;
  drop_rng_ = Rng(dropout.seed);
  if (cfg_.architecture == Architecture::encoder_only) return forward_encoder_only(batch, loss);
  const bool encdec = cfg_.architecture == Architecture::encoder_decoder;
  const int B = batch.B, Tn = batch.T, S = batch.S;
  const size_t bt = static_cast<size_t>(B) * Tn;
  TFP_CHECK(B > 0 && Tn > 0, "train forward: empty batch (B = ", B, ", T = ", Tn, ")");
  TFP_CHECK(batch.tgt.size() == bt && batch.targets.size() == bt, "train forward: ",
            batch.tgt.size(), " input ids and ", batch.targets.size(), " targets for B·T = ", bt);
  if (encdec) {
    const size_t bs = static_cast<size_t>(B) * S;
    TFP_CHECK(S > 0 && batch.src.size() == bs, "train forward: ", batch.src.size(),
              " source ids for B·S = ", bs);
    TFP_CHECK(batch.src_pad.empty() || batch.src_pad.size() == bs, "train forward: ",
              batch.src_pad.size(), " source padding flags for B·S = ", bs);
  }
  batch_ = batch;
  const int P = static_cast<int>(cfg_.max_positions);
  if (encdec) {
    src_x_.resize(static_cast<size_t>(B) * S * C_);
    embedding_forward<T>(src_x_.data(), batch.src.data(), wte_->data(), positions(), B, S, C_, V_, P);
    dropout_forward(src_drop_, src_x_.data(), src_x_.size());
    stack_forward(true, src_x_.data(), B, S, nullptr, 0);
  }
  tgt_x_.resize(bt * C_);
  embedding_forward<T>(tgt_x_.data(), batch.tgt.data(), wte_->data(), positions(), B, Tn, C_, V_, P);
  dropout_forward(tgt_drop_, tgt_x_.data(), tgt_x_.size());
  stack_forward(false, tgt_x_.data(), B, Tn, encdec ? memory_.data() : nullptr, S);
  // Tied head: the token embedding table (V, C) is the output projection, no bias.
  const T* hw = cfg_.tied_lm_head ? wte_->data() : head_w_->data();
  const T* hb = cfg_.tied_lm_head ? nullptr : head_b_->data();
  logits_.resize(bt * V_);
  dlogits_.resize(bt * V_);
  linear_forward<T>(logits_.data(), hidden_.data(), hw, hb, int(bt), C_, V_);
  return cross_entropy<T>(dlogits_.data(), logits_.data(), batch.targets.data(), int(bt), V_,
                          loss.label_smoothing, loss.ignore_index);
}

template <class T>
void TrainModel<T>::backward() {
  if (cfg_.architecture == Architecture::encoder_only) return backward_encoder_only();
  const bool encdec = cfg_.architecture == Architecture::encoder_decoder;
  const int B = batch_.B, Tn = batch_.T, S = batch_.S;
  const size_t bt = static_cast<size_t>(B) * Tn;
  TFP_CHECK(logits_.size() == bt * V_, "train backward: no forward pass to differentiate");
  std::vector<T> dhidden(bt * C_, T(0));
  Param<T>* hw = cfg_.tied_lm_head ? wte_ : head_w_;
  linear_backward<T>(dhidden.data(), hw->g(), cfg_.tied_lm_head ? nullptr : head_b_->g(),
                     dlogits_.data(), hidden_.data(), hw->data(), int(bt), C_, V_);
  std::vector<T> dtgt(bt * C_, T(0));
  std::vector<T> dmemory(encdec ? static_cast<size_t>(B) * S * C_ : 0, T(0));
  stack_backward(false, dtgt.data(), dhidden.data(), B, Tn, encdec ? memory_.data() : nullptr,
                 encdec ? dmemory.data() : nullptr, S);
  for (size_t i = 0; i < tgt_drop_.size(); ++i) dtgt[i] *= tgt_drop_[i];
  embedding_backward<T>(wte_->g(), wpe_ ? wpe_->g() : nullptr, dtgt.data(), batch_.tgt.data(), B, Tn, C_);
  if (encdec) {
    std::vector<T> dsrc(dmemory.size(), T(0));
    stack_backward(true, dsrc.data(), dmemory.data(), B, S, nullptr, nullptr, 0);
    for (size_t i = 0; i < src_drop_.size(); ++i) dsrc[i] *= src_drop_[i];
    embedding_backward<T>(wte_->g(), wpe_ ? wpe_->g() : nullptr, dsrc.data(), batch_.src.data(), B, S, C_);
  }
}

template <class T>
const std::vector<T>& TrainModel<T>::attention_probs(int kind, int layer) const {
  const auto& caches = kind == 2 ? enc_ : dec_;
  TFP_CHECK(kind >= 0 && kind <= 2, "attention_probs: kind ", kind,
            " is not 0 (self), 1 (cross) or 2 (encoder)");
  TFP_CHECK(layer >= 0 && layer < static_cast<int>(caches.size()), "attention_probs: layer ",
            layer, " of ", caches.size());
  TFP_CHECK(kind != 1 || cfg_.architecture == Architecture::encoder_decoder,
            "attention_probs: a decoder-only model has no cross-attention");
  const auto& s = kind == 1 ? caches[layer].cross : caches[layer].self;
  return s.attn.probs;
}

template <class T>
model::ModelWeights TrainModel<T>::weights() const {
  model::ModelWeights w = model::ModelWeights::for_config(cfg_);
  if constexpr (std::is_same_v<T, float>) {
    for (model::WeightSlot& s : model::weight_slots(cfg_, w)) {
      const Param<T>* p = params.find(s.role);
      TFP_CHECK(p != nullptr, "train model: no parameter for role ", s.role);
      *s.view = TensorView(p->value.data(), p->shape);
    }
  } else {
    TFP_FAIL("train model: weights() needs a float model");
  }
  return w;
}

template class TrainModel<float>;
template class TrainModel<double>;

}  // namespace tfp::train
