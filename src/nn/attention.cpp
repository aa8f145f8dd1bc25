// Scaled dot-product attention and multi-head attention, one sequence at a time.
//
//   scores = q·kᵀ / √D          how well each query matches each key
//   scores += masks and biases  (additive mask, positional bias, -inf where forbidden)
//   probs  = softmax(scores)    one distribution over keys per query (row)
//   out    = probs·v            each query's weighted average of the values
//
// Multi-head attention runs this H times on D = C/H wide slices of the projected
// q, k, v and concatenates the results before the output projection. The slices are
// never copied: head h of a (T, C) projection is the column block [h·D, (h+1)·D), i.e.
// a pointer offset h·D with row stride C, which the matmul kernel takes directly.
//
// What this file deliberately does not do: batching (callers loop over sequences),
// dropout (inference only), fused/flash attention (the (Tq, Tk) scores of one head are
// materialised, which is what the inspector wants to see anyway).
//
// Legend: Tq query tokens, Tk key/value tokens, C model width, H heads, D = C/H head size.
#include "nn/attention.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>

#include "kernels/kernels.h"

namespace tfp::nn {

namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// One strided "(H, T, D)" operand: head h row r starts at data + h·head_stride + r·ld.
struct HeadsRef {
  const float* data;
  int64_t ld;           // row stride
  int64_t head_stride;  // distance between heads
};

// Everything after the scores are in place for head h: additive mask, score bias hook,
// the -inf of forbidden positions, softmax. scores (Tq, Tk) with row stride ld.
void mask_and_softmax(float* scores, int64_t ld, int h, int Tq, int Tk,
                      const AttentionMask& mask, const AttentionHooks& hooks) {
  if (hooks.score_bias) {
    const int64_t q_pos0 = hooks.kv_pos0 + (Tk - Tq);
    hooks.score_bias(h, scores, Tq, Tk, ld, q_pos0, hooks.kv_pos0);
  }
  apply_attention_mask(scores, ld, h, Tq, Tk, mask);
  // Subtracts the row max first; an all -inf row (every key forbidden) comes out all 0.
  kernels::softmax_rows(scores, Tq, Tk, ld);
}

// The shared core: per head, scores → mask → softmax → probs·v into out.
// probs: (H, Tq, Tk) to fill, or null (then one (Tq, Tk) scratch is reused per head).
void attend(HeadsRef q, HeadsRef k, HeadsRef v, float* out, int64_t ldo, int64_t out_head_stride,
            int H, int Tq, int Tk, int D, int Dv, float scale, const AttentionMask& mask,
            const AttentionHooks& hooks, float* probs) {
  std::vector<float> scratch;
  if (!probs) scratch.resize(static_cast<size_t>(Tq) * Tk);
  for (int h = 0; h < H; ++h) {
    float* s = probs ? probs + static_cast<int64_t>(h) * Tq * Tk : scratch.data();  // (Tq, Tk)

    // s = scale · q_h · k_hᵀ : k_h is (Tk, D) row-major, i.e. B in NK layout.
    kernels::MatmulArgs qk;
    qk.M = Tq; qk.N = Tk; qk.K = D;
    qk.A = q.data + h * q.head_stride; qk.lda = q.ld;
    qk.B = k.data + h * k.head_stride; qk.ldb = k.ld;
    qk.C = s; qk.ldc = Tk;
    qk.layout = kernels::BLayout::NK;
    qk.alpha = scale;
    kernels::matmul(qk);

    mask_and_softmax(s, Tk, h, Tq, Tk, mask, hooks);

    // out_h = probs_h · v_h : v_h is (Tk, Dv) row-major, i.e. B in KN layout.
    kernels::MatmulArgs pv;
    pv.M = Tq; pv.N = Dv; pv.K = Tk;
    pv.A = s; pv.lda = Tk;
    pv.B = v.data + h * v.head_stride; pv.ldb = v.ld;
    pv.C = out + h * out_head_stride; pv.ldc = ldo;
    pv.layout = kernels::BLayout::KN;
    kernels::matmul(pv);
  }
}

// Copies a strided "(H, T, D)" operand into a packed (H, T, D) tensor (inspector only).
Tensor gather_heads(HeadsRef x, int64_t H, int64_t T, int64_t D) {
  Tensor out({H, T, D});
  for (int64_t h = 0; h < H; ++h)
    for (int64_t t = 0; t < T; ++t) {
      const float* src = x.data + h * x.head_stride + t * x.ld;
      std::copy(src, src + D, out.ptr() + (h * T + t) * D);
    }
  return out;
}

// Projection of x by output features [o0, o1) of `layer` (the whole layer by default).
Tensor project(const TensorView& x, const Linear& layer, int64_t o0, int64_t o1, const char* op) {
  return linear_slice(x, layer, o0, o1, op);
}

}  // namespace

