// One transformer decoder layer, as PyTorch's nn.TransformerDecoderLayer (slow path):
// masked self-attention, cross-attention over the encoder output ("memory"), and a
// feed-forward block, each with a residual and a LayerNorm:
//   post-LN: x = LN1(x + SA(x));  x = LN2(x + CA(x, mem));  x = LN3(x + FF(x))
//   pre-LN:  x = x + SA(LN1(x));  x = x + CA(LN2(x), mem);  x = x + FF(LN3(x))
// A decoder-only layer (GPT-2) has no cross-attention: leave `cross` empty and pass no
// memory; it is then the pre-LN encoder layer with a causal mask.
//
// Incremental decoding: with a DecoderLayerCache, x holds only the *new* tokens; their
// keys/values are appended to the cache and they attend over every cached position; the
// memory's keys/values are projected once and kept. The result equals recomputing the
// whole prefix (tests/test_kv_cache.cpp checks it).
//
// Legend: T new target tokens, P tokens already cached, S memory tokens, C width,
// H heads, D = C/H.
#pragma once
#include "nn/observer.h"
#include "nn/attention.h"
#include "nn/encoder_layer.h"
#include "nn/feed_forward.h"
#include "nn/layer_norm.h"

namespace tfp::nn {

struct DecoderLayerWeights {
  AttentionWeights attn;        // masked self-attention (PyTorch self_attn, GPT-2 attn)
  LayerNormWeights norm_attn;   // PyTorch norm1, GPT-2 ln_1
  AttentionWeights cross;       // cross-attention (PyTorch multihead_attn); empty = decoder-only
  LayerNormWeights norm_cross;  // PyTorch norm2; empty when there is no cross-attention
  FeedForwardWeights ffn;
  LayerNormWeights norm_ffn;    // PyTorch norm3, GPT-2 ln_2

  bool has_cross() const { return !cross.out.empty(); }
};

// Per-layer cache for incremental decoding. Keys/values are stored per head in
// preallocated (H, capacity, D) blocks so that head h's first `length` rows are one
// contiguous (length, D) view.
struct DecoderLayerCache {
  Tensor k, v;              // (H, capacity, D) self-attention keys/values
  int64_t length = 0;       // positions filled
  int64_t capacity = 0;
  Tensor cross_k, cross_v;  // (H, S, D) projected memory; empty until first use
  bool has_memory = false;

  void reset(int n_heads, int64_t head_dim, int64_t capacity);
  void clear() { length = 0; has_memory = false; cross_k = {}; cross_v = {}; }
};

// x (T, C), memory (S, C) or empty → (T, C).
// self_mask applies to self-attention (set causal = true for a decoder), memory_mask to
// cross-attention. With a cache, self_mask must not carry an additive or padding mask
// (only `causal`, which is cache-aware) — a clear error otherwise.
// Reports attn.probs, attn.out, cross.probs, cross.out, ffn.hidden, ffn.out, out under `scope`.
Tensor decoder_layer(const TensorView& x, const TensorView& memory, const DecoderLayerWeights& w,
                     const LayerOptions& opt, const AttentionMask& self_mask,
                     const AttentionMask& memory_mask, DecoderLayerCache* cache = nullptr,
                     const nn::Scope& scope = {});

}  // namespace tfp::nn
