// The attention lab behind tfp_attn_lab_*: one multi-head self-attention block whose
// every step the tutorials and the playground can show (q, k, v per head, raw and
// scaled scores, the mask, probabilities, per-head outputs, the block output).
//
// No attention maths lives here. The block's output and probabilities come from
// nn::multi_head_attention, the very function models call; the per-head steps come
// from nn::linear, nn::scaled_dot_product_attention and the matmul kernel, the same
// calls the engine makes inside. This file only arranges memory: it owns the weights,
// cuts views into them, and splits (T, C) into heads.
//
// Legend: T tokens, C model width, H heads, D = C/H head size.
#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "api/api_edge.h"
#include "api/api_tensors.h"
#include "api/seeded.h"
#include "kernels/kernels.h"
#include "nn/attention.h"
#include "nn/linear.h"

struct tfp_attn_lab {
  int C = 0, H = 0;
  // Fused weights (PyTorch in_proj layout) when `fused`, else the separate ones.
  bool fused = true;
  std::vector<float> w_qkv, b_qkv;        // (3C, C), (3C) or empty
  std::vector<float> w_q, b_q;            // (C, C), (C) or empty
  std::vector<float> w_k, b_k;
  std::vector<float> w_v, b_v;
  std::vector<float> w_out, b_out;        // (C, C), (C) or empty
  bool causal = false;
  int window = 0;
  std::vector<uint8_t> key_padding;       // (T) or empty
};

namespace {

using tfp::Tensor;
using tfp::TensorView;
namespace nn = tfp::nn;

std::vector<float> copy_floats(const float* src, size_t n) {
  return src ? std::vector<float>(src, src + n) : std::vector<float>{};
}

// A view of `rows` rows of an (out, in) weight starting at row `first` — for the fused
// in_proj weight, rows [0, C) are q, [C, 2C) k, [2C, 3C) v.
nn::Linear linear_view(const std::vector<float>& w, const std::vector<float>& b, int64_t first,
                       int64_t rows, int64_t in) {
  nn::Linear l;
  l.weight = TensorView(w.data() + first * in, {rows, in});
  if (!b.empty()) l.bias = TensorView(b.data() + first, {rows});
  l.layout = nn::WeightLayout::OutIn;
  return l;
}

// Projection 0 = q, 1 = k, 2 = v.
nn::Linear projection(const tfp_attn_lab& lab, int which) {
  if (lab.fused) return linear_view(lab.w_qkv, lab.b_qkv, which * lab.C, lab.C, lab.C);
  const std::vector<float>* w[] = {&lab.w_q, &lab.w_k, &lab.w_v};
  const std::vector<float>* b[] = {&lab.b_q, &lab.b_k, &lab.b_v};
  return linear_view(*w[which], *b[which], 0, lab.C, lab.C);
}

nn::AttentionWeights weights_of(const tfp_attn_lab& lab) {
  nn::AttentionWeights w;
  if (lab.fused) {
    w.qkv = linear_view(lab.w_qkv, lab.b_qkv, 0, 3 * int64_t{lab.C}, lab.C);
  } else {
    w.q = projection(lab, 0);
    w.k = projection(lab, 1);
    w.v = projection(lab, 2);
  }
  w.out = linear_view(lab.w_out, lab.b_out, 0, lab.C, lab.C);
  return w;
}

nn::AttentionMask mask_of(const tfp_attn_lab& lab) {
  nn::AttentionMask m;
  m.causal = lab.causal;
  m.window = lab.window;
  m.key_padding = lab.key_padding;
  return m;
}

// (T, C) → (H, T, D): head h takes columns [h·D, (h+1)·D). Pure data movement.
Tensor split_heads(const Tensor& x, int H) {
  const int64_t T = x.dim(0), C = x.dim(1), D = C / H;
  Tensor out({H, T, D});
  for (int64_t h = 0; h < H; ++h)
    for (int64_t t = 0; t < T; ++t)
      std::memcpy(out.ptr() + (h * T + t) * D, x.row(t) + h * D, sizeof(float) * D);
  return out;
}

// alpha · q_h · k_hᵀ for every head: q, k (H, T, D) → (H, T, T). The matmul kernel with
// B in (N, K) layout, as attention calls it for Q·Kᵀ.
Tensor head_scores(const Tensor& q, const Tensor& k, float alpha) {
  const int H = static_cast<int>(q.dim(0)), T = static_cast<int>(q.dim(1)),
            D = static_cast<int>(q.dim(2));
  Tensor s({H, T, T});
  for (int h = 0; h < H; ++h) {
    auto args = tfp::kernels::dense(T, T, D, q.ptr() + int64_t{h} * T * D,
                                    k.ptr() + int64_t{h} * T * D, s.ptr() + int64_t{h} * T * T,
                                    tfp::kernels::BLayout::NK);
    args.alpha = alpha;
    tfp::kernels::matmul(args);
  }
  return s;
}

// Which (query, key) pairs the mask removes, asked of the engine itself rather than
// re-derived here: attention with all-zero q and k gives every visible key the same
// score 0, so each row's probabilities are 1/(visible keys) > 0 where visible and
// exactly 0 where masked (softmax_rows guarantees exact zeros for -inf). (T, T), 1 = masked.
Tensor masked_pairs(const nn::AttentionMask& mask, int T) {
  const Tensor zeros({1, T, 1}, 0.0f);
  const auto probe = nn::scaled_dot_product_attention(zeros, zeros, zeros, mask, 1.0f, true);
  Tensor masked({T, T});
  for (int64_t i = 0; i < int64_t{T} * T; ++i) masked.data[i] = probe.probs.data[i] == 0.0f ? 1.0f : 0.0f;
  return masked;
}

void seed_weights(tfp_attn_lab& lab, uint32_t seed) {
  const size_t C = static_cast<size_t>(lab.C);
  // xavier_uniform_ on in_proj_weight (3C, C): bound sqrt(6 / (fan_in + fan_out)).
  std::vector<float> w_qkv(3 * C * C), w_out(C * C);
  tfp::api::SeededStream(seed, "attn.in_proj_weight").fill_uniform(w_qkv, std::sqrt(6.0f / (4.0f * lab.C)));
  // nn.Linear's default for out_proj: uniform(±1/sqrt(in_features)).
  tfp::api::SeededStream(seed, "attn.out_proj.weight").fill_uniform(w_out, 1.0f / std::sqrt(float(lab.C)));
  lab.fused = true;
  lab.w_qkv = std::move(w_qkv);
  lab.w_out = std::move(w_out);
  lab.b_qkv.clear();  // PyTorch zero-initialises both biases; empty means zero
  lab.b_out.clear();
  lab.w_q.clear(); lab.b_q.clear(); lab.w_k.clear(); lab.b_k.clear(); lab.w_v.clear(); lab.b_v.clear();
}

}  // namespace