void validate_attention_mask(const char* op, const AttentionMask& mask, int H, int Tq, int Tk) {
  TFP_CHECK(mask.window >= 0, op, ": mask window must be >= 0 (0 = no window), got ",
            mask.window);
  TFP_CHECK(mask.key_padding.empty() || static_cast<int64_t>(mask.key_padding.size()) == Tk,
            op, ": key_padding has ", mask.key_padding.size(), " entries, expected Tk = ", Tk);
  if (!mask.additive.empty()) {
    const Shape& s = mask.additive.shape;
    const bool ok = (s.size() == 2 && s[0] == Tq && s[1] == Tk) ||
                    (s.size() == 3 && s[0] == H && s[1] == Tq && s[2] == Tk);
    TFP_CHECK(ok, op, ": additive mask has shape ", shape_str(s), ", expected [", Tq, ", ", Tk,
              "] or [", H, ", ", Tq, ", ", Tk, "] (H, Tq, Tk)");
  }
}

bool attention_allowed(const AttentionMask& mask, int i, int j, int Tq, int Tk) {
  const int64_t qi = static_cast<int64_t>(i) + (Tk - Tq);  // query i sits at key position qi
  if (!mask.key_padding.empty() && mask.key_padding[j] != 0) return false;
  if (mask.causal && j > qi) return false;
  if (mask.window > 0 && (j > qi + mask.window || j < qi - mask.window)) return false;
  return true;
}

void apply_attention_mask(float* scores,  // (Tq, Tk), row stride ld
                          int64_t ld, int head, int Tq, int Tk, const AttentionMask& mask) {
  if (!mask.additive.empty()) {
    const float* add = mask.additive.ptr();
    if (mask.additive.rank() == 3) add += static_cast<int64_t>(head) * Tq * Tk;
    for (int i = 0; i < Tq; ++i)
      for (int j = 0; j < Tk; ++j) scores[i * ld + j] += add[static_cast<int64_t>(i) * Tk + j];
  }
  if (!mask.causal && mask.window == 0 && mask.key_padding.empty()) return;
  // Forbidden positions become -inf, so exp() turns them into exactly 0 — a large
  // negative number would leave a tiny nonzero weight and break "masked = unseen".
  for (int i = 0; i < Tq; ++i)
    for (int j = 0; j < Tk; ++j)
      if (!attention_allowed(mask, i, j, Tq, Tk)) scores[i * ld + j] = kNegInf;
}

void check_qkv_shapes(const char* op, const TensorView& q, const TensorView& k, const TensorView& v) {
  TFP_CHECK(q.rank() == 3 && k.rank() == 3 && v.rank() == 3, op,
            ": q, k, v must be (H, T, D); got q ", shape_str(q.shape), ", k ", shape_str(k.shape),
            ", v ", shape_str(v.shape));
  TFP_CHECK(k.shape[0] == q.shape[0] && v.shape[0] == q.shape[0] && k.shape[2] == q.shape[2] &&
                v.shape[1] == k.shape[1],
            op, ": shapes disagree: q ", shape_str(q.shape), " (H, Tq, D), k ", shape_str(k.shape),
            " (H, Tk, D), v ", shape_str(v.shape), " (H, Tk, Dv)");
}

