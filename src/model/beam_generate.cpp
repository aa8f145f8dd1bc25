// Beam search for a decoder-only language model (beam.h beam_generate): the prompt's KV
// cache is the DecoderState every beam copies, and the search is beam.cpp's, the one the
// encoder–decoders use. Deliberately no sampling, no repetition penalty, no n-gram
// blocking: the plain search, so the Learn chapter can show what it does on its own.
//
// Legend: P prompt tokens, V vocabulary.
#include <algorithm>

#include "model/beam.h"
#include "model/kv_cache.h"

namespace tfp::model {

namespace {

// A decoder-only model's memory of one hypothesis: the KV cache of the prompt and the
// beam's tokens. Constructed with the prompt already run (as model::Generator runs it:
// one decoder_only_step over all P tokens, the last row's logits), so beam_size 1 sees
// the very logits greedy generation sees.
class DecoderOnlyState final : public DecoderState {
 public:
  DecoderOnlyState(const ModelConfig& cfg, const ModelWeights& w, KVCache cache, nn::Observer* obs)
      : cfg_(cfg), w_(w), cache_(std::move(cache)), obs_(obs) {}
  std::unique_ptr<DecoderState> clone() const override { return std::make_unique<DecoderOnlyState>(*this); }
  std::vector<float> step(int32_t token) override {
    const int32_t ids[1] = {token};
    const ForwardResult r = decoder_only_step(cfg_, w_, cache_, ids, obs_);  // (1, V)
    return std::vector<float>(r.logits.row(0), r.logits.row(0) + r.logits.dim(-1));
  }

 private:
  const ModelConfig& cfg_;
  const ModelWeights& w_;
  KVCache cache_;      // each beam owns its past: clone() copies it
  nn::Observer* obs_;  // DecodeOptions::observer (borrowed), may be null
};

}  // namespace

Translation beam_generate(const ModelConfig& cfg, const ModelWeights& w, std::span<const int32_t> prompt,
                          const DecodeOptions& opt) {
  TFP_CHECK(cfg.architecture == Architecture::decoder_only && cfg.has_embeddings && cfg.lm_head,
            "beam search: needs a decoder-only language model, this one is ", architecture_name(cfg.architecture));
  TFP_CHECK(!prompt.empty(), "beam search: the prompt is empty (no tokens)");
  TFP_CHECK(cfg.max_positions > 0, "beam search: the config has no max_positions");
  const int64_t P = static_cast<int64_t>(prompt.size());
  TFP_CHECK(P <= cfg.max_positions, "beam search: the prompt has ", P, " tokens, more than the model's context of ",
            cfg.max_positions);
  for (const int32_t id : prompt)
    TFP_CHECK(id >= 0 && id < cfg.vocab_size, "beam search: prompt id ", id, " is outside the vocabulary [0, ",
              cfg.vocab_size, ")");
  TFP_CHECK(opt.max_tokens >= 0, "beam search: max_tokens must be >= 0, got ", opt.max_tokens);
  // The last new token is chosen, never fed back: P + n − 1 positions.
  const int64_t room = cfg.max_positions - P + 1;
  const int max_tokens = static_cast<int>(opt.max_tokens > 0 ? std::min<int64_t>(opt.max_tokens, room) : room);

  KVCache cache(cfg, generation_capacity(cfg, P, max_tokens));
  const ForwardResult r = decoder_only_step(cfg, w, cache, prompt, opt.observer, 1);  // logits (1, V)
  std::vector<float> first(r.logits.data.begin(), r.logits.data.end());
  return beam_search(DecoderOnlyState(cfg, w, std::move(cache), opt.observer), std::move(first), opt, max_tokens,
                     cfg.vocab_size);
}

}  // namespace tfp::model
