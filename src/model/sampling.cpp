// Token sampling (temperature, top-k, top-p) with PCG32, and the KV-cached generation loop.
#include "model/sampling.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "kernels/kernels.h"
#include "model/kv_cache.h"
#include "model/transformer.h"

namespace tfp::model {

// ---- PCG32 -------------------------------------------------------------------------
// The reference pcg32_srandom_r / pcg32_random_r, in unsigned 64-bit arithmetic that
// wraps identically on every target.

Pcg32::Pcg32(uint64_t seed, uint64_t stream) {
  state_ = 0;
  inc_ = (stream << 1u) | 1u;
  next_u32();
  state_ += seed;
  next_u32();
}

uint32_t Pcg32::next_u32() {
  const uint64_t old = state_;
  state_ = old * 6364136223846793005ULL + inc_;
  const auto xorshifted = static_cast<uint32_t>(((old >> 18u) ^ old) >> 27u);
  const auto rot = static_cast<uint32_t>(old >> 59u);
  return (xorshifted >> rot) | (xorshifted << ((32u - rot) & 31u));
}

double Pcg32::next_double() {
  const uint64_t hi = next_u32() >> 5;  // 27 bits
  const uint64_t lo = next_u32() >> 6;  // 26 bits
  return static_cast<double>((hi << 26) | lo) * 0x1.0p-53;
}

// ---- sampling ----------------------------------------------------------------------

void check_sampling(const SamplingOptions& opt) {
  TFP_CHECK(std::isfinite(opt.temperature) && opt.temperature >= 0.0f,
            "sampling: temperature must be >= 0 (0 = greedy), got ", opt.temperature);
  TFP_CHECK(opt.top_k >= 0, "sampling: top_k must be >= 0 (0 = all tokens), got ", opt.top_k);
  TFP_CHECK(opt.top_p > 0.0f && opt.top_p <= 1.0f, "sampling: top_p must be in (0, 1], got ", opt.top_p);
}

namespace {

void check_logits(std::span<const float> logits) {
  TFP_CHECK(!logits.empty(), "sampling: no logits");
  const int64_t nan = kernels::first_nan(logits.data(), static_cast<int64_t>(logits.size()));
  TFP_CHECK(nan < 0, "sampling: logit ", nan, " is NaN");
}

// First index of the maximum: ties go to the lower id, as torch.argmax does.
int32_t argmax(std::span<const float> logits) {
  return static_cast<int32_t>(kernels::argmax(logits.data(), static_cast<int64_t>(logits.size())));
}

}  // namespace

std::vector<double> token_probabilities(std::span<const float> logits, float temperature) {
  check_logits(logits);
  TFP_CHECK(temperature > 0.0f, "token_probabilities: temperature must be > 0, got ", temperature);
  // Subtract the max before exp: the largest term becomes exp(0) = 1, nothing overflows.
  const double mx = *std::max_element(logits.begin(), logits.end());
  std::vector<double> p(logits.size());
  double sum = 0;
  for (size_t i = 0; i < p.size(); ++i) sum += p[i] = std::exp((logits[i] - mx) / temperature);
  for (double& x : p) x /= sum;
  return p;
}

TokenReport report_token(std::span<const float> logits, int32_t id, int top_n) {
  check_logits(logits);
  TFP_CHECK(id >= 0 && static_cast<size_t>(id) < logits.size(), "report_token: id ", id, " outside the ",
            logits.size(), " logits");
  TokenReport r;
  if (top_n <= 0) {  // one probability: the softmax's own terms, no V-long copy of them
    const float mx = logits[static_cast<size_t>(argmax(logits))];
    if (mx == -std::numeric_limits<float>::infinity()) return r;  // every token banned: 0, as softmax_rows
    const float sum = kernels::sum_exp(logits.data(), static_cast<int64_t>(logits.size()), mx);
    r.prob = kernels::sum_exp(logits.data() + id, 1, mx) * (1.0f / sum);
    return r;
  }
  thread_local std::vector<float> p;
  p.assign(logits.begin(), logits.end());
  kernels::softmax_rows(p.data(), 1, static_cast<int>(p.size()), static_cast<int64_t>(p.size()));
  r.prob = p[static_cast<size_t>(id)];
  const size_t k = std::min(p.size(), static_cast<size_t>(top_n));
  std::vector<int32_t> order(p.size());
  std::iota(order.begin(), order.end(), 0);
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
                    [&](int32_t a, int32_t b) { return p[a] > p[b] || (p[a] == p[b] && a < b); });
  for (size_t i = 0; i < k; ++i) r.top.emplace_back(order[i], p[static_cast<size_t>(order[i])]);
  return r;
}