AttentionResult scaled_dot_product_attention(const TensorView& q,  // (H, Tq, D)
                                             const TensorView& k,  // (H, Tk, D)
                                             const TensorView& v,  // (H, Tk, Dv)
                                             const AttentionMask& mask, float scale,
                                             bool need_probs, const AttentionHooks& hooks) {
  const char* op = "scaled_dot_product_attention";
  check_qkv_shapes(op, q, k, v);
  const int64_t H = q.shape[0], Tq = q.shape[1], D = q.shape[2];
  const int64_t Tk = k.shape[1], Dv = v.shape[2];
  TFP_CHECK(H > 0 && Tq > 0 && Tk > 0 && D > 0 && Dv > 0, op,
            ": empty attention: q ", shape_str(q.shape), ", k ", shape_str(k.shape), ", v ",
            shape_str(v.shape), " (H, Tq, Tk, D must be > 0)");
  TFP_CHECK(H * Tq * Tk <= INT_MAX && H * Tk * D <= INT_MAX && H * Tq * D <= INT_MAX, op,
            ": sizes too large: q ", shape_str(q.shape), ", k ", shape_str(k.shape));
  TFP_CHECK(std::isfinite(scale), op, ": scale must be finite, got ", scale);
  validate_attention_mask(op, mask, static_cast<int>(H), static_cast<int>(Tq), static_cast<int>(Tk));

  AttentionResult r;
  r.out = Tensor({H, Tq, Dv});
  if (need_probs) r.probs = Tensor({H, Tq, Tk});

  HeadsRef qr{q.data, D, Tq * D}, kr{k.data, D, Tk * D}, vr{v.data, Dv, Tk * Dv};
  std::vector<float> q_rot, k_rot;
  if (hooks.rotate) {  // rotate copies: the caller's q and k are read-only views
    q_rot.assign(q.data, q.data + q.numel());
    k_rot.assign(k.data, k.data + k.numel());
    const int64_t q_pos0 = hooks.kv_pos0 + (Tk - Tq);
    for (int64_t h = 0; h < H; ++h) {
      hooks.rotate(q_rot.data() + h * Tq * D, static_cast<int>(Tq), static_cast<int>(D), D, q_pos0);
      hooks.rotate(k_rot.data() + h * Tk * D, static_cast<int>(Tk), static_cast<int>(D), D,
                   hooks.kv_pos0);
    }
    qr.data = q_rot.data();
    kr.data = k_rot.data();
  }
  attend(qr, kr, vr, r.out.ptr(), Dv, Tq * Dv, static_cast<int>(H), static_cast<int>(Tq),
         static_cast<int>(Tk), static_cast<int>(D), static_cast<int>(Dv), scale, mask, hooks,
         need_probs ? r.probs.ptr() : nullptr);
  return r;
}

