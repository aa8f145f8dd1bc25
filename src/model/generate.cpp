// Step-by-step generation (see generate.h). Mirrors model::generate line by line: the
// order of the checks after each token decides where the two could drift apart.
#include "model/generate.h"

#include <algorithm>
#include <numeric>

namespace tfp::model {

std::vector<std::pair<int32_t, float>> top_probabilities(const std::vector<double>& probs, int n) {
  const size_t k = std::min(probs.size(), static_cast<size_t>(std::max(n, 0)));
  std::vector<int32_t> order(probs.size());
  std::iota(order.begin(), order.end(), 0);
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
                    [&](int32_t a, int32_t b) { return probs[a] > probs[b] || (probs[a] == probs[b] && a < b); });
  std::vector<std::pair<int32_t, float>> top;
  for (size_t i = 0; i < k; ++i) top.emplace_back(order[i], static_cast<float>(probs[order[i]]));
  return top;
}

Generator::Generator(const ModelConfig& cfg, const ModelWeights& w, std::span<const int32_t> prompt,
                     GeneratorOptions opt)
    : cfg_(cfg), w_(w), opt_(std::move(opt)), rng_(opt_.seed) {
  TFP_CHECK(cfg.architecture == Architecture::decoder_only && cfg.has_embeddings && cfg.lm_head,
            "generate: needs a decoder-only language model, this one is ", architecture_name(cfg.architecture));
  TFP_CHECK(!prompt.empty(), "generate: the prompt is empty (no tokens)");
  TFP_CHECK(opt_.max_tokens >= 0, "generate: max_tokens must be >= 0, got ", opt_.max_tokens);
  TFP_CHECK(opt_.top_n >= 0, "generate: top_n must be >= 0, got ", opt_.top_n);
  check_sampling(opt_.sampling);
  TFP_CHECK(static_cast<int64_t>(prompt.size()) <= cfg.max_positions, "generate: the prompt has ", prompt.size(),
            " tokens, more than the model's context of ", cfg.max_positions);
  cache_ = KVCache(cfg, generation_capacity(cfg, static_cast<int64_t>(prompt.size()), opt_.max_tokens));
  const ForwardResult r = decoder_only_step(cfg_, w_, cache_, prompt, opt_.observer, 1);  // logits (1, V)
  last_logits_ = Tensor({r.logits.dim(-1)}, r.logits.data);
  done_ = opt_.max_tokens == 0;
}

std::optional<GeneratorStep> Generator::next() {
  if (done_) return std::nullopt;
  const std::span<const float> logits(last_logits_.ptr(), static_cast<size_t>(last_logits_.numel()));
  GeneratorStep step;
  step.id = sample_token(logits, opt_.sampling, rng_);
  TokenReport report = report_token(logits, step.id, opt_.top_n);
  step.prob = report.prob;
  step.top = std::move(report.top);
  ++produced_;

  // The same order as model::generate: stop id, then max_tokens, then a full context.
  if (std::find(opt_.stop_ids.begin(), opt_.stop_ids.end(), step.id) != opt_.stop_ids.end()) {
    done_ = true;
    reason_ = StopReason::eos;
  } else if (produced_ == opt_.max_tokens) {
    done_ = true;
    reason_ = StopReason::max_tokens;
  } else if (cache_.length() >= cache_.capacity()) {
    done_ = true;
    reason_ = StopReason::context_full;
  } else {
    const int32_t ids[1] = {step.id};
    const ForwardResult r = decoder_only_step(cfg_, w_, cache_, ids, opt_.observer);  // logits (1, V)
    std::copy(r.logits.data.begin(), r.logits.data.end(), last_logits_.data.begin());
  }
  return step;
}

GenerateResult generate_without_cache(const ModelConfig& cfg, const ModelWeights& w,
                                      std::span<const int32_t> prompt, const GenerateOptions& opt) {
  TFP_CHECK(cfg.architecture == Architecture::decoder_only && cfg.has_embeddings && cfg.lm_head,
            "generate: needs a decoder-only language model, this one is ", architecture_name(cfg.architecture));
  TFP_CHECK(!prompt.empty(), "generate: the prompt is empty (no tokens)");
  TFP_CHECK(opt.max_tokens >= 0, "generate: max_tokens must be >= 0, got ", opt.max_tokens);
  check_sampling(opt.sampling);
  TFP_CHECK(static_cast<int64_t>(prompt.size()) <= cfg.max_positions, "generate: the prompt has ", prompt.size(),
            " tokens, more than the model's context of ", cfg.max_positions);

  GenerateResult result;
  Pcg32 rng(opt.seed);
  std::vector<int32_t> seq(prompt.begin(), prompt.end());
  nn::AttentionMask causal;
  causal.causal = true;
  for (int n = 0; n < opt.max_tokens; ++n) {
    // Everything again: positions 0 .. T-1 through every layer, K and V recomputed.
    const Tensor x = embed(cfg, w.embed, seq, {}, 0, nn::Scope(nullptr));
    const Tensor hidden = decoder_stack(cfg, w, x.view(), {}, causal, {});  // (T, C)
    const int64_t T = hidden.dim(0), C = hidden.dim(1);
    const Tensor logits = lm_logits(cfg, w, TensorView(hidden.row(T - 1), {1, C}));  // (1, V)
    const std::span<const float> last(logits.ptr(), static_cast<size_t>(logits.numel()));
    const int32_t id = sample_token(last, opt.sampling, rng);
    result.tokens.push_back({id, report_token(last, id).prob});
    // The order of model::generate's checks: eos, max_tokens, a full context.
    if (std::find(opt.eos_token_ids.begin(), opt.eos_token_ids.end(), id) != opt.eos_token_ids.end()) {
      result.reason = StopReason::eos;
      return result;
    }
    if (n + 1 == opt.max_tokens) break;
    if (static_cast<int64_t>(seq.size()) >= cfg.max_positions) {
      result.reason = StopReason::context_full;
      return result;
    }
    seq.push_back(id);
  }
  result.reason = StopReason::max_tokens;
  return result;
}

}  // namespace tfp::model
