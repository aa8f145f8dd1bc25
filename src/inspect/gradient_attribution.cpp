// Gradient attribution (see gradient_attribution.h): a forward pass that keeps what its
// backward needs — built from the engine's own attention, linears and norms, so it is the
// model the engine runs — then the metric's gradient back to the token rows.
#include "inspect/gradient_attribution.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "core/error.h"
#include "inspect/activation_patching.h"
#include "nn/positional_rope.h"

namespace tfp::inspect {

namespace {

namespace m = model;

// dx = dy·W for y = x·Wᵀ + b, in the layer's own layout and precision: dy (T, O) → (T, I).
// A layer's weight read the other way round is the transposed product (no copy), except
// int8, whose kernel takes one layout only: widened once.
Tensor linear_backward(const Tensor& dy, const nn::Linear& lin) {
  nn::Linear t;
  Tensor widened;
  if (!lin.weight8.empty()) {
    const int64_t O = lin.weight.dim(0), I = lin.weight.dim(1);
    widened = Tensor({O, I});
    for (int64_t o = 0; o < O; ++o)
      for (int64_t i = 0; i < I; ++i)
        widened.data[o * I + i] = static_cast<float>(lin.weight8.q[o * I + i]) * lin.weight8.scale[o];
    t.weight = widened.view();
    t.layout = nn::WeightLayout::InOut;
  } else {
    t.weight = lin.weight;
    t.weight16 = lin.weight16;
    t.layout = lin.layout == nn::WeightLayout::OutIn ? nn::WeightLayout::InOut : nn::WeightLayout::OutIn;
  }
  return nn::linear(dy.view(), t, "gradient: linear backward");
}

void add_into(Tensor& y, const Tensor& x) {
  TFP_CHECK(y.shape == x.shape, "gradient: adding ", shape_str(x.shape), " to ", shape_str(y.shape));
  for (size_t i = 0; i < y.data.size(); ++i) y.data[i] += x.data[i];
}

Tensor sum(const Tensor& a, const Tensor& b) {
  Tensor y = a;
  add_into(y, b);
  return y;
}

Tensor norm_forward(const Tensor& x, const nn::LayerNormWeights& w) {
  return nn::layer_norm(x.view(), w, "gradient: norm");
}

// dx for y = norm(x) over rows of the weight's width, LayerNorm or RMSNorm, scale γ or 1 + γ:
//   x̂ = (x − mean)·rstd (RMSNorm: no mean), g = dy ⊙ γ
//   dx = rstd · (g − mean(g) − x̂ · mean(g ⊙ x̂))   (RMSNorm: without mean(g))
Tensor norm_backward(const Tensor& x, const nn::LayerNormWeights& w, const Tensor& dy) {
  const int64_t C = w.gamma.numel(), N = x.numel() / C;
  Tensor dx(x.shape);
  for (int64_t r = 0; r < N; ++r) {
    const float* xr = x.ptr() + r * C;
    const float* gr = dy.ptr() + r * C;
    double mean = 0, var = 0;
    if (!w.rms) {
      for (int64_t c = 0; c < C; ++c) mean += xr[c];
      mean /= static_cast<double>(C);
    }
    for (int64_t c = 0; c < C; ++c) var += (xr[c] - mean) * (xr[c] - mean);
    const double rstd = 1.0 / std::sqrt(var / static_cast<double>(C) + w.eps);
    double mg = 0, mgx = 0;
    for (int64_t c = 0; c < C; ++c) {
      const double g = gr[c] * (w.plus_one ? 1.0 + w.gamma.data[c] : w.gamma.data[c]);
      mg += g;
      mgx += g * (xr[c] - mean) * rstd;
    }
    mg /= static_cast<double>(C);
    mgx /= static_cast<double>(C);
    for (int64_t c = 0; c < C; ++c) {
      const double g = gr[c] * (w.plus_one ? 1.0 + w.gamma.data[c] : w.gamma.data[c]);
      dx.data[r * C + c] = static_cast<float>(rstd * (g - (w.rms ? 0.0 : mg) - (xr[c] - mean) * rstd * mgx));
    }
  }
  return dx;
}

// f'(x) of the feed-forward activations (nn/feed_forward.h).
double activation_grad(nn::Activation a, double x) {
  switch (a) {
    case nn::Activation::relu: return x > 0 ? 1.0 : 0.0;
    case nn::Activation::gelu_erf:
      return 0.5 * (1 + std::erf(x / std::numbers::sqrt2)) + x * std::exp(-0.5 * x * x) / std::sqrt(2 * std::numbers::pi);
    case nn::Activation::gelu_tanh: {
      const double k = std::sqrt(2 / std::numbers::pi), th = std::tanh(k * (x + 0.044715 * x * x * x));
      return 0.5 * (1 + th) + 0.5 * x * (1 - th * th) * k * (1 + 3 * 0.044715 * x * x);
    }
    case nn::Activation::silu: {
      const double s = 1 / (1 + std::exp(-x));
      return s * (1 + x * (1 - s));
    }
  }
  return 0;
}

// Turns the gradient of rotated rows (T, D) back by each row's angle (a rotation's inverse
// is its transpose), as nn/positional_rope.cpp rotated them at positions 0 .. T-1.
void unrotate(float* x, int64_t T, int64_t D, const nn::RopeConfig& rc) {
  const int R = rc.rotary_dim == 0 ? static_cast<int>(D) : rc.rotary_dim, half = R / 2;
  const std::vector<double> inv = nn::rope_inv_freq(rc, R);
  for (int64_t t = 0; t < T; ++t) {
    float* row = x + t * D;
    for (int p = 0; p < half; ++p) {
      const double angle = static_cast<double>(t) * inv[p];
      const double c = std::cos(angle), s = std::sin(angle);
      const int a = rc.pairing == nn::RopePairing::Interleaved ? 2 * p : p;
      const int b = rc.pairing == nn::RopePairing::Interleaved ? 2 * p + 1 : p + half;
      const double ga = row[a], gb = row[b];
      row[a] = static_cast<float>(ga * c + gb * s);
      row[b] = static_cast<float>(-ga * s + gb * c);
    }
  }
}

// (H, T, D) ↔ (T, H·D): heads stacked, or side by side as the projections give them.
Tensor heads_to_rows(const Tensor& x) {
  const int64_t H = x.dim(0), T = x.dim(1), D = x.dim(2);
  Tensor y({T, H * D});
  for (int64_t h = 0; h < H; ++h)
    for (int64_t t = 0; t < T; ++t) std::copy_n(x.ptr() + (h * T + t) * D, D, y.ptr() + t * H * D + h * D);
  return y;
}

// One attention sublayer: what it read, the engine's result with every head's tensors,
// and the projections before the q/k norms (when the model has them).
struct AttnRec {
  Tensor in;
  nn::AttentionResult a;
  Tensor q_lin, k_lin;        // (T, H·D), (T, Hkv·D)
  std::vector<float> scales;  // the head mask's factor of each head; empty = none
};

struct Ctx {
  int64_t H, Hkv, D;
};

AttnRec attention_forward(const Ctx& c, const Tensor& in, const nn::AttentionWeights& w, const nn::LayerOptions& opt,
                          const nn::AttentionMask& mask, const std::vector<float>* scales) {
  AttnRec r;
  r.in = in;
  r.a = nn::attention(in.view(), in.view(), w, opt.attention(), mask, true, opt.self_hooks, true);
  if (scales) {  // the head mask (inspect/head_mask.h): head_out[h] × s_h, then the projection
    TFP_CHECK(static_cast<int64_t>(scales->size()) == c.H, "gradient attribution: the head mask has ", scales->size(),
              " factors for ", c.H, " heads");
    r.scales = *scales;
    const int64_t T = in.dim(0);
    for (int64_t h = 0; h < c.H; ++h)
      for (int64_t i = 0; i < T * c.D; ++i) r.a.head_out.data[h * T * c.D + i] *= r.scales[h];
    const Tensor z = heads_to_rows(r.a.head_out);
    r.a.out = w.out.empty() ? z : nn::linear(z.view(), w.out, "gradient: attention out");
  }
  if (!w.q_norm.empty() || !w.k_norm.empty()) {
    const int64_t q = c.H * c.D, kv = c.Hkv * c.D;
    r.q_lin = w.qkv.empty() ? nn::linear(in.view(), w.q) : nn::linear_slice(in.view(), w.qkv, 0, q);
    r.k_lin = w.qkv.empty() ? nn::linear(in.view(), w.k) : nn::linear_slice(in.view(), w.qkv, q, q + kv);
  }
  return r;
}

// d(in) from d(out) (T, C), through the output projection, P·V, the softmax, the soft-cap,
// q·kᵀ·scale, the rotation, the q/k norms and the projections. Masked keys have P = 0, so
// they pass no gradient; biases added to the scores (ALiBi) are constants.
Tensor attention_backward(const Ctx& c, const AttnRec& r, const nn::AttentionWeights& w, const nn::LayerOptions& opt,
                          const nn::RopeConfig* rope, const Tensor& dout) {
  const int64_t H = c.H, Hkv = c.Hkv, D = c.D, T = r.in.dim(0), group = H / Hkv;
  const float scale = opt.attn_scale > 0 ? opt.attn_scale : static_cast<float>(1.0 / std::sqrt(static_cast<double>(D)));
  const double cap = opt.attn_softcap;
  const Tensor dz = w.out.empty() ? dout : linear_backward(dout, w.out);  // (T, H·D)
  Tensor dq({H, T, D}), dk({Hkv, T, D}), dv({Hkv, T, D});
  std::vector<double> dp(static_cast<size_t>(T));
  for (int64_t h = 0; h < H; ++h) {
    const int64_t g = h / group;
    const float* P = r.a.probs.ptr() + h * T * T;
    const float* Q = r.a.q.ptr() + h * T * D;
    const float* K = r.a.k.ptr() + h * T * D;
    const float* V = r.a.v.ptr() + h * T * D;
    const double sh = r.scales.empty() ? 1.0 : r.scales[h];
    for (int64_t i = 0; i < T; ++i) {
      const float* dzi = dz.ptr() + i * H * D + h * D;
      double rowsum = 0;
      for (int64_t j = 0; j < T; ++j) {
        const double p = P[i * T + j];
        double s = 0;
        if (p != 0)
          for (int64_t d = 0; d < D; ++d) s += sh * dzi[d] * V[j * D + d];
        dp[j] = s;
        rowsum += p * s;
        float* dvj = dv.ptr() + (g * T + j) * D;
        if (p != 0)
          for (int64_t d = 0; d < D; ++d) dvj[d] += static_cast<float>(sh * p * dzi[d]);
      }
      for (int64_t j = 0; j < T; ++j) {
        const double p = P[i * T + j];
        if (p == 0) continue;
        double ds = p * (dp[j] - rowsum);
        if (cap > 0) {
          double u = 0;
          for (int64_t d = 0; d < D; ++d) u += static_cast<double>(Q[i * D + d]) * K[j * D + d];
          const double th = std::tanh(u * scale / cap);
          ds *= 1 - th * th;
        }
        ds *= scale;
        float* dqi = dq.ptr() + (h * T + i) * D;
        float* dkj = dk.ptr() + (g * T + j) * D;
        for (int64_t d = 0; d < D; ++d) {
          dqi[d] += static_cast<float>(ds * K[j * D + d]);
          dkj[d] += static_cast<float>(ds * Q[i * D + d]);
        }
      }
    }
  }
  if (rope) {
    for (int64_t h = 0; h < H; ++h) unrotate(dq.ptr() + h * T * D, T, D, *rope);
    for (int64_t g = 0; g < Hkv; ++g) unrotate(dk.ptr() + g * T * D, T, D, *rope);
  }
  Tensor dq_rows = heads_to_rows(dq), dk_rows = heads_to_rows(dk);
  const Tensor dv_rows = heads_to_rows(dv);
  if (!w.q_norm.empty()) dq_rows = norm_backward(r.q_lin, w.q_norm, dq_rows);
  if (!w.k_norm.empty()) dk_rows = norm_backward(r.k_lin, w.k_norm, dk_rows);
  if (!w.qkv.empty()) {  // one fused projection: its rows are q | k | v
    const int64_t q = H * D, kv = Hkv * D;
    Tensor all({T, q + 2 * kv});
    for (int64_t t = 0; t < T; ++t) {
      float* row = all.ptr() + t * (q + 2 * kv);
      std::copy_n(dq_rows.ptr() + t * q, q, row);
      std::copy_n(dk_rows.ptr() + t * kv, kv, row + q);
      std::copy_n(dv_rows.ptr() + t * kv, kv, row + q + kv);
    }
    return linear_backward(all, w.qkv);
  }
  Tensor dx = linear_backward(dq_rows, w.q);
  add_into(dx, linear_backward(dk_rows, w.k));
  add_into(dx, linear_backward(dv_rows, w.v));
  return dx;
}

// One feed-forward sublayer: its input, the pre-activations and the activated gate.
struct FfnRec {
  Tensor in, pre, gate, act_gate;  // pre = fc1(in); gated: gate(in), act(gate(in))
};

Tensor ffn_forward(const Tensor& in, const nn::FeedForwardWeights& w, nn::Activation act, FfnRec& r) {
  r.in = in;
  r.pre = nn::linear(in.view(), w.fc1, "gradient: fc1");
  Tensor h;
  if (w.gated()) {
    r.gate = nn::linear(in.view(), w.gate, "gradient: gate");
    r.act_gate = r.gate;
    nn::apply_activation(r.act_gate, act);
    h = r.act_gate;
    for (size_t i = 0; i < h.data.size(); ++i) h.data[i] *= r.pre.data[i];
  } else {
    h = r.pre;
    nn::apply_activation(h, act);
  }
  return nn::linear(h.view(), w.fc2, "gradient: fc2");
}

Tensor ffn_backward(const FfnRec& r, const nn::FeedForwardWeights& w, nn::Activation act, const Tensor& dout) {
  const Tensor dh = linear_backward(dout, w.fc2);
  if (w.gated()) {
    Tensor dup = dh, dgate = dh;
    for (size_t i = 0; i < dh.data.size(); ++i) {
      dup.data[i] = dh.data[i] * r.act_gate.data[i];
      dgate.data[i] = static_cast<float>(dh.data[i] * r.pre.data[i] * activation_grad(act, r.gate.data[i]));
    }
    return sum(linear_backward(dup, w.fc1), linear_backward(dgate, w.gate));
  }
  Tensor dpre = dh;
  for (size_t i = 0; i < dh.data.size(); ++i)
    dpre.data[i] = static_cast<float>(dh.data[i] * activation_grad(act, r.pre.data[i]));
  return linear_backward(dpre, w.fc1);
}

// One layer (nn/transformer_block.cpp's three arrangements) with what its backward needs.
struct LayerRec {
  Tensor norm_attn_in, norm_ffn_in, post_attn_in, post_ffn_in;
  AttnRec attn;
  FfnRec ffn;
  nn::LayerOptions opt;
  bool rotated = false;
  nn::RopeConfig rope;
};

Tensor layer_forward(const Ctx& c, const nn::BlockWeights& w, const nn::AttentionMask& mask,
                     const std::vector<float>* scales, LayerRec& r, Tensor h) {
  const nn::LayerOptions& opt = r.opt;
  const bool mlp = !w.ffn.fc1.empty();  // attention-only layers have none
  if (opt.parallel_residual) {
    r.norm_attn_in = h;
    r.attn = attention_forward(c, norm_forward(h, w.norm_attn), w.attn, opt, mask, scales);
    r.norm_ffn_in = h;
    const Tensor f = mlp ? ffn_forward(norm_forward(h, w.norm_ffn), w.ffn, opt.activation, r.ffn) : Tensor{};
    add_into(h, r.attn.a.out);
    if (mlp) add_into(h, f);
    return h;
  }
  if (opt.norm_first) {
    r.norm_attn_in = h;
    r.attn = attention_forward(c, norm_forward(h, w.norm_attn), w.attn, opt, mask, scales);
    Tensor a = r.attn.a.out;
    if (!w.post_attn_norm.empty()) {
      r.post_attn_in = a;
      a = norm_forward(a, w.post_attn_norm);
    }
    add_into(h, a);
    if (!mlp) return h;
    r.norm_ffn_in = h;
    Tensor f = ffn_forward(norm_forward(h, w.norm_ffn), w.ffn, opt.activation, r.ffn);
    if (!w.post_ffn_norm.empty()) {
      r.post_ffn_in = f;
      f = norm_forward(f, w.post_ffn_norm);
    }
    add_into(h, f);
    return h;
  }
  // post-LN: h = N(h + f(h)) after each sublayer
  r.attn = attention_forward(c, h, w.attn, opt, mask, scales);
  r.norm_attn_in = sum(h, r.attn.a.out);
  const Tensor h1 = norm_forward(r.norm_attn_in, w.norm_attn);
  if (!mlp) return h1;
  r.norm_ffn_in = sum(h1, ffn_forward(h1, w.ffn, opt.activation, r.ffn));
  return norm_forward(r.norm_ffn_in, w.norm_ffn);
}

Tensor layer_backward(const Ctx& c, const nn::BlockWeights& w, const LayerRec& r, const Tensor& dh) {
  const nn::LayerOptions& opt = r.opt;
  const nn::RopeConfig* rope = r.rotated ? &r.rope : nullptr;
  auto attn_back = [&](const Tensor& d) { return attention_backward(c, r.attn, w.attn, opt, rope, d); };
  auto ffn_back = [&](const Tensor& d) { return ffn_backward(r.ffn, w.ffn, opt.activation, d); };
  const bool mlp = !w.ffn.fc1.empty();
  if (opt.parallel_residual) {
    Tensor d = dh;
    add_into(d, norm_backward(r.norm_attn_in, w.norm_attn, attn_back(dh)));
    if (mlp) add_into(d, norm_backward(r.norm_ffn_in, w.norm_ffn, ffn_back(dh)));
    return d;
  }
  if (opt.norm_first) {
    const Tensor df = !mlp || w.post_ffn_norm.empty() ? dh : norm_backward(r.post_ffn_in, w.post_ffn_norm, dh);
    const Tensor dh1 = mlp ? sum(dh, norm_backward(r.norm_ffn_in, w.norm_ffn, ffn_back(df))) : dh;
    const Tensor da = w.post_attn_norm.empty() ? dh1 : norm_backward(r.post_attn_in, w.post_attn_norm, dh1);
    return sum(dh1, norm_backward(r.norm_attn_in, w.norm_attn, attn_back(da)));
  }
  const Tensor dh1 = mlp ? [&] {
    const Tensor ds1 = norm_backward(r.norm_ffn_in, w.norm_ffn, dh);
    return sum(ds1, ffn_back(ds1));
  }() : dh;
  const Tensor ds0 = norm_backward(r.norm_attn_in, w.norm_attn, dh1);
  return sum(ds0, attn_back(ds0));
}

// The metric's gradient with respect to logits (V): patching's two metrics.
std::vector<float> metric_logit_grad(std::span<const float> logits, int32_t answer, int32_t foil, GradMetric metric) {
  std::vector<float> d(logits.size(), 0.0f);
  if (metric == GradMetric::logit_diff) {
    d[answer] += 1;
    d[foil] -= 1;
    return d;
  }
  double mx = logits[0];
  for (float v : logits) mx = std::max(mx, static_cast<double>(v));
  double s = 0;
  for (float v : logits) s += std::exp(v - mx);
  for (size_t i = 0; i < d.size(); ++i) d[i] = static_cast<float>(-std::exp(logits[i] - mx) / s);
  d[answer] += 1;
  return d;
}

}  // namespace

std::string gradient_refusal(const model::ModelConfig& cfg, std::span<const int32_t> ids, int32_t answer,
                             int32_t foil, int64_t position, int steps) {
  const bool bert = cfg.architecture == m::Architecture::encoder_only && cfg.encoder_head == m::EncoderHead::masked_lm;
  if (!bert) {
    const std::string why = metric_input_refusal(cfg, ids, "input", answer, foil);
    if (!why.empty())
      return cfg.architecture == m::Architecture::encoder_only
                 ? "needs an LM head: a decoder-only model with one, or a masked-LM (BERT) head"
                 : why;
  } else {
    const int64_t V = cfg.vocab_size;
    if (ids.empty()) return "no input tokens";
    for (size_t t = 0; t < ids.size(); ++t)
      if (ids[t] < 0 || ids[t] >= V)
        return str_cat("input id ", ids[t], " at position ", t, " is outside the vocabulary (0..", V - 1, ")");
    if (answer < 0 || answer >= V || foil < 0 || foil >= V)
      return str_cat("answer ", answer, " or foil ", foil, " is outside the vocabulary (0..", V - 1, ")");
  }
  const int64_t T = static_cast<int64_t>(ids.size());
  if (position < -1 || position >= T) return str_cat("position ", position, " is outside the input (0..", T - 1, ", or -1 for the last)");
  if (steps < 0 || steps > 4096) return str_cat("integrated gradients take 0..4096 steps, not ", steps);
  return "";
}

MetricGradient metric_gradient(const model::ModelConfig& cfg, const model::ModelWeights& w,
                               std::span<const int32_t> ids, const Tensor& rows, int32_t answer, int32_t foil,
                               GradMetric metric, int64_t position, const HeadMask* head_mask) {
  const std::string why = gradient_refusal(cfg, ids, answer, foil, position, 0);
  TFP_CHECK(why.empty(), "gradient attribution: ", why);
  const int64_t T = static_cast<int64_t>(ids.size()), C = cfg.d_model;
  TFP_CHECK(rows.shape == Shape({T, C}), "gradient attribution: token rows ", shape_str(rows.shape), " for ", T,
            " tokens of width ", C);
  const bool encoder = cfg.architecture == m::Architecture::encoder_only;
  const int64_t p = position < 0 ? T - 1 : position;
  const Ctx c{cfg.n_heads, cfg.kv_heads(), cfg.head_dim()};
  const m::EmbeddingWeights& e = w.embed;

  // Forward, keeping each layer's record.
  const Tensor summed = m::embedding_sum(cfg, e, rows, {}, 0);
  Tensor h = cfg.embedding_norm ? norm_forward(summed, e.norm) : summed;
  const auto& layers = encoder ? w.encoder_layers : w.decoder_layers;
  nn::AttentionMask base;
  base.causal = !encoder;
  std::vector<LayerRec> recs(layers.size());
  for (size_t i = 0; i < layers.size(); ++i) {
    LayerRec& r = recs[i];
    r.opt = m::layer_options(cfg, w, encoder, i);
    r.rotated = cfg.positional == m::Positional::rope;
    if (r.rotated) r.rope = m::rope_config(cfg, cfg.layer_window(encoder, i) > 0);
    const std::vector<float>* scales =
        head_mask ? head_mask->find(head_block_name(encoder ? "enc" : "dec", static_cast<int>(i))) : nullptr;
    h = layer_forward(c, layers[i], m::layer_mask(cfg, base, encoder, i), scales, r, std::move(h));
  }
  const bool final_norm = encoder ? cfg.encoder_final_norm : cfg.decoder_final_norm;
  const nn::LayerNormWeights& fnorm = encoder ? w.encoder_norm : w.decoder_norm;
  const Tensor pre_final = h;
  if (final_norm) h = norm_forward(h, fnorm);
  const Tensor last(Shape{1, C}, std::vector<float>(h.ptr() + p * C, h.ptr() + (p + 1) * C));

  // The head at position p, and the metric's gradient back to its input row.
  MetricGradient out;
  Tensor dlast;
  if (encoder) {  // BERT: dense → activation → LayerNorm → decoder + bias
    const Tensor t = nn::linear(last.view(), w.mlm_transform, "gradient: mlm.transform");
    Tensor ta = t;
    nn::apply_activation(ta, cfg.activation);
    const nn::Linear dec = m::mlm_decoder_of(w);
    const Tensor logits = nn::linear(norm_forward(ta, w.mlm_norm).view(), dec, "gradient: mlm.decoder");
    const std::span<const float> row(logits.ptr(), static_cast<size_t>(logits.dim(1)));
    const auto [diff, logprob] = patching_metric(row, answer, foil);
    out.value = metric == GradMetric::logit_diff ? diff : logprob;
    const std::vector<float> g = metric_logit_grad(row, answer, foil, metric);
    Tensor dt = norm_backward(ta, w.mlm_norm, linear_backward(Tensor(Shape{1, logits.dim(1)}, g), dec));
    for (size_t i = 0; i < dt.data.size(); ++i) dt.data[i] = static_cast<float>(dt.data[i] * activation_grad(cfg.activation, t.data[i]));
    dlast = linear_backward(dt, w.mlm_transform);
  } else {
    const Tensor logits = m::lm_logits(cfg, w, last.view());
    const std::span<const float> row(logits.ptr(), static_cast<size_t>(logits.dim(1)));
    const auto [diff, logprob] = patching_metric(row, answer, foil);
    out.value = metric == GradMetric::logit_diff ? diff : logprob;
    std::vector<float> g = metric_logit_grad(row, answer, foil, metric);
    if (cfg.final_softcap > 0)  // logits = cap·tanh(z / cap): dz = dlogits · (1 − (logits / cap)²)
      for (size_t v = 0; v < g.size(); ++v) {
        const double r = row[v] / static_cast<double>(cfg.final_softcap);
        g[v] = static_cast<float>(g[v] * (1 - r * r));
      }
    dlast = linear_backward(Tensor(Shape{1, logits.dim(1)}, g), m::lm_head_of(cfg, w));
    for (float& v : dlast.data) v *= cfg.lm_head_scale;
  }

  // Backward through the final norm, the layers and the embedding norm to the token rows.
  Tensor dh(Shape{T, C});
  std::copy_n(dlast.ptr(), C, dh.ptr() + p * C);
  if (final_norm) dh = norm_backward(pre_final, fnorm, dh);
  for (size_t i = layers.size(); i-- > 0;) dh = layer_backward(c, layers[i], recs[i], dh);
  if (cfg.embedding_norm) dh = norm_backward(summed, e.norm, dh);
  out.grad.resize(dh.data.size());
  for (size_t i = 0; i < dh.data.size(); ++i) out.grad[i] = dh.data[i] * cfg.embedding_scale;
  return out;
}

GradientAttribution gradient_attribution(const model::ModelConfig& cfg, const model::ModelWeights& w,
                                         std::span<const int32_t> ids, int32_t answer, int32_t foil,
                                         GradMetric metric, int steps, int64_t position, const HeadMask* head_mask) {
  const std::string why = gradient_refusal(cfg, ids, answer, foil, position, steps);
  TFP_CHECK(why.empty(), "gradient attribution: ", why);
  const Tensor rows = m::token_rows(cfg, w.embed, ids);
  const int64_t T = rows.dim(0), C = rows.dim(1);
  GradientAttribution r;
  r.T = T;
  r.C = C;
  r.position = position < 0 ? T - 1 : position;
  r.metric = metric;
  r.steps = steps;
  const MetricGradient at = metric_gradient(cfg, w, ids, rows, answer, foil, metric, position, head_mask);
  r.value = at.value;
  r.grad_x_input.assign(static_cast<size_t>(T), 0.0f);
  r.grad_norm.assign(static_cast<size_t>(T), 0.0f);
  for (int64_t t = 0; t < T; ++t) {
    double gx = 0, g2 = 0;
    for (int64_t k = 0; k < C; ++k) {
      const double g = at.grad[t * C + k];
      gx += g * rows.data[t * C + k];
      g2 += g * g;
    }
    r.grad_x_input[t] = static_cast<float>(gx);
    r.grad_norm[t] = static_cast<float>(std::sqrt(g2));
  }
  if (steps == 0) return r;
  const std::vector<double> part = integrated_gradients_part(cfg, w, ids, answer, foil, metric, steps, 0, steps, position, head_mask);
  r.integrated.assign(static_cast<size_t>(T), 0.0f);
  double total = 0;
  for (int64_t t = 0; t < T; ++t) {
    r.integrated[t] = static_cast<float>(part[t]);
    total += part[t];
  }
  r.baseline_value = zero_baseline_metric(cfg, w, ids, answer, foil, metric, position, head_mask);
  r.completeness_gap = total - (r.value - r.baseline_value);
  return r;
}

std::vector<double> integrated_gradients_part(const model::ModelConfig& cfg, const model::ModelWeights& w,
                                              std::span<const int32_t> ids, int32_t answer, int32_t foil,
                                              GradMetric metric, int steps, int first, int count, int64_t position,
                                              const HeadMask* head_mask) {
  const std::string why = gradient_refusal(cfg, ids, answer, foil, position, steps);
  TFP_CHECK(why.empty(), "integrated gradients: ", why);
  TFP_CHECK(steps >= 1, "integrated gradients: a range of steps needs steps >= 1, not ", steps);
  TFP_CHECK(first >= 0 && count >= 1 && static_cast<int64_t>(first) + count <= steps, "integrated gradients: steps ",
            first, "..", static_cast<int64_t>(first) + count - 1, " are not a range of 0..", steps - 1);
  const Tensor rows = m::token_rows(cfg, w.embed, ids);
  const int64_t T = rows.dim(0), C = rows.dim(1);
  // The mean gradient's share from these midpoints (k + ½)/n of the straight path from 0
  // to the rows, times the rows.
  std::vector<double> mean(static_cast<size_t>(T * C), 0.0);
  for (int k = first; k < first + count; ++k) {
    const float alpha = static_cast<float>((k + 0.5) / steps);
    Tensor scaled = rows;
    for (float& v : scaled.data) v *= alpha;
    const MetricGradient g = metric_gradient(cfg, w, ids, scaled, answer, foil, metric, position, head_mask);
    for (size_t i = 0; i < mean.size(); ++i) mean[i] += g.grad[i] / static_cast<double>(steps);
  }
  std::vector<double> part(static_cast<size_t>(T), 0.0);
  for (int64_t t = 0; t < T; ++t)
    for (int64_t k = 0; k < C; ++k) part[t] += mean[t * C + k] * rows.data[t * C + k];
  return part;
}

double zero_baseline_metric(const model::ModelConfig& cfg, const model::ModelWeights& w, std::span<const int32_t> ids,
                            int32_t answer, int32_t foil, GradMetric metric, int64_t position, const HeadMask* head_mask) {
  const Tensor rows = m::token_rows(cfg, w.embed, ids);
  return metric_gradient(cfg, w, ids, Tensor(rows.shape), answer, foil, metric, position, head_mask).value;
}

}  // namespace tfp::inspect
