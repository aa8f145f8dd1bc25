// The decoder layer: masked self-attention, cross-attention over the encoder memory,
// feed-forward — each inside a residual with a LayerNorm (post-LN or pre-LN, as in
// encoder_layer.cpp).
//
// Without a cache the attention sublayers are nn::multi_head_attention. With a cache the
// self-attention is done here by hand, because it must keep state between calls:
// project only the new tokens to q, k, v; append k, v to the cache; let the new queries
// attend over all cached keys. The causal mask stays correct because AttentionMask's
// causal rule is cache-aware (query i sees keys j <= i + (Tk - Tq)).
#include "nn/decoder_layer.h"

#include <cmath>
#include <cstring>

#include "nn/attention_report.h"

namespace tfp::nn {

void DecoderLayerCache::reset(int n_heads, int64_t head_dim, int64_t cap) {
  TFP_CHECK(n_heads > 0 && head_dim > 0 && cap > 0, "kv_cache: bad sizes: ", n_heads, " heads, ",
            head_dim, " head dim, capacity ", cap);
  k = Tensor({n_heads, cap, head_dim});
  v = Tensor({n_heads, cap, head_dim});
  length = 0;
  capacity = cap;
  cross_k = {};
  cross_v = {};
  has_memory = false;
}

namespace {

// Output features [part·C, (part+1)·C) of the projection: q (0), k (1) or v (2).
Tensor project(const TensorView& x,  // (T, Cin)
               const AttentionWeights& w, int part, int64_t C, const char* op) {
  if (!w.qkv.empty()) return linear_slice(x, w.qkv, part * C, (part + 1) * C, op);
  const Linear& l = part == 0 ? w.q : part == 1 ? w.k : w.v;
  TFP_CHECK(!l.empty(), op, ": attention has neither a fused qkv nor a ",
            part == 0 ? "q" : part == 1 ? "k" : "v", " projection");
  return linear(x, l, op);
}

// The model width C of an attention block (the output width of its q projection).
int64_t attn_width(const AttentionWeights& w) {
  if (!w.qkv.empty()) return w.qkv.out_features() / 3;
  return w.q.out_features();
}

// (T, C) → (H, T, D): head h takes channels [h·D, (h+1)·D).
Tensor split_heads(const Tensor& x, int H) {
  const int64_t T = x.dim(0), C = x.dim(1), D = C / H;
  Tensor out({H, T, D});
  for (int h = 0; h < H; ++h)
    for (int64_t t = 0; t < T; ++t)
      std::memcpy(out.ptr() + (h * T + t) * D, x.ptr() + t * C + h * D, D * sizeof(float));
  return out;
}

// Finish attention: heads back side by side (T, C), then the output projection.
Tensor merge_and_project(const Tensor& heads,  // (H, T, D)
                         const AttentionWeights& w, const char* op) {
  const int64_t H = heads.dim(0), T = heads.dim(1), D = heads.dim(2);
  Tensor merged({T, H * D});
  for (int64_t h = 0; h < H; ++h)
    for (int64_t t = 0; t < T; ++t)
      std::memcpy(merged.ptr() + t * H * D + h * D, heads.ptr() + (h * T + t) * D,
                  D * sizeof(float));
  if (w.out.empty()) return merged;
  return linear(merged.view(), w.out, op);
}

// Self-attention of the T new tokens over every cached position (and themselves).
AttentionResult cached_self_attention(const TensorView& x,  // (T, C) already normed if pre-LN
                                      const AttentionWeights& w, int H,
                                      const AttentionMask& mask, DecoderLayerCache& cache,
                                      bool need_probs, bool need_heads,
                                      const AttentionHooks::EditHeadsFn& edit_heads) {
  const char* op = "decoder_layer.cached_self_attention";
  TFP_CHECK(mask.additive.empty() && mask.key_padding.empty(), op,
            ": with a KV cache only the causal/window mask is supported (got an additive or "
            "key-padding mask)");
  const int64_t T = x.dim(0), C = attn_width(w), D = C / H;
  TFP_CHECK(cache.k.rank() == 3 && cache.k.dim(0) == H && cache.k.dim(2) == D, op,
            ": cache shaped ", shape_str(cache.k.shape), " does not fit ", H, " heads of size ", D);
  TFP_CHECK(cache.length + T <= cache.capacity, op, ": ", cache.length, " cached + ", T,
            " new positions exceed the cache capacity ", cache.capacity);
  const Tensor q = split_heads(project(x, w, 0, C, op), H);  // (H, T, D)
  const Tensor k = project(x, w, 1, C, op);                  // (T, C)
  const Tensor v = project(x, w, 2, C, op);                  // (T, C)
  // Append: head h, position length + t.
  for (int h = 0; h < H; ++h)
    for (int64_t t = 0; t < T; ++t) {
      const int64_t dst = (h * cache.capacity + cache.length + t) * D;
      std::memcpy(cache.k.ptr() + dst, k.ptr() + t * C + h * D, D * sizeof(float));
      std::memcpy(cache.v.ptr() + dst, v.ptr() + t * C + h * D, D * sizeof(float));
    }
  cache.length += T;
  const int64_t Tk = cache.length;

  AttentionMask m;
  m.causal = mask.causal;
  m.window = mask.window;
  const float scale = 1.0f / std::sqrt(static_cast<float>(D));
  Tensor heads({H, T, D});
  AttentionResult res;
  if (need_probs) res.probs = Tensor({H, T, Tk});
  // One head at a time: head h's cached keys are one contiguous (Tk, D) block.
  for (int h = 0; h < H; ++h) {
    const TensorView qh(q.ptr() + h * T * D, {1, T, D});
    const TensorView kh(cache.k.ptr() + h * cache.capacity * D, {1, Tk, D});
    const TensorView vh(cache.v.ptr() + h * cache.capacity * D, {1, Tk, D});
    AttentionResult r = scaled_dot_product_attention(qh, kh, vh, m, scale, need_probs);
    std::memcpy(heads.ptr() + h * T * D, r.out.ptr(), T * D * sizeof(float));
    if (need_probs) std::memcpy(res.probs.ptr() + h * T * Tk, r.probs.ptr(), T * Tk * sizeof(float));
  }
  if (edit_heads) edit_heads(heads);  // (H, T, D): the edit flows into the projection
  if (need_heads) {  // the inspector's copies: every cached key/value, not only the new ones
    res.q = q;
    res.k = Tensor({H, Tk, D});
    res.v = Tensor({H, Tk, D});
    for (int h = 0; h < H; ++h) {
      std::memcpy(res.k.ptr() + h * Tk * D, cache.k.ptr() + h * cache.capacity * D, Tk * D * sizeof(float));
      std::memcpy(res.v.ptr() + h * Tk * D, cache.v.ptr() + h * cache.capacity * D, Tk * D * sizeof(float));
    }
    res.head_out = heads;
  }
  res.out = merge_and_project(heads, w, op);
  return res;
}

// Cross-attention with the memory's keys/values projected once and kept in the cache.
AttentionResult cached_cross_attention(const TensorView& x,       // (T, C)
                                       const TensorView& memory,  // (S, C) or empty if cached
                                       const AttentionWeights& w, int H,
                                       const AttentionMask& mask, DecoderLayerCache& cache,
                                       bool need_probs, bool need_heads,
                                       const AttentionHooks::EditHeadsFn& edit_heads) {
  const char* op = "decoder_layer.cached_cross_attention";
  const int64_t C = attn_width(w), D = C / H;
  if (!cache.has_memory) {
    TFP_CHECK(!memory.empty() && memory.rank() == 2 && memory.dim(0) > 0, op,
              ": the first cached step needs the encoder memory (S, C), got ",
              shape_str(memory.shape));
    cache.cross_k = split_heads(project(memory, w, 1, C, op), H);  // (H, S, D)
    cache.cross_v = split_heads(project(memory, w, 2, C, op), H);
    cache.has_memory = true;
  }
  const Tensor q = split_heads(project(x, w, 0, C, op), H);  // (H, T, D)
  AttentionResult r = scaled_dot_product_attention(q.view(), cache.cross_k.view(),
                                                   cache.cross_v.view(), mask,
                                                   1.0f / std::sqrt(static_cast<float>(D)),
                                                   need_probs);
  if (edit_heads) edit_heads(r.out);  // (H, T, D) before the output projection
  if (need_heads) {
    r.q = q;
    r.k = cache.cross_k;
    r.v = cache.cross_v;
    r.head_out = r.out;  // (H, T, D) before the output projection
  }
  r.out = merge_and_project(r.out, w, op);
  return r;
}

}  // namespace

Tensor decoder_layer(const TensorView& x,       // (T, C)
                     const TensorView& memory,  // (S, C) or empty
                     const DecoderLayerWeights& w, const LayerOptions& opt,
                     const AttentionMask& self_mask, const AttentionMask& memory_mask,
                     DecoderLayerCache* cache, const nn::Scope& scope) {
  TFP_CHECK(x.rank() == 2, "decoder_layer: input has shape ", shape_str(x.shape),
            ", expected (T, C)");
  TFP_CHECK(x.dim(0) > 0, "decoder_layer: empty target sequence ", shape_str(x.shape),
            " (needs at least one token)");
  TFP_CHECK(opt.n_heads > 0 && x.dim(1) % opt.n_heads == 0, "decoder_layer: ", opt.n_heads,
            " heads do not divide model width ", x.dim(1));
  const bool memory_ready = cache && cache->has_memory;
  if (w.has_cross()) {
    TFP_CHECK(memory_ready || (memory.rank() == 2 && memory.dim(0) > 0), "decoder_layer: ",
              "cross-attention needs a non-empty memory (S, C), got ", shape_str(memory.shape));
  } else {
    TFP_CHECK(memory.empty(), "decoder_layer: memory ", shape_str(memory.shape),
              " given but the layer has no cross-attention (decoder-only)");
  }
  const int H = opt.n_heads;
  Tensor h(x.shape, std::vector<float>(x.data, x.data + x.numel()));  // (T, C) residual stream

  // Masked self-attention: a token sees itself and the tokens before it.
  detail::residual(h, w.norm_attn, opt.norm_first, "decoder_layer.norm_attn",
                   [&](const TensorView& in) {
                     const bool probs = scope.wants("attn.probs");
                     const bool heads = nn::wants_heads(scope, "attn");  // drill-down
                     const AttentionHooks hk = nn::head_out_hooks(scope, "attn");  // ablation
                     AttentionResult a =
                         cache ? cached_self_attention(in, w.attn, H, self_mask, *cache, probs, heads,
                                                       hk.edit_heads)
                               : multi_head_attention(in, in, w.attn, H, self_mask, probs, hk, heads);
                     if (scope.active()) {
                       if (!a.probs.empty()) scope.emit("attn.probs", a.probs);  // (H, T, Tk)
                       if (heads) nn::emit_heads(scope, "attn", a, self_mask, H);
                       scope.emit("attn.out", a.out);
                     }
                     return std::move(a.out);
                   });

  // Cross-attention: queries from the target, keys and values from the encoder memory.
  if (w.has_cross()) {
    detail::residual(h, w.norm_cross, opt.norm_first, "decoder_layer.norm_cross",
                     [&](const TensorView& in) {
                       const bool probs = scope.wants("cross.probs");
                       const bool heads = nn::wants_heads(scope, "cross");
                       const AttentionHooks hk = nn::head_out_hooks(scope, "cross");
                       AttentionResult a =
                           cache ? cached_cross_attention(in, memory, w.cross, H, memory_mask,
                                                          *cache, probs, heads, hk.edit_heads)
                                 : multi_head_attention(in, memory, w.cross, H, memory_mask, probs,
                                                        hk, heads);
                       if (scope.active()) {
                         if (!a.probs.empty()) scope.emit("cross.probs", a.probs);  // (H, T, S)
                         if (heads) nn::emit_heads(scope, "cross", a, memory_mask, H);
                         scope.emit("cross.out", a.out);
                       }
                       return std::move(a.out);
                     });
  }

  detail::residual(h, w.norm_ffn, opt.norm_first, "decoder_layer.norm_ffn",
                   [&](const TensorView& in) {
                     Tensor f = feed_forward(in, w.ffn, opt.activation, scope.sub("ffn"));
                     scope.emit("ffn.out", f);
                     return f;
                   });
  scope.emit("out", h);
  return h;
}

}  // namespace tfp::nn
