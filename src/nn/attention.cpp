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
#include "kernels/parallel.h"

namespace tfp::nn {

namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// One strided "(H, T, D)" operand: head h row r starts at data + h·head_stride + r·ld.
struct HeadsRef {
  const float* data;
  int64_t ld;           // row stride
  int64_t head_stride;  // distance between heads
};

// Everything after the scaled scores are in place for head h: soft-cap, score bias hook,
// additive mask, the -inf of forbidden positions, softmax. scores (Tq, Tk), row stride ld.
void mask_and_softmax(float* scores, int64_t ld, int h, int Tq, int Tk, float softcap,
                      const AttentionMask& mask, const AttentionHooks& hooks) {
  if (softcap > 0.0f)  // Gemma 2: squash every score into (-cap, cap) before the masks
    for (int i = 0; i < Tq; ++i)
      for (int j = 0; j < Tk; ++j) scores[i * ld + j] = softcap * std::tanh(scores[i * ld + j] / softcap);
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
// group: query heads per key/value head (GQA); query head h reads k, v head h / group.
// pattern: with hooks.edit_pattern, the (H, Tq, Tk) tensor behind `probs`: every head's
// softmax is computed first, edited, and only then multiplied by v.
void attend(HeadsRef q, HeadsRef k, HeadsRef v, float* out, int64_t ldo, int64_t out_head_stride,
            int H, int Tq, int Tk, int D, int Dv, float scale, const AttentionMask& mask,
            const AttentionHooks& hooks, float* probs, int group = 1, float softcap = 0.0f,
            Tensor* pattern = nullptr) {
  // Heads run on the kernels' thread pool (kernels/parallel.h) when the work is worth it:
  // head h writes only its probs and its out columns, so any split gives the same bits.
  const int64_t work = static_cast<int64_t>(H) * Tq * Tk * (D + Dv);
  const bool split = kernels::parallel_worth(work);
  const bool edit = pattern && hooks.edit_pattern;
  TFP_CHECK(!edit || (probs && pattern->ptr() == probs), "attention: edit_pattern needs the pattern tensor behind probs");
  const auto scores_of = [&](int h) -> float* {
    thread_local std::vector<float> scratch;  // one (Tq, Tk) per thread, reused per head
    if (!probs && scratch.size() < static_cast<size_t>(Tq) * Tk) scratch.resize(static_cast<size_t>(Tq) * Tk);
    float* s = probs ? probs + static_cast<int64_t>(h) * Tq * Tk : scratch.data();  // (Tq, Tk)

    // s = scale · q_h · k_hᵀ : k_h is (Tk, D) row-major, i.e. B in NK layout.
    kernels::MatmulArgs qk;
    qk.M = Tq; qk.N = Tk; qk.K = D;
    qk.A = q.data + h * q.head_stride; qk.lda = q.ld;
    qk.B = k.data + (h / group) * k.head_stride; qk.ldb = k.ld;
    qk.C = s; qk.ldc = Tk;
    qk.layout = kernels::BLayout::NK;
    qk.alpha = scale;
    kernels::matmul(qk);

    mask_and_softmax(s, Tk, h, Tq, Tk, softcap, mask, hooks);
    return s;
  };
  const auto values_of = [&](int h, const float* s) {
    // out_h = probs_h · v_h : v_h is (Tk, Dv) row-major, i.e. B in KN layout.
    kernels::MatmulArgs pv;
    pv.M = Tq; pv.N = Dv; pv.K = Tk;
    pv.A = s; pv.lda = Tk;
    pv.B = v.data + (h / group) * v.head_stride; pv.ldb = v.ld;
    pv.C = out + h * out_head_stride; pv.ldc = ldo;
    pv.layout = kernels::BLayout::KN;
    kernels::matmul(pv);
  };
  const auto each = [&](const auto& f) {
    if (split) {
      kernels::parallel_for(H, f);
    } else {
      for (int h = 0; h < H; ++h) f(h);
    }
  };
  if (!edit) {
    each([&](int h) { values_of(h, scores_of(h)); });
    return;
  }
  each([&](int h) { scores_of(h); });
  const Shape shape = pattern->shape;
  hooks.edit_pattern(*pattern);
  TFP_CHECK(pattern->shape == shape && pattern->ptr() == probs, "attention: edit_pattern changed the pattern's shape or storage");
  each([&](int h) { values_of(h, probs + static_cast<int64_t>(h) * Tq * Tk); });
}

// Hands a copy of a strided "(heads, T, D)" operand to `edit` and writes the edited values
// back (activation patching of q, k, v).
void edit_strided(const AttentionHooks::EditHeadsFn& edit, float* x, int64_t ld, int64_t heads, int64_t T, int64_t D,
                  const char* op, const char* what) {
  if (!edit || T == 0) return;
  Tensor t({heads, T, D});
  for (int64_t h = 0; h < heads; ++h)
    for (int64_t r = 0; r < T; ++r) std::copy(x + h * D + r * ld, x + h * D + r * ld + D, t.ptr() + (h * T + r) * D);
  edit(t);
  TFP_CHECK(t.shape == Shape({heads, T, D}), op, ": edit_", what, " changed its shape to ", shape_str(t.shape));
  for (int64_t h = 0; h < heads; ++h)
    for (int64_t r = 0; r < T; ++r) std::copy(t.ptr() + (h * T + r) * D, t.ptr() + (h * T + r + 1) * D, x + h * D + r * ld);
}

// Copies a strided "(H, T, D)" operand into a packed (H, T, D) tensor (inspector only);
// with group > 1 head h is source head h / group (GQA keys and values, one per query head).
Tensor gather_heads(HeadsRef x, int64_t H, int64_t T, int64_t D, int64_t group = 1) {
  Tensor out({H, T, D});
  for (int64_t h = 0; h < H; ++h)
    for (int64_t t = 0; t < T; ++t) {
      const float* src = x.data + (h / group) * x.head_stride + t * x.ld;
      std::copy(src, src + D, out.ptr() + (h * T + t) * D);
    }
  return out;
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

void AttentionCache::reset(int n_kv_heads, int64_t head_dim, int64_t cap) {
  TFP_CHECK(n_kv_heads > 0 && head_dim > 0 && cap > 0, "kv_cache: bad sizes: ", n_kv_heads,
            " key/value heads, head size ", head_dim, ", capacity ", cap);
  k = Tensor({n_kv_heads, cap, head_dim});
  v = Tensor({n_kv_heads, cap, head_dim});
  length = 0;
  capacity = cap;
}

namespace {

// The shapes of one call, worked out from the weights and the options.
struct Dims {
  int64_t H, Hkv, D, Oq, Okv;  // query heads, key/value heads, head size, q and k widths
};

Dims attention_dims(const AttentionWeights& w, const AttentionOptions& opt, const char* op) {
  TFP_CHECK(opt.n_heads > 0, op, ": n_heads must be > 0, got ", opt.n_heads);
  const bool classic = opt.n_kv_heads == 0 && opt.head_dim == 0;  // H heads of C / H
  if (classic && !w.qkv.empty() && w.qkv.weight.rank() == 2) {
    const int64_t C = w.qkv.in_features();
    TFP_CHECK(w.qkv.out_features() == 3 * C, op, ": fused qkv weight ", shape_str(w.qkv.weight.shape),
              w.qkv.layout == WeightLayout::OutIn ? " (out, in)" : " (in, out)", " must map C to 3C (q | k | v)");
    TFP_CHECK(C > 0 && C % opt.n_heads == 0, op, ": n_heads = ", opt.n_heads,
              " does not divide the model width C = ", C);
  }
  TFP_CHECK(opt.n_kv_heads >= 0 && opt.head_dim >= 0, op, ": n_kv_heads and head_dim must be >= 0");
  Dims d{};
  d.H = opt.n_heads;
  d.Hkv = opt.n_kv_heads > 0 ? opt.n_kv_heads : d.H;
  TFP_CHECK(d.H % d.Hkv == 0, op, ": ", d.Hkv, " key/value heads do not divide ", d.H, " query heads");
  if (!w.qkv.empty()) {
    TFP_CHECK(w.qkv.weight.rank() == 2, op, ": qkv weight must be 2-D, got ", shape_str(w.qkv.weight.shape));
    const int64_t O = w.qkv.out_features();
    // O = H·D + 2·Hkv·D
    d.D = opt.head_dim > 0 ? opt.head_dim : O / (d.H + 2 * d.Hkv);
    TFP_CHECK(d.D > 0 && O == (d.H + 2 * d.Hkv) * d.D, op, ": fused qkv weight ", shape_str(w.qkv.weight.shape),
              w.qkv.layout == WeightLayout::OutIn ? " (out, in)" : " (in, out)", " does not hold q | k | v for ",
              d.H, " query and ", d.Hkv, " key/value heads");
  } else {
    TFP_CHECK(!w.q.empty() && !w.k.empty() && !w.v.empty(), op,
              ": weights need either a fused qkv projection or all of q, k, v");
    const int64_t Oq = w.q.out_features();
    TFP_CHECK(opt.head_dim > 0 || Oq % d.H == 0, op, ": n_heads = ", d.H,
              " does not divide the query width ", Oq);
    d.D = opt.head_dim > 0 ? opt.head_dim : Oq / d.H;
    TFP_CHECK(Oq == d.H * d.D, op, ": q projection ", shape_str(w.q.weight.shape), " gives ", Oq,
              " features, expected ", d.H, " heads × ", d.D);
    TFP_CHECK(w.k.out_features() == d.Hkv * d.D && w.v.out_features() == d.Hkv * d.D, op,
              ": k and v projections must give ", d.Hkv, " heads × ", d.D, " = ", d.Hkv * d.D,
              " features; weights are q ", shape_str(w.q.weight.shape), ", k ", shape_str(w.k.weight.shape),
              ", v ", shape_str(w.v.weight.shape));
  }
  d.Oq = d.H * d.D;
  d.Okv = d.Hkv * d.D;
  return d;
}

// Norms every D-wide head block of T rows (row stride ld, `heads` blocks per row) in place.
void norm_heads(float* x, int64_t T, int64_t ld, int64_t heads, int64_t D, const LayerNormWeights& n,
                const char* op) {
  for (int64_t t = 0; t < T; ++t) norm_rows_inplace(x + t * ld, heads, D, n, op);
}

// Writes T new rows of Hkv strided heads into the cache at its current length.
void append_to_cache(AttentionCache& c, HeadsRef k, HeadsRef v, int64_t Hkv, int64_t T, int64_t D) {
  for (int64_t g = 0; g < Hkv; ++g)
    for (int64_t t = 0; t < T; ++t) {
      const int64_t dst = (g * c.capacity + c.length + t) * D;
      std::copy(k.data + g * k.head_stride + t * k.ld, k.data + g * k.head_stride + t * k.ld + D, c.k.ptr() + dst);
      std::copy(v.data + g * v.head_stride + t * v.ld, v.data + g * v.head_stride + t * v.ld + D, c.v.ptr() + dst);
    }
  c.length += T;
}

}  // namespace

namespace {

AttentionResult attention_named(const char* op,           // names the caller in errors
                                const TensorView& x_q,    // (Tq, C)
                                const TensorView& x_kv,   // (Tk, Ckv)
                                const AttentionWeights& w, const AttentionOptions& opt,
                                const AttentionMask& mask, bool need_probs, const AttentionHooks& hooks,
                                bool need_heads, AttentionCache* cache) {
  TFP_CHECK(x_q.rank() == 2, op, ": query input must be (T, C); got ", shape_str(x_q.shape));
  const int64_t Tq = x_q.shape[0];
  const bool reuse_memory = cache && cache->memory && cache->length > 0;
  TFP_CHECK(reuse_memory || x_kv.rank() == 2, op, ": key/value input must be (T, C); got ",
            shape_str(x_kv.shape));
  const int64_t Tnew = reuse_memory ? 0 : x_kv.shape[0];  // key/value rows projected now
  TFP_CHECK(Tq > 0 && (reuse_memory || Tnew > 0), op, ": empty sequence: query ", shape_str(x_q.shape),
            ", key/value ", shape_str(x_kv.shape));
  const Dims d = attention_dims(w, opt, op);
  const int64_t H = d.H, Hkv = d.Hkv, D = d.D;
  const bool fused = !w.qkv.empty();
  const bool self = !reuse_memory && x_q.data == x_kv.data && x_q.shape == x_kv.shape;
  if (fused && !reuse_memory)
    TFP_CHECK(x_q.shape[1] == w.qkv.in_features() && x_kv.shape[1] == w.qkv.in_features(), op, ": query ",
              shape_str(x_q.shape), " and key/value ", shape_str(x_kv.shape), " must be C = ",
              w.qkv.in_features(), " wide for fused qkv weight ", shape_str(w.qkv.weight.shape));

  // 1. Projections. Head h of a projection is columns [h·D, (h+1)·D): offset h·D, row
  //    stride unchanged, never copied.
  Tensor qkv, q_t, kv_t, k_t, v_t;
  HeadsRef qr{}, kr{}, vr{};
  if (fused && self) {  // one matmul for all three: (T, Oq + 2·Okv), q | k | v side by side
    const int64_t O = d.Oq + 2 * d.Okv;
    qkv = linear_slice(x_q, w.qkv, 0, O, op);
    qr = {qkv.ptr(), O, D};
    kr = {qkv.ptr() + d.Oq, O, D};
    vr = {qkv.ptr() + d.Oq + d.Okv, O, D};
  } else {
    q_t = fused ? linear_slice(x_q, w.qkv, 0, d.Oq, op) : linear(x_q, w.q, op);
    qr = {q_t.ptr(), d.Oq, D};
    if (!reuse_memory) {
      if (fused) {  // cross-attention: k | v from x_kv
        kv_t = linear_slice(x_kv, w.qkv, d.Oq, d.Oq + 2 * d.Okv, op);
        kr = {kv_t.ptr(), 2 * d.Okv, D};
        vr = {kv_t.ptr() + d.Okv, 2 * d.Okv, D};
      } else {
        k_t = linear(x_kv, w.k, op);
        v_t = linear(x_kv, w.v, op);
        kr = {k_t.ptr(), d.Okv, D};
        vr = {v_t.ptr(), d.Okv, D};
      }
    }
  }
  TFP_CHECK(Tq * H <= INT_MAX && Tnew * d.Okv <= INT_MAX && Tq * d.Oq <= INT_MAX, op,
            ": sizes too large: query ", shape_str(x_q.shape), ", key/value ", shape_str(x_kv.shape));
  if (!w.out.empty())
    TFP_CHECK(w.out.in_features() == d.Oq, op, ": output projection ", shape_str(w.out.weight.shape),
              " must take H·D = ", d.Oq, " input features");

  // 2. Per-head q/k norms, then rotation at absolute positions (our own buffers: writable).
  //    With a self-attention cache the new keys continue after the cached ones.
  const int64_t new_k_pos0 = hooks.kv_pos0 + (cache && !cache->memory ? cache->length : 0);
  float* qw = const_cast<float*>(qr.data);
  float* kw = const_cast<float*>(kr.data);
  if (!w.q_norm.empty()) norm_heads(qw, Tq, qr.ld, H, D, w.q_norm, "attention.q_norm");
  if (!w.k_norm.empty() && Tnew > 0) norm_heads(kw, Tnew, kr.ld, Hkv, D, w.k_norm, "attention.k_norm");

  // 3. Keys and values to attend over: this call's projections, or the cache.
  int64_t Tk = Tnew;
  if (cache) {
    if (cache->memory) {
      if (!reuse_memory) {
        cache->reset(static_cast<int>(Hkv), D, Tnew);
        cache->memory = true;
        append_to_cache(*cache, kr, vr, Hkv, Tnew, D);
      }
    } else {
      TFP_CHECK(cache->k.rank() == 3 && cache->k.dim(0) == Hkv && cache->k.dim(2) == D, op,
                ": cache shaped ", shape_str(cache->k.shape), " does not fit ", Hkv, " key/value heads of size ", D);
      TFP_CHECK(cache->length + Tnew <= cache->capacity, op, ": ", cache->length, " cached + ", Tnew,
                " new positions exceed the cache capacity ", cache->capacity);
    }
    Tk = cache->memory ? cache->length : cache->length + Tnew;
  }
  const int64_t q_pos0 = hooks.kv_pos0 + (Tk - Tq);
  TFP_CHECK(Tk >= Tq || !self, op, ": ", Tq, " queries but only ", Tk, " keys");
  if (hooks.rotate) {  // RoPE and friends rotate q and k head by head
    for (int64_t h = 0; h < H; ++h)
      hooks.rotate(qw + h * D, static_cast<int>(Tq), static_cast<int>(D), qr.ld, q_pos0);
    for (int64_t g = 0; g < Hkv && Tnew > 0; ++g)
      hooks.rotate(kw + g * D, static_cast<int>(Tnew), static_cast<int>(D), kr.ld, new_k_pos0);
  }
  edit_strided(hooks.edit_q, qw, qr.ld, H, Tq, D, op, "q");
  edit_strided(hooks.edit_k, kw, kr.ld, Hkv, Tnew, D, op, "k");
  edit_strided(hooks.edit_v, const_cast<float*>(vr.data), vr.ld, Hkv, Tnew, D, op, "v");
  if (cache && !cache->memory) append_to_cache(*cache, kr, vr, Hkv, Tnew, D);
  if (cache) {  // attend over the cached rows: head g's are one contiguous block
    kr = {cache->k.ptr(), D, cache->capacity * D};
    vr = {cache->v.ptr(), D, cache->capacity * D};
  }
  TFP_CHECK(Tq * Tk * H <= INT_MAX, op, ": sizes too large: ", Tq, " queries × ", Tk, " keys × ", H, " heads");
  validate_attention_mask(op, mask, static_cast<int>(H), static_cast<int>(Tq), static_cast<int>(Tk));

  // 4. Scores, softmax, values — per query head.
  AttentionResult r;
  const int64_t group = H / Hkv;
  if (need_heads) {  // the inspector's copies of exactly what the scores are made of
    r.q = gather_heads(qr, H, Tq, D);
    r.k = gather_heads(kr, H, Tk, D, group);
    r.v = gather_heads(vr, H, Tk, D, group);
  }
  if (need_probs || hooks.edit_pattern) r.probs = Tensor({H, Tq, Tk});
  const float scale = opt.scale > 0.0f ? opt.scale : 1.0f / std::sqrt(static_cast<float>(D));
  TFP_CHECK(std::isfinite(scale) && opt.softcap >= 0.0f, op, ": bad scale ", scale, " or soft-cap ", opt.softcap);
  Tensor heads({Tq, d.Oq});  // head h writes its (Tq, D) into columns [h·D, (h+1)·D)
  attend(qr, kr, vr, heads.ptr(), d.Oq, D, static_cast<int>(H), static_cast<int>(Tq), static_cast<int>(Tk),
         static_cast<int>(D), static_cast<int>(D), scale, mask, hooks, r.probs.empty() ? nullptr : r.probs.ptr(),
         static_cast<int>(group), opt.softcap, hooks.edit_pattern ? &r.probs : nullptr);
  if (!need_probs) r.probs = Tensor{};

  // 5. Edits of the per-head outputs flow on; then the output projection.
  if (need_heads || hooks.edit_heads) r.head_out = gather_heads({heads.ptr(), d.Oq, D}, H, Tq, D);
  if (hooks.edit_heads) {
    hooks.edit_heads(r.head_out);
    TFP_CHECK(r.head_out.shape == Shape({H, Tq, D}), op, ": edit_heads changed head_out to ",
              shape_str(r.head_out.shape), ", expected [", H, ", ", Tq, ", ", D, "]");
    for (int64_t h = 0; h < H; ++h)
      for (int64_t t = 0; t < Tq; ++t)
        std::copy(r.head_out.ptr() + (h * Tq + t) * D, r.head_out.ptr() + (h * Tq + t + 1) * D,
                  heads.ptr() + t * d.Oq + h * D);
  }
  if (!need_heads) r.head_out = Tensor{};
  r.out = w.out.empty() ? std::move(heads) : linear(heads, w.out, op);
  return r;
}

}  // namespace

AttentionResult attention(const TensorView& x_q, const TensorView& x_kv, const AttentionWeights& w,
                          const AttentionOptions& opt, const AttentionMask& mask, bool need_probs,
                          const AttentionHooks& hooks, bool need_heads, AttentionCache* cache) {
  return attention_named("attention", x_q, x_kv, w, opt, mask, need_probs, hooks, need_heads, cache);
}

AttentionResult multi_head_attention(const TensorView& x_q, const TensorView& x_kv,
                                     const AttentionWeights& w, int n_heads,
                                     const AttentionMask& mask, bool need_probs,
                                     const AttentionHooks& hooks, bool need_heads) {
  TFP_CHECK(x_q.rank() == 2 && x_kv.rank() == 2, "multi_head_attention: inputs must be (T, C); got query ",
            shape_str(x_q.shape), ", key/value ", shape_str(x_kv.shape));
  AttentionOptions opt;
  opt.n_heads = n_heads;
  return attention_named("multi_head_attention", x_q, x_kv, w, opt, mask, need_probs, hooks, need_heads, nullptr);
}

}  // namespace tfp::nn
