// Step-by-step generation: the loop of model::generate (sampling.h) turned inside out, so
// a caller (the C API, the page's worker) can take one token per call and stop between
// tokens — cancelling a generation is simply not calling next() again.
//
// A Generator runs the prompt through a KV cache when it is made, then each next()
// chooses one token from the last logits (sample_token with the same PCG32 stream) and,
// if more may follow, runs that token through the cache. With the same prompt, options
// and seed it yields exactly the tokens model::generate returns (tests/test_generate.cpp).
//
// Legend: P prompt tokens, V vocabulary size.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "model/kv_cache.h"
#include "model/sampling.h"

namespace tfp::model {

struct GeneratorOptions {
  int max_tokens = 20;
  SamplingOptions sampling;
  uint64_t seed = 0;
  std::vector<int32_t> stop_ids;  // stop after producing any of these (eos, newline, ...)
  int top_n = 5;                  // how many of the most probable tokens each step reports
  // Sees every step's forward pass (borrowed; must outlive the generator), e.g. the
  // head mask of inspect/head_mask.h so generation runs on the ablated model. Null = none.
  nn::Observer* observer = nullptr;
};

struct GeneratorStep {
  int32_t id = 0;
  float prob = 0;  // probability of `id` at temperature 1 (as GeneratedToken::prob)
  // The top_n most probable tokens at temperature 1, most probable first (ties: lower id).
  std::vector<std::pair<int32_t, float>> top;
};

class Generator {
 public:
  // cfg and w are borrowed: they must outlive the generator. Throws tfp::Error for a
  // model that is not a decoder-only LM, an empty or over-long prompt, bad options.
  Generator(const ModelConfig& cfg, const ModelWeights& w, std::span<const int32_t> prompt,
            GeneratorOptions opt);

  // The next token, or nothing once generation has stopped (then reason() says why).
  std::optional<GeneratorStep> next();

  bool done() const { return done_; }
  StopReason reason() const { return reason_; }
  int produced() const { return produced_; }
  int64_t context_length() const { return cache_.length(); }

 private:
  const ModelConfig& cfg_;
  const ModelWeights& w_;
  GeneratorOptions opt_;
  Pcg32 rng_;
  KVCache cache_;
  Tensor last_logits_;  // (V) logits for the position after everything in the cache
  int produced_ = 0;
  bool done_ = false;
  StopReason reason_ = StopReason::max_tokens;
};

// The same loop as model::generate (sampling.h) with no KV cache: every step embeds the
// whole sequence so far and runs it through every layer again (forward_decoder_only's
// path), then applies the LM head to the last position only — the one the next token
// needs. Same tokens as the cached loop for the same prompt, options and seed (the
// logits agree to rounding); it exists to be timed against it (Learn, "Generating text")
// and to show that the cache changes the cost, not the output.
GenerateResult generate_without_cache(const ModelConfig& cfg, const ModelWeights& w,
                                      std::span<const int32_t> prompt, const GenerateOptions& opt);

// The n most probable entries of probs, most probable first, ties to the lower index.
std::vector<std::pair<int32_t, float>> top_probabilities(const std::vector<double>& probs, int n);

}  // namespace tfp::model