extern "C" {

int tfp_attn_lab_create(int C, int H, uint32_t seed, tfp_attn_lab** out) {
  if (out) *out = nullptr;
  return tfp::api::guard("tfp_attn_lab_create", [&] {
    TFP_API_REQUIRE(out, "tfp_attn_lab_create: out is NULL");
    TFP_API_REQUIRE(C > 0 && H > 0, "attention lab: d_model and heads must be positive, got d_model ",
                    C, " and ", H, " heads");
    TFP_API_REQUIRE(C % H == 0, "attention lab: d_model ", C, " is not divisible by ", H,
                    " heads (each head gets d_model / heads channels)");
    TFP_API_REQUIRE(C <= 4096, "attention lab: d_model ", C, " is larger than the lab allows (4096)");
    auto lab = std::make_unique<tfp_attn_lab>();
    lab->C = C;
    lab->H = H;
    seed_weights(*lab, seed);
    *out = lab.release();
  });
}

void tfp_attn_lab_free(tfp_attn_lab* lab) { delete lab; }

int tfp_attn_lab_seed_weights(tfp_attn_lab* lab, uint32_t seed) {
  return tfp::api::guard("tfp_attn_lab_seed_weights", [&] {
    TFP_API_REQUIRE(lab, "tfp_attn_lab_seed_weights: lab is NULL");
    seed_weights(*lab, seed);
  });
}

int tfp_attn_lab_set_weights_fused(tfp_attn_lab* lab, const float* w_qkv, const float* b_qkv,
                                   const float* w_out, const float* b_out) {
  return tfp::api::guard("tfp_attn_lab_set_weights_fused", [&] {
    TFP_API_REQUIRE(lab, "tfp_attn_lab_set_weights_fused: lab is NULL");
    TFP_API_REQUIRE(w_qkv && w_out, "tfp_attn_lab_set_weights_fused: ", w_qkv ? "w_out" : "w_qkv",
                    " is NULL");
    const size_t C = static_cast<size_t>(lab->C);
    // Copy everything first, then commit: a failed allocation leaves the lab unchanged.
    auto wq = copy_floats(w_qkv, 3 * C * C), bq = copy_floats(b_qkv, 3 * C);
    auto wo = copy_floats(w_out, C * C), bo = copy_floats(b_out, C);
    lab->fused = true;
    lab->w_qkv = std::move(wq); lab->b_qkv = std::move(bq);
    lab->w_out = std::move(wo); lab->b_out = std::move(bo);
    lab->w_q.clear(); lab->b_q.clear(); lab->w_k.clear(); lab->b_k.clear(); lab->w_v.clear(); lab->b_v.clear();
  });
}

int tfp_attn_lab_set_weights_separate(tfp_attn_lab* lab, const tfp_attn_lab_weights_params* p) {
  if (!p) return tfp::api::null_params("tfp_attn_lab_set_weights_separate");
  const float *w_q = p->w_q, *b_q = p->b_q, *w_k = p->w_k, *b_k = p->b_k;
  const float *w_v = p->w_v, *b_v = p->b_v, *w_out = p->w_out, *b_out = p->b_out;
  return tfp::api::guard("tfp_attn_lab_set_weights_separate", [&] {
    TFP_API_REQUIRE(lab, "tfp_attn_lab_set_weights_separate: lab is NULL");
    TFP_API_REQUIRE(w_q && w_k && w_v && w_out,
                    "tfp_attn_lab_set_weights_separate: w_q, w_k, w_v and w_out are required");
    const size_t C = static_cast<size_t>(lab->C);
    auto wq = copy_floats(w_q, C * C), bq = copy_floats(b_q, C);
    auto wk = copy_floats(w_k, C * C), bk = copy_floats(b_k, C);
    auto wv = copy_floats(w_v, C * C), bv = copy_floats(b_v, C);
    auto wo = copy_floats(w_out, C * C), bo = copy_floats(b_out, C);
    lab->fused = false;
    lab->w_q = std::move(wq); lab->b_q = std::move(bq);
    lab->w_k = std::move(wk); lab->b_k = std::move(bk);
    lab->w_v = std::move(wv); lab->b_v = std::move(bv);
    lab->w_out = std::move(wo); lab->b_out = std::move(bo);
    lab->w_qkv.clear(); lab->b_qkv.clear();
  });
}

int tfp_attn_lab_set_mask(tfp_attn_lab* lab, int causal, int window) {
  return tfp::api::guard("tfp_attn_lab_set_mask", [&] {
    TFP_API_REQUIRE(lab, "tfp_attn_lab_set_mask: lab is NULL");
    TFP_API_REQUIRE(window >= 0, "attention lab: window must be 0 (off) or positive, got ", window);
    lab->causal = causal != 0;
    lab->window = window;
  });
}

int tfp_attn_lab_set_key_padding(tfp_attn_lab* lab, const uint8_t* padding, int T) {
  return tfp::api::guard("tfp_attn_lab_set_key_padding", [&] {
    TFP_API_REQUIRE(lab, "tfp_attn_lab_set_key_padding: lab is NULL");
    TFP_API_REQUIRE(T >= 0, "tfp_attn_lab_set_key_padding: T is ", T);
    if (!padding || T == 0) {
      lab->key_padding.clear();
      return;
    }
    lab->key_padding.assign(padding, padding + T);
    for (auto& p : lab->key_padding) p = p ? 1 : 0;
  });
}

int tfp_attn_lab_run(tfp_attn_lab* lab, const float* x, int T, tfp_tensors** out) {
  if (out) *out = nullptr;
  return tfp::api::guard("tfp_attn_lab_run", [&] {
    TFP_API_REQUIRE(lab && x && out, "tfp_attn_lab_run: ", !lab ? "lab" : !x ? "x" : "out", " is NULL");
    TFP_API_REQUIRE(T > 0, "attention lab: need at least one token, got T = ", T);
    const int C = lab->C, H = lab->H, D = C / H;
    const TensorView xv(x, {T, C});  // (T, C)
    const nn::AttentionMask mask = mask_of(*lab);

    // The block as models run it.
    nn::AttentionResult block = nn::multi_head_attention(xv, xv, weights_of(*lab), H, mask, true);

    // The same block step by step, for teaching.
    Tensor q = split_heads(nn::linear(xv, projection(*lab, 0), "attention lab: q projection"), H);
    Tensor k = split_heads(nn::linear(xv, projection(*lab, 1), "attention lab: k projection"), H);
    Tensor v = split_heads(nn::linear(xv, projection(*lab, 2), "attention lab: v projection"), H);
    const float scale = 1.0f / std::sqrt(static_cast<float>(D));
    nn::AttentionResult heads = nn::scaled_dot_product_attention(q, k, v, mask, scale, false);

    auto list = std::make_unique<tfp_tensors>();
    list->add("scores", head_scores(q, k, 1.0f));
    list->add("scaled_scores", head_scores(q, k, scale));
    list->add("q", std::move(q));
    list->add("k", std::move(k));
    list->add("v", std::move(v));
    list->add("masked", masked_pairs(mask, T));
    list->add("probs", std::move(block.probs));
    list->add("head_out", std::move(heads.out));
    list->add("out", std::move(block.out));
    *out = list.release();
  });
}

}  // extern "C"
