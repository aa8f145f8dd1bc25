// KV-cached decoding steps: embed the new tokens at their absolute positions, run the
// decoder stack with the per-layer caches, apply the head. All attention arithmetic is
// in nn/decoder_layer.cpp; this file only keeps positions and wiring straight.
#include "model/kv_cache.h"

#include <algorithm>

namespace tfp::model {

KVCache::KVCache(const ModelConfig& cfg, int64_t capacity) {
  check_config(cfg);
  TFP_CHECK(cfg.has_decoder(), "kv_cache: an ", architecture_name(cfg.architecture),
            " model has no decoder to cache");
  const int64_t cap = capacity > 0 ? capacity : cfg.max_positions;
  TFP_CHECK(cap > 0, "kv_cache: no capacity given and the config has no max_positions");
  layers.resize(cfg.n_decoder_layers);
  for (auto& l : layers) l.reset(static_cast<int>(cfg.kv_heads()), cfg.head_dim(), cap);
}

int64_t kv_cache_bytes(const ModelConfig& cfg, int64_t positions) {
  check_config(cfg);
  TFP_CHECK(positions >= 0, "kv_cache_bytes: positions must be >= 0, got ", positions);
  const int64_t kv_width = cfg.kv_heads() * cfg.head_dim();  // Hkv · D, the width of one K (or V) row
  return cfg.n_decoder_layers * 2 * positions * kv_width * static_cast<int64_t>(sizeof(float));
}

int64_t generation_capacity(const ModelConfig& cfg, int64_t prompt_tokens, int64_t max_new_tokens) {
  TFP_CHECK(cfg.max_positions > 0, "kv_cache: the config has no max_positions");
  return std::max<int64_t>(1, std::min(cfg.max_positions, prompt_tokens + std::max<int64_t>(max_new_tokens, 0)));
}

void KVCache::clear() {
  for (auto& l : layers) l.clear();
}

namespace {
const EmbeddingWeights& target_embeddings(const ModelConfig& cfg, const ModelWeights& w) {
  const bool separate =
      cfg.architecture == Architecture::encoder_decoder && !cfg.shared_src_tgt_embeddings;
  return separate ? w.tgt_embed : w.embed;
}
}  // namespace

Tensor decoder_step(const ModelConfig& cfg, const ModelWeights& w, KVCache& cache,
                    const TensorView& tgt_new, const TensorView& memory,
                    const std::vector<uint8_t>& memory_key_padding, nn::Observer* obs) {
  TFP_CHECK(static_cast<int64_t>(cache.layers.size()) == cfg.n_decoder_layers,
            "decoder_step: cache built for ", cache.layers.size(), " layers, model has ",
            cfg.n_decoder_layers);
  nn::AttentionMask self_mask;
  self_mask.causal = true;  // cache-aware: new query i sees every cached key and new keys <= i
  nn::AttentionMask memory_mask;
  memory_mask.key_padding = memory_key_padding;
  const bool cross = cfg.architecture == Architecture::encoder_decoder;
  return decoder_stack(cfg, w, tgt_new, cross ? memory : TensorView{}, self_mask, memory_mask,
                       &cache.layers, obs);
}

ForwardResult decoder_only_step(const ModelConfig& cfg, const ModelWeights& w, KVCache& cache,
                                std::span<const int32_t> new_ids, nn::Observer* obs, int64_t last_logits) {
  TFP_CHECK(cfg.architecture == Architecture::decoder_only,
            "decoder_only_step: needs a decoder_only model, this one is ",
            architecture_name(cfg.architecture));
  const Tensor x = embed(cfg, w.embed, new_ids, {}, cache.length(),
                         nn::Scope(obs).sub("embed"));
  ForwardResult r;
  r.hidden = decoder_step(cfg, w, cache, x.view(), {}, {}, obs);
  if (cfg.lm_head) r.logits = lm_logits(cfg, w, logit_rows(r.hidden, last_logits), obs);
  return r;
}

ForwardResult encoder_decoder_step(const ModelConfig& cfg, const ModelWeights& w,
                                   KVCache& cache, const TensorView& memory,
                                   const std::vector<uint8_t>& src_padding,
                                   std::span<const int32_t> new_tgt_ids,
                                   nn::Observer* obs) {
  TFP_CHECK(cfg.architecture == Architecture::encoder_decoder,
            "encoder_decoder_step: needs an encoder_decoder model, this one is ",
            architecture_name(cfg.architecture));
  const Tensor y = embed(cfg, target_embeddings(cfg, w), new_tgt_ids, {}, cache.length(),
                         nn::Scope(obs).sub("dec").sub("embed"));
  ForwardResult r;
  r.hidden = decoder_step(cfg, w, cache, y.view(), memory, src_padding, obs);
  if (cfg.lm_head) r.logits = lm_logits(cfg, w, r.hidden.view(), obs);
  return r;
}

}  // namespace tfp::model
