// Incremental decoding. Generating token t+1 only needs the new token's query against
// the keys/values of tokens 0..t — which do not change once computed (causal mask). The
// KV cache keeps them per decoder layer, so each step costs O(t·C) attention plus one
// token through the MLPs instead of re-running the whole prefix (O(t²·C)). For an
// encoder–decoder the memory's cross-attention keys/values are projected once.
//
// Usage (decoder-only):
//   KVCache cache(cfg);                                 // capacity = max_positions
//   auto r = decoder_only_step(cfg, w, cache, prompt);  // logits (P, V) for the prompt
//   loop: r = decoder_only_step(cfg, w, cache, {next}); // logits (1, V)
// The results equal forward_decoder_only on the whole sequence (tests/test_kv_cache.cpp).
//
// Legend: T new tokens, S source tokens, C width, V vocabulary.
#pragma once
#include <span>
#include <vector>

#include "model/config.h"
#include "model/transformer.h"
#include "model/weights.h"
#include "nn/transformer_block.h"

namespace tfp::model {

struct KVCache {
  std::vector<nn::DecoderLayerCache> layers;  // one per decoder layer

  KVCache() = default;
  // capacity 0 = cfg.max_positions (must then be > 0).
  explicit KVCache(const ModelConfig& cfg, int64_t capacity = 0);

  int64_t length() const { return layers.empty() ? 0 : layers[0].self.length; }
  int64_t capacity() const { return layers.empty() ? 0 : layers[0].self.capacity; }
  bool has_memory() const { return !layers.empty() && layers[0].has_memory(); }
  void clear();  // forget every position and the memory; keeps the allocation
};

// The cache a generation needs: the prompt plus the tokens it may produce, never more than
// the model's context. Allocating the whole context instead would cost Gemma 3 (32,768
// positions) 1.2 GB before the first token.
int64_t generation_capacity(const ModelConfig& cfg, int64_t prompt_tokens, int64_t max_new_tokens);

// Bytes of self-attention keys and values a KVCache holds for `positions` positions:
// layers × 2 (K and V) × positions × (Hkv · D) × 4 (float32): grouped-query models keep
// only their key/value heads. Queries are never cached:
// position t's query is used once, in the step that computes position t's output, and
// outputs of earlier positions never change (causal mask). Cross-attention memory of an
// encoder–decoder (projected once per source) is not counted.
int64_t kv_cache_bytes(const ModelConfig& cfg, int64_t positions);

// Decoder-only: run the new ids at positions length() .. length()+T-1; logits (T, V), or
// with last_logits = k > 0 only the last k rows' (min(k, T), V): a generation's prefill needs
// the last row alone (the LM head of a 128-token prompt over GPT-2's vocabulary is ~5 G
// multiply-adds and 25 MB it would throw away).
ForwardResult decoder_only_step(const ModelConfig& cfg, const ModelWeights& w, KVCache& cache,
                                std::span<const int32_t> new_ids,
                                nn::Observer* obs = nullptr, int64_t last_logits = 0);

// Encoder–decoder with token embeddings: memory from encode_source(); the first step
// projects it into the cache, later steps ignore `memory` (may be empty).
ForwardResult encoder_decoder_step(const ModelConfig& cfg, const ModelWeights& w,
                                   KVCache& cache, const TensorView& memory,
                                   const std::vector<uint8_t>& src_padding,
                                   std::span<const int32_t> new_tgt_ids,
                                   nn::Observer* obs = nullptr);

// On embeddings (nn.Transformer / decoder-only without embeddings): tgt_new (T, C) →
// decoder output (T, C) after the final norm, causal over everything cached.
Tensor decoder_step(const ModelConfig& cfg, const ModelWeights& w, KVCache& cache,
                    const TensorView& tgt_new, const TensorView& memory,
                    const std::vector<uint8_t>& memory_key_padding = {},
                    nn::Observer* obs = nullptr);

}  // namespace tfp::model
