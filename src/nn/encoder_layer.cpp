// The encoder layer: self-attention then feed-forward, each inside a residual with a
// LayerNorm placed after (post-LN) or before (pre-LN) the sublayer. Which placement
// matters: post-LN normalises the residual stream itself after every sublayer; pre-LN
// leaves the stream un-normalised (so a final norm is needed after the last layer) and
// trains more stably in deep stacks.
#include "nn/encoder_layer.h"

#include "nn/attention_report.h"
#include "kernels/kernels.h"

namespace tfp::nn {

namespace detail {
void add_residual(Tensor& h, const Tensor& y, const char* op) {
  TFP_CHECK(h.shape == y.shape, op, ": residual of shape ", shape_str(h.shape),
            " cannot take sublayer output ", shape_str(y.shape));
  kernels::add_inplace(h.ptr(), y.ptr(), h.data.size());
}
}  // namespace detail

Tensor encoder_layer(const TensorView& x,  // (T, C)
                     const EncoderLayerWeights& w, const LayerOptions& opt,
                     const AttentionMask& mask, const nn::Scope& scope) {
  TFP_CHECK(x.rank() == 2, "encoder_layer: input has shape ", shape_str(x.shape),
            ", expected (T, C)");
  TFP_CHECK(x.dim(0) > 0, "encoder_layer: empty input sequence ", shape_str(x.shape),
            " (needs at least one token)");
  TFP_CHECK(opt.n_heads > 0 && x.dim(1) % opt.n_heads == 0, "encoder_layer: ", opt.n_heads,
            " heads do not divide model width ", x.dim(1));
  Tensor h(x.shape, std::vector<float>(x.data, x.data + x.numel()));  // (T, C) residual stream

  // Self-attention: every token looks at every (unmasked) token of the same sequence.
  detail::residual(h, w.norm_attn, opt.norm_first, "encoder_layer.norm_attn",
                   [&](const TensorView& in) {
                     const bool heads = nn::wants_heads(scope, "attn");  // drill-down
                     const AttentionHooks hk = nn::head_out_hooks(scope, "attn");  // ablation
                     AttentionResult a = multi_head_attention(in, in, w.attn, opt.n_heads, mask,
                                                              scope.wants("attn.probs"), hk, heads);
                     if (scope.active()) {
                       if (!a.probs.empty()) scope.emit("attn.probs", a.probs);  // (H, T, T)
                       if (heads) nn::emit_heads(scope, "attn", a, mask, opt.n_heads);
                       scope.emit("attn.out", a.out);
                     }
                     return std::move(a.out);
                   });

  // Feed-forward: the same two-layer MLP on every token independently.
  detail::residual(h, w.norm_ffn, opt.norm_first, "encoder_layer.norm_ffn",
                   [&](const TensorView& in) {
                     Tensor f = feed_forward(in, w.ffn, opt.activation, scope.sub("ffn"));
                     scope.emit("ffn.out", f);
                     return f;
                   });
  scope.emit("out", h);
  return h;
}

}  // namespace tfp::nn
