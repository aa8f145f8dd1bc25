// One transformer encoder layer: self-attention and a feed-forward block, each wrapped
// in a residual connection and a LayerNorm, exactly as PyTorch's
// nn.TransformerEncoderLayer (slow path) computes it:
//   post-LN (the paper, PyTorch default, BERT):   x = LN1(x + SA(x));   x = LN2(x + FF(x))
//   pre-LN  (norm_first, GPT-2):                  x = x + SA(LN1(x));   x = x + FF(LN2(x))
// Dropout is absent (inference). GPT-2's block is this pre-LN layer with a causal mask.
//
// Legend: T tokens, C model width, H heads.
#pragma once
#include "nn/observer.h"
#include "nn/attention.h"
#include "nn/feed_forward.h"
#include "nn/layer_norm.h"

namespace tfp::nn {

// What a layer needs besides its weights (all from the model config).
struct LayerOptions {
  int n_heads = 1;
  Activation activation = Activation::relu;
  bool norm_first = false;  // pre-LN when true
};

struct EncoderLayerWeights {
  AttentionWeights attn;       // self-attention (PyTorch self_attn, BERT attention.self+output.dense)
  LayerNormWeights norm_attn;  // PyTorch norm1, BERT attention.output.LayerNorm, GPT-2 ln_1
  FeedForwardWeights ffn;      // PyTorch linear1/linear2
  LayerNormWeights norm_ffn;   // PyTorch norm2, BERT output.LayerNorm, GPT-2 ln_2
};

namespace detail {
// h += y with a shape check (kernels::add_inplace underneath).
void add_residual(Tensor& h, const Tensor& y, const char* op);

// The residual wrapper both layer kinds share, around one sublayer f:
//   post-LN: h = LN(h + f(h))        pre-LN: h = h + f(LN(h))
// f takes the (T, C) input it should read and returns its (T, C) output.
template <typename F>
void residual(Tensor& h, const LayerNormWeights& norm, bool norm_first, const char* op, F&& f) {
  if (norm_first) {
    const Tensor n = layer_norm(h.view(), norm, op);
    const Tensor y = f(n.view());
    add_residual(h, y, op);
  } else {
    const Tensor y = f(h.view());
    add_residual(h, y, op);
    layer_norm_inplace(h, norm, op);
  }
}
}  // namespace detail

// x (T, C) → (T, C). `mask` applies to the self-attention (padding, causal, additive).
// Reports attn.probs, attn.out, ffn.hidden, ffn.out and out under `scope` (e.g. "enc.0").
Tensor encoder_layer(const TensorView& x, const EncoderLayerWeights& w, const LayerOptions& opt,
                     const AttentionMask& mask, const nn::Scope& scope = {});

}  // namespace tfp::nn