namespace {

// The warped distribution and the order sample_token walks it in: `probs` (V) sums to 1
// over order[0 .. keep), 0 elsewhere. Without top-k/top-p the order is the ids' own
// (nothing to sort); with them, most probable first, ties to the lower id.
struct Warped {
  std::vector<double> probs;
  std::vector<int32_t> order;
  size_t keep = 0;
};

Warped warp(std::span<const float> logits, const SamplingOptions& opt) {
  check_sampling(opt);
  check_logits(logits);
  Warped w;
  if (opt.temperature == 0.0f || opt.top_k == 1) {  // greedy: no softmax, no division by 0
    w.probs.assign(logits.size(), 0.0);
    const int32_t best = argmax(logits);
    w.probs[static_cast<size_t>(best)] = 1.0;
    w.order = {best};
    w.keep = 1;
    return w;
  }
  std::vector<double> p = token_probabilities(logits, opt.temperature);
  w.order.resize(p.size());
  std::iota(w.order.begin(), w.order.end(), 0);
  size_t keep = w.order.size();
  if (opt.top_k > 0 || opt.top_p < 1.0f) {
    std::stable_sort(w.order.begin(), w.order.end(), [&](int32_t a, int32_t b) { return p[a] > p[b]; });
    if (opt.top_k > 0) keep = std::min(keep, static_cast<size_t>(opt.top_k));
    if (opt.top_p < 1.0f) {
      double kept_mass = 0;
      for (size_t i = 0; i < keep; ++i) kept_mass += p[w.order[i]];
      // The smallest prefix whose share of the (top-k) mass reaches top_p; at least one.
      // (Hugging Face renormalises after top-k too: its top-p sees the top-k softmax.)
      double cum = 0;
      size_t n = 0;
      while (n < keep) {
        cum += p[w.order[n++]];
        if (cum >= opt.top_p * kept_mass) break;
      }
      keep = n;
    }
  }
  double total = 0;
  for (size_t i = 0; i < keep; ++i) total += p[w.order[i]];
  w.probs.assign(p.size(), 0.0);
  for (size_t i = 0; i < keep; ++i) w.probs[w.order[i]] = p[w.order[i]] / total;
  w.keep = keep;
  return w;
}

}  // namespace

std::vector<double> warped_probabilities(std::span<const float> logits, const SamplingOptions& opt) {
  return warp(logits, opt).probs;
}

int32_t sample_token(std::span<const float> logits, const SamplingOptions& opt, Pcg32& rng) {
  // Greedy draws no random number (a top-p that keeps one token still does: the stream
  // of a seed does not depend on how many tokens a step happened to keep), and needs no
  // warped distribution (a V-long vector of doubles per token).
  if (opt.temperature == 0.0f || opt.top_k == 1) {
    check_sampling(opt);
    check_logits(logits);
    return argmax(logits);
  }
  const Warped w = warp(logits, opt);
  // Inverse CDF over the kept tokens in w.order; the total is 1 up to rounding.
  double total = 0;
  for (size_t i = 0; i < w.keep; ++i) total += w.probs[w.order[i]];
  const double u = rng.next_double() * total;
  double cum = 0;
  for (size_t i = 0; i < w.keep; ++i) {
    cum += w.probs[w.order[i]];
    if (u < cum) return w.order[i];
  }
  return w.order[w.keep - 1];  // u within rounding of the total
}

// ---- generation --------------------------------------------------------------------

const char* stop_reason_name(StopReason r) {
  switch (r) {
    case StopReason::max_tokens: return "max_tokens";
    case StopReason::eos: return "eos";
    case StopReason::context_full: return "context_full";
    case StopReason::stopped: return "stopped";
  }
  return "?";
}

GenerateResult generate(const ModelConfig& cfg, const ModelWeights& w, std::span<const int32_t> prompt,
                        const GenerateOptions& opt, const std::function<bool(const GeneratedToken&)>& on_token) {
  TFP_CHECK(cfg.architecture == Architecture::decoder_only && cfg.has_embeddings && cfg.lm_head,
            "generate: needs a decoder-only language model, this one is ", architecture_name(cfg.architecture));
  TFP_CHECK(!prompt.empty(), "generate: the prompt is empty (no tokens)");
  TFP_CHECK(opt.max_tokens >= 0, "generate: max_tokens must be >= 0, got ", opt.max_tokens);
  check_sampling(opt.sampling);
  TFP_CHECK(static_cast<int64_t>(prompt.size()) <= cfg.max_positions, "generate: the prompt has ", prompt.size(),
            " tokens, more than the model's context of ", cfg.max_positions);

  GenerateResult result;
  Pcg32 rng(opt.seed);
  KVCache cache(cfg, generation_capacity(cfg, static_cast<int64_t>(prompt.size()), opt.max_tokens));
  ForwardResult step = decoder_only_step(cfg, w, cache, prompt, nullptr, 1);  // logits (1, V): the last row
  for (int n = 0; n < opt.max_tokens; ++n) {
    const int64_t V = step.logits.dim(-1);
    const std::span<const float> last(step.logits.row(step.logits.dim(0) - 1), static_cast<size_t>(V));
    const int32_t id = sample_token(last, opt.sampling, rng);
    const GeneratedToken tok{id, report_token(last, id).prob};
    result.tokens.push_back(tok);
    if (on_token && !on_token(tok)) {
      result.reason = StopReason::stopped;
      return result;
    }
    if (std::find(opt.eos_token_ids.begin(), opt.eos_token_ids.end(), id) != opt.eos_token_ids.end()) {
      result.reason = StopReason::eos;
      return result;
    }
    if (n + 1 == opt.max_tokens) break;
    if (cache.length() >= cache.capacity()) {
      result.reason = StopReason::context_full;
      return result;
    }
    const int32_t next[1] = {id};
    step = decoder_only_step(cfg, w, cache, next);  // logits (1, V)
  }
  result.reason = StopReason::max_tokens;
  return result;
}

}  // namespace tfp::model