AttentionResult multi_head_attention(const TensorView& x_q,   // (Tq, C)
                                     const TensorView& x_kv,  // (Tk, Ckv)
                                     const AttentionWeights& w, int n_heads,
                                     const AttentionMask& mask, bool need_probs,
                                     const AttentionHooks& hooks, bool need_heads) {
  const char* op = "multi_head_attention";
  TFP_CHECK(x_q.rank() == 2 && x_kv.rank() == 2, op, ": inputs must be (T, C); got query ",
            shape_str(x_q.shape), ", key/value ", shape_str(x_kv.shape));
  const int64_t Tq = x_q.shape[0], Tk = x_kv.shape[0];
  TFP_CHECK(Tq > 0 && Tk > 0, op, ": empty sequence: query ", shape_str(x_q.shape),
            ", key/value ", shape_str(x_kv.shape));
  TFP_CHECK(n_heads > 0, op, ": n_heads must be > 0, got ", n_heads);

  const bool fused = !w.qkv.empty();
  const bool self = x_q.data == x_kv.data && x_q.shape == x_kv.shape;
  int64_t C = 0;
  Tensor qkv, q_t, k_t, v_t;  // projections
  HeadsRef qr{}, kr{}, vr{};
  if (fused) {
    TFP_CHECK(w.qkv.weight.rank() == 2, op, ": qkv weight must be 2-D, got ",
              shape_str(w.qkv.weight.shape));
    const int64_t O = w.qkv.out_features();
    C = w.qkv.in_features();
    TFP_CHECK(O == 3 * C, op, ": fused qkv weight ", shape_str(w.qkv.weight.shape),
              w.qkv.layout == WeightLayout::OutIn ? " (out, in)" : " (in, out)",
              " must map C to 3C (q | k | v)");
    TFP_CHECK(x_q.shape[1] == C && x_kv.shape[1] == C, op, ": query ", shape_str(x_q.shape),
              " and key/value ", shape_str(x_kv.shape), " must be C = ", C,
              " wide for fused qkv weight ", shape_str(w.qkv.weight.shape));
    if (self) {  // one matmul for all three: (T, 3C), q | k | v side by side
      qkv = project(x_q, w.qkv, 0, 3 * C, op);
      qr = {qkv.ptr(), 3 * C, 0};
      kr = {qkv.ptr() + C, 3 * C, 0};
      vr = {qkv.ptr() + 2 * C, 3 * C, 0};
    } else {  // cross-attention: q from x_q, k | v from x_kv
      q_t = project(x_q, w.qkv, 0, C, op);
      k_t = project(x_kv, w.qkv, C, 3 * C, op);  // (Tk, 2C): k | v
      qr = {q_t.ptr(), C, 0};
      kr = {k_t.ptr(), 2 * C, 0};
      vr = {k_t.ptr() + C, 2 * C, 0};
    }
  } else {
    TFP_CHECK(!w.q.empty() && !w.k.empty() && !w.v.empty(), op,
              ": weights need either a fused qkv projection or all of q, k, v");
    C = w.q.out_features();
    TFP_CHECK(w.k.out_features() == C && w.v.out_features() == C, op,
              ": q, k, v projections must all output C = ", C, " features; weights are q ",
              shape_str(w.q.weight.shape), ", k ", shape_str(w.k.weight.shape), ", v ",
              shape_str(w.v.weight.shape));
    q_t = project(x_q, w.q, 0, C, op);  // each also checks its input width
    k_t = project(x_kv, w.k, 0, C, op);
    v_t = project(x_kv, w.v, 0, C, op);
    qr = {q_t.ptr(), C, 0};
    kr = {k_t.ptr(), C, 0};
    vr = {v_t.ptr(), C, 0};
  }
  TFP_CHECK(C > 0 && C % n_heads == 0, op, ": n_heads = ", n_heads,
            " does not divide the model width C = ", C);
  TFP_CHECK(Tq * Tk * n_heads <= INT_MAX && Tq * C <= INT_MAX && Tk * C <= INT_MAX, op,
            ": sizes too large: query ", shape_str(x_q.shape), ", key/value ", shape_str(x_kv.shape));
  const int64_t D = C / n_heads;
  if (!w.out.empty()) {
    TFP_CHECK(w.out.in_features() == C, op, ": output projection ", shape_str(w.out.weight.shape),
              " must take C = ", C, " input features");
  }
  validate_attention_mask(op, mask, n_heads, static_cast<int>(Tq), static_cast<int>(Tk));

  // Head h of every projection is columns [h·D, (h+1)·D): offset h·D, row stride unchanged.
  qr.head_stride = kr.head_stride = vr.head_stride = D;

  if (hooks.rotate) {  // RoPE and friends rotate q and k in place, head by head
    float* qw = const_cast<float*>(qr.data);  // points into our own projections
    float* kw = const_cast<float*>(kr.data);
    const int64_t q_pos0 = hooks.kv_pos0 + (Tk - Tq);
    for (int h = 0; h < n_heads; ++h) {
      hooks.rotate(qw + h * D, static_cast<int>(Tq), static_cast<int>(D), qr.ld, q_pos0);
      hooks.rotate(kw + h * D, static_cast<int>(Tk), static_cast<int>(D), kr.ld, hooks.kv_pos0);
    }
  }

  AttentionResult r;
  if (need_heads) {  // the inspector's copies of exactly what the scores are made of
    r.q = gather_heads(qr, n_heads, Tq, D);
    r.k = gather_heads(kr, n_heads, Tk, D);
    r.v = gather_heads(vr, n_heads, Tk, D);
  }
  if (need_probs) r.probs = Tensor({n_heads, Tq, Tk});
  Tensor heads({Tq, C});  // (Tq, C): head h writes its (Tq, D) into columns [h·D, (h+1)·D)
  attend(qr, kr, vr, heads.ptr(), C, D, n_heads, static_cast<int>(Tq), static_cast<int>(Tk),
         static_cast<int>(D), static_cast<int>(D), 1.0f / std::sqrt(static_cast<float>(D)), mask,
         hooks, need_probs ? r.probs.ptr() : nullptr);

  if (need_heads || hooks.edit_heads) r.head_out = gather_heads({heads.ptr(), C, D}, n_heads, Tq, D);
  if (hooks.edit_heads) {  // the edit flows on: scatter the edited heads back before the projection
    hooks.edit_heads(r.head_out);
    TFP_CHECK(r.head_out.shape == Shape({n_heads, Tq, D}), op, ": edit_heads changed head_out to ",
              shape_str(r.head_out.shape), ", expected [", n_heads, ", ", Tq, ", ", D, "]");
    for (int64_t h = 0; h < n_heads; ++h)
      for (int64_t t = 0; t < Tq; ++t)
        std::copy(r.head_out.ptr() + (h * Tq + t) * D, r.head_out.ptr() + (h * Tq + t + 1) * D,
                  heads.ptr() + t * C + h * D);
  }
  if (!need_heads) r.head_out = Tensor{};
  r.out = w.out.empty() ? std::move(heads) : linear(heads, w.out, op);
  return r;
}

}  // namespace tfp::nn
