// The transformer layer: sublayers (self-attention, cross-attention, feed-forward), each
// wrapped in its residual and norms as the layer options say. Which placement matters:
// post-LN normalises the residual stream itself after every sublayer; pre-LN leaves the
// stream un-normalised (so a final norm is needed after the last layer) and trains more
// stably in deep stacks; Gemma's extra post norms tame each sublayer's output before it
// joins the stream; parallel blocks (GPT-NeoX) read both sublayers from the same input.
#include "nn/transformer_block.h"

#include "kernels/kernels.h"
#include "nn/attention_report.h"

namespace tfp::nn {

namespace {

// h += y with a shape check.
void add_residual(Tensor& h, const Tensor& y, const char* op) {
  TFP_CHECK(h.shape == y.shape, op, ": residual of shape ", shape_str(h.shape),
            " cannot take sublayer output ", shape_str(y.shape));
  kernels::add_inplace(h.ptr(), y.ptr(), h.data.size());
}

// One residual sublayer f around the stream h:
//   post-LN: h = N(h + f(h))     pre-LN: h = h + P(f(N(h)))   (P only when post is set)
template <typename F>
void residual(Tensor& h, const LayerNormWeights& norm, const LayerNormWeights& post, bool norm_first,
              const char* op, F&& f) {
  if (norm_first) {
    const Tensor n = layer_norm(h.view(), norm, op);
    Tensor y = f(n.view());
    if (!post.empty()) layer_norm_inplace(y, post, op);
    add_residual(h, y, op);
  } else {
    const Tensor y = f(h.view());
    add_residual(h, y, op);
    layer_norm_inplace(h, norm, op);
  }
}

// One attention sublayer with its reports: "attn" (self) or "cross" under the layer's scope.
Tensor attend_and_report(const TensorView& in, const TensorView& kv, const AttentionWeights& w,
                         const LayerOptions& opt, const AttentionMask& mask, const AttentionHooks& positions,
                         AttentionCache* cache, const Scope& scope, const char* block) {
  // Names are built only for an observer: without one this costs nothing.
  const bool active = scope.active();
  const bool probs = active && scope.wants(std::string(block) + ".probs");
  const bool heads = wants_heads(scope, block);  // the drill-down's q, k, v, mask
  AttentionHooks hk = edit_hooks(scope, block);  // ablation edits head_out; patching q, k, v, pattern
  hk.rotate = positions.rotate;
  hk.score_bias = positions.score_bias;
  hk.kv_pos0 = positions.kv_pos0;
  AttentionResult a = attention(in, kv, w, opt.attention(), mask, probs, hk, heads, cache);
  if (active) {
    if (!a.probs.empty()) scope.emit(std::string(block) + ".probs", a.probs);  // (H, T, Tk)
    if (heads) emit_heads(scope, block, a, mask, opt.n_heads, hk);
    scope.emit(std::string(block) + ".out", a.out);
  }
  return std::move(a.out);
}

}  // namespace

Tensor transformer_block(const TensorView& x,       // (T, C)
                         const TensorView& memory,  // (S, C) or empty
                         const BlockWeights& w, const LayerOptions& opt,
                         const AttentionMask& self_mask, const AttentionMask& memory_mask,
                         DecoderLayerCache* cache, const Scope& scope) {
  const char* op = "transformer_block";
  TFP_CHECK(x.rank() == 2, op, ": input has shape ", shape_str(x.shape), ", expected (T, C)");
  TFP_CHECK(x.dim(0) > 0, op, ": empty input sequence ", shape_str(x.shape), " (needs at least one token)");
  TFP_CHECK(opt.n_heads > 0 && (opt.head_dim > 0 || x.dim(1) % opt.n_heads == 0), op, ": ", opt.n_heads,
            " heads do not divide model width ", x.dim(1));
  const bool memory_ready = cache && cache->has_memory();
  if (w.has_cross()) {
    TFP_CHECK(memory_ready || (memory.rank() == 2 && memory.dim(0) > 0), op,
              ": cross-attention needs a non-empty memory (S, C), got ", shape_str(memory.shape));
  } else {
    TFP_CHECK(memory.empty(), op, ": memory ", shape_str(memory.shape),
              " given but the layer has no cross-attention (decoder-only)");
  }
  TFP_CHECK(!opt.parallel_residual || (opt.norm_first && !w.has_cross()), op,
            ": a parallel residual needs pre-norm layers without cross-attention");
  Tensor h(x.shape, std::vector<float>(x.data, x.data + x.numel()));  // (T, C) residual stream

  // Self-attention: every token looks at the (unmasked) tokens of its own sequence.
  auto self_attention = [&](const TensorView& in) {
    return attend_and_report(in, in, w.attn, opt, self_mask, opt.self_hooks, cache ? &cache->self : nullptr,
                             scope, "attn");
  };
  // Feed-forward: the same MLP on every token independently.
  auto feed = [&](const TensorView& in) {
    Tensor f = feed_forward(in, w.ffn, opt.activation, scope.sub("ffn"));
    scope.emit("ffn.out", f);
    return f;
  };

  const bool mlp = !w.ffn.fc1.empty();  // attention-only layers have none
  if (opt.parallel_residual) {
    const Tensor a = self_attention(layer_norm(h.view(), w.norm_attn, "transformer_block.norm_attn").view());
    const Tensor f = mlp ? feed(layer_norm(h.view(), w.norm_ffn, "transformer_block.norm_ffn").view()) : Tensor{};
    add_residual(h, a, op);
    if (mlp) add_residual(h, f, op);
  } else {
    residual(h, w.norm_attn, w.post_attn_norm, opt.norm_first, "transformer_block.norm_attn", self_attention);
    // Cross-attention: queries from this sequence, keys and values from the memory.
    if (w.has_cross())
      residual(h, w.norm_cross, {}, opt.norm_first, "transformer_block.norm_cross", [&](const TensorView& in) {
        return attend_and_report(in, memory, w.cross, opt, memory_mask, {}, cache ? &cache->cross : nullptr,
                                 scope, "cross");
      });
    if (mlp) residual(h, w.norm_ffn, w.post_ffn_norm, opt.norm_first, "transformer_block.norm_ffn", feed);
  }
  scope.emit("out", h);
  return h;
}

}  // namespace tfp::nn
