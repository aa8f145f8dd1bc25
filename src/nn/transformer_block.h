// One transformer layer, for every family: self-attention, optional cross-attention
// over an encoder's output ("memory"), and a feed-forward block, each inside a residual
// connection with its norm. Where the norms sit and how the residual flows is the
// family's choice:
//   post-LN (the paper, PyTorch default, BERT):  x = N1(x + SA(x));  [x = N2(x + CA(x, m))];  x = N3(x + FF(x))
//   pre-LN  (norm_first: GPT-2, Llama, T5, ...): x = x + SA(N1(x));  [x = x + CA(N2(x), m)];  x = x + FF(N3(x))
//   sandwich (Gemma 2/3: pre-LN + post norms):   x = x + P1(SA(N1(x)));  x = x + P3(FF(N3(x)))
//   parallel (GPT-NeoX/Pythia):                  x = x + SA(N1(x)) + FF(N3(x))
// The norms are LayerNorm or RMSNorm (nn/layer_norm.h), the feed-forward plain or gated
// (nn/feed_forward.h), the attention any of nn/attention.h's options, and positions
// that act inside attention (RoPE, ALiBi, relative bias) arrive as the layer's hooks.
// Dropout is absent (inference). PyTorch's nn.TransformerEncoderLayer and
// nn.TransformerDecoderLayer (slow path) are the post-/pre-LN cases exactly.
//
// Incremental decoding: with a DecoderLayerCache, x holds only the *new* tokens; their
// keys/values are appended to the cache and they attend over every cached position; the
// memory's keys/values are projected once and kept. The result equals recomputing the
// whole prefix (tests/test_kv_cache.cpp checks it for every positional scheme).
//
// Legend: T tokens (new tokens with a cache), S memory tokens, C width, H heads.
#pragma once
#include "nn/attention.h"
#include "nn/feed_forward.h"
#include "nn/layer_norm.h"
#include "nn/observer.h"

namespace tfp::nn {

// What a layer needs besides its weights (all from the model's description).
struct LayerOptions {
  LayerOptions() = default;
  LayerOptions(int heads, Activation act, bool pre_norm)
      : n_heads(heads), activation(act), norm_first(pre_norm) {}

  int n_heads = 1;
  Activation activation = Activation::relu;
  bool norm_first = false;         // pre-LN when true
  bool parallel_residual = false;  // x + SA(N1(x)) + FF(N3(x)) (needs norm_first, no cross)
  int n_kv_heads = 0;              // attention: see AttentionOptions
  int head_dim = 0;
  float attn_scale = 0.0f;
  float attn_softcap = 0.0f;
  AttentionHooks self_hooks;       // positions inside self-attention (rotate, score_bias)

  AttentionOptions attention() const {
    return {n_heads, n_kv_heads, head_dim, attn_scale, attn_softcap};
  }
};

struct BlockWeights {
  AttentionWeights attn;           // self-attention (PyTorch self_attn, GPT-2 attn, Llama self_attn)
  LayerNormWeights norm_attn;      // PyTorch norm1, BERT attention.output.LayerNorm, GPT-2 ln_1
  LayerNormWeights post_attn_norm; // sandwich only (Gemma post_attention_layernorm); empty = none
  AttentionWeights cross;          // cross-attention (PyTorch multihead_attn); empty = none
  LayerNormWeights norm_cross;     // PyTorch norm2; empty when there is no cross-attention
  FeedForwardWeights ffn;
  LayerNormWeights norm_ffn;       // PyTorch norm2/norm3, GPT-2 ln_2, Llama post_attention_layernorm
  LayerNormWeights post_ffn_norm;  // sandwich only (Gemma post_feedforward_layernorm)

  bool has_cross() const { return !cross.out.empty() || !cross.qkv.empty() || !cross.q.empty(); }
};
using EncoderLayerWeights = BlockWeights;
using DecoderLayerWeights = BlockWeights;

inline AttentionCache memory_cache() {
  AttentionCache c;
  c.memory = true;
  return c;
}

// Per-layer cache for incremental decoding: self-attention keys/values (appended) and the
// cross-attention memory's (projected once).
struct DecoderLayerCache {
  AttentionCache self;
  AttentionCache cross = memory_cache();

  void reset(int n_kv_heads, int64_t head_dim, int64_t capacity) {
    self.reset(n_kv_heads, head_dim, capacity);
    cross = memory_cache();
  }
  void clear() { self.clear(); cross = memory_cache(); }
  bool has_memory() const { return cross.length > 0; }
};

// x (T, C), memory (S, C) or empty → (T, C).
// self_mask applies to self-attention (causal = true for a decoder; its window is the
// layer's local-attention window), memory_mask to cross-attention.
// Reports attn.probs, attn.out, cross.probs, cross.out, ffn.hidden, ffn.out, out under
// `scope` (e.g. "dec.3"), and the drill-down's q/k/v/mask/head_out when asked.
Tensor transformer_block(const TensorView& x, const TensorView& memory, const BlockWeights& w,
                         const LayerOptions& opt, const AttentionMask& self_mask,
                         const AttentionMask& memory_mask, DecoderLayerCache* cache = nullptr,
                         const Scope& scope = {});

// The two classic names: an encoder layer is a block without memory or cache.
inline Tensor encoder_layer(const TensorView& x, const BlockWeights& w, const LayerOptions& opt,
                            const AttentionMask& mask, const Scope& scope = {}) {
  return transformer_block(x, {}, w, opt, mask, {}, nullptr, scope);
}
inline Tensor decoder_layer(const TensorView& x, const TensorView& memory, const BlockWeights& w,
                            const LayerOptions& opt, const AttentionMask& self_mask,
                            const AttentionMask& memory_mask, DecoderLayerCache* cache = nullptr,
                            const Scope& scope = {}) {
  return transformer_block(x, memory, w, opt, self_mask, memory_mask, cache, scope);
}

}  // namespace tfp::nn
