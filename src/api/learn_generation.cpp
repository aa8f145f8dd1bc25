// The Learn chapter "Generating text" behind tfp_learn_generation_api.h. No maths lives
// here: the warped distribution is model::warped_probabilities (what every generator
// samples from), the cache size model::kv_cache_bytes, the two generation loops
// model::generate (KV cache) and model::generate_without_cache, the beam search
// model::beam_generate. This file checks
// arguments, converts to float32 and runs the loops under a clock.
#include "api/tfp_learn_generation_api.h"

#include <algorithm>
#include <cmath>
#include <span>
#include <vector>

#include "api/api_edge.h"
#include "api/api_model.h"
#include "api/stopwatch.h"
#include "model/beam.h"
#include "model/config_json.h"
#include "model/generate.h"
#include "model/kv_cache.h"
#include "model/sampling.h"

using tfp::api::loaded_of;
namespace model = tfp::model;

namespace {

using tfp::api::clock_type;
using tfp::api::elapsed_ms;
constexpr double kMinRoundMs = 10.0;  // the runs of one round fill at least this long
constexpr double kRoundsMs = 400.0;   // a further round only while the rounds so far took less
constexpr int kMaxRounds = 3;
constexpr int kMaxRuns = 200;

// Mean milliseconds per call of op over as many calls as fill kMinRoundMs (at least one;
// the browser's clock is coarse, so a short run is repeated rather than read once).
template <typename Op>
double round_ms(const Op& op) {
  const auto t0 = clock_type::now();
  int runs = 0;
  do {
    op();
    ++runs;
  } while (runs < kMaxRuns && elapsed_ms(t0) < kMinRoundMs);
  return elapsed_ms(t0) / runs;
}

// The fastest of up to kMaxRounds rounds (fewer when one round is already long): other
// work on the machine only ever adds time, so the minimum is the least disturbed.
template <typename Op>
double best_ms(const Op& op) {
  const auto t0 = clock_type::now();
  double best = round_ms(op);
  for (int r = 1; r < kMaxRounds && elapsed_ms(t0) < kRoundsMs; ++r) best = std::min(best, round_ms(op));
  return best;
}

model::SamplingOptions sampling_of(float temperature, int top_k, float top_p) {
  model::SamplingOptions s;
  s.temperature = temperature;
  s.top_k = top_k;
  s.top_p = top_p;
  return s;
}

}  // namespace

extern "C" int tfp_learn_sampling_probs(const float* logits, int V, float temperature, int top_k, float top_p,
                                        float* raw, float* warped, int* kept) {
  constexpr const char* f = "tfp_learn_sampling_probs";
  return tfp::api::guard(f, [&] {
    TFP_API_REQUIRE(V >= 1, f, ": V must be >= 1, got ", V);
    TFP_API_REQUIRE(logits != nullptr, f, ": logits is NULL");
    TFP_API_REQUIRE(raw != nullptr && warped != nullptr, f, ": an output pointer is NULL");
    const std::span<const float> z(logits, static_cast<size_t>(V));
    const model::SamplingOptions opt = sampling_of(temperature, top_k, top_p);
    const std::vector<double> q = model::warped_probabilities(z, opt);  // checks options and logits
    const std::vector<double> p = model::token_probabilities(z, 1.0f);
    int n = 0;
    for (int i = 0; i < V; ++i) {
      raw[i] = static_cast<float>(p[static_cast<size_t>(i)]);
      warped[i] = static_cast<float>(q[static_cast<size_t>(i)]);
      n += q[static_cast<size_t>(i)] > 0.0;
    }
    if (kept) *kept = n;
  });
}

namespace {

// out (7): layers, heads H, head size D, KV width Hkv·D, positions, bytes, key/value heads Hkv.
void cache_size_of(const model::ModelConfig& cfg, int positions, double* out, size_t n_out) {
  const double v[7] = {static_cast<double>(cfg.n_decoder_layers), static_cast<double>(cfg.n_heads),
                       static_cast<double>(cfg.head_dim()), static_cast<double>(cfg.kv_heads() * cfg.head_dim()),
                       static_cast<double>(positions), static_cast<double>(model::kv_cache_bytes(cfg, positions)),
                       static_cast<double>(cfg.kv_heads())};
  std::copy(v, v + n_out, out);
}

}  // namespace

extern "C" int tfp_learn_kv_cache_size(tfp_model* model, int positions, double* out) {
  constexpr const char* f = "tfp_learn_kv_cache_size";
  return tfp::api::guard(f, [&] {
    TFP_API_REQUIRE(out != nullptr, f, ": out is NULL");
    const model::ModelConfig& cfg = loaded_of(model, f).config();
    TFP_API_REQUIRE(cfg.has_decoder(), f, ": an ", model::architecture_name(cfg.architecture),
                    " model has no decoder, so no KV cache");
    TFP_API_REQUIRE(positions >= 0 && positions <= cfg.max_positions, f, ": positions must be in 0 .. ",
                    cfg.max_positions, " (the model's context), got ", positions);
    cache_size_of(cfg, positions, out, 6);
  });
}

extern "C" int tfp_learn_kv_cache_size_config(const char* config_json, size_t config_bytes, int positions,
                                              double* out) {
  constexpr const char* f = "tfp_learn_kv_cache_size_config";
  return tfp::api::guard(f, [&] {
    TFP_API_REQUIRE(out != nullptr && config_json != nullptr, f, ": config_json and out must not be NULL");
    const model::ModelConfig cfg = model::parse_config_json(std::string_view(config_json, config_bytes)).config;
    TFP_API_REQUIRE(cfg.has_decoder(), f, ": an ", model::architecture_name(cfg.architecture),
                    " model has no decoder, so no KV cache");
    TFP_API_REQUIRE(positions >= 0 && positions <= cfg.max_positions, f, ": positions must be in 0 .. ",
                    cfg.max_positions, " (the config's context), got ", positions);
    cache_size_of(cfg, positions, out, 7);
  });
}

extern "C" int tfp_learn_generation_timing(tfp_model* model, const tfp_generator_params* params, const int32_t* lengths,
                                           int n_lengths, double* out, int32_t* ids_with, int32_t* ids_without) {
  constexpr const char* f = "tfp_learn_generation_timing";
  if (!params) return tfp::api::null_params(f);
  const int32_t* prompt = params->prompt;
  const int32_t n = params->n, top_k = params->top_k;
  const float temperature = params->temperature, top_p = params->top_p;
  const uint32_t seed = params->seed;
  return tfp::api::guard(f, [&] {
    const model::LoadedModel& lm = loaded_of(model, f);
    const model::ModelConfig& cfg = lm.config();
    TFP_API_REQUIRE(prompt != nullptr && n >= 1, f, ": the prompt is empty (n = ", n, ")");
    TFP_API_REQUIRE(lengths != nullptr && n_lengths >= 1 && n_lengths <= 16, f,
                    ": n_lengths must be 1 .. 16, got ", n_lengths);
    TFP_API_REQUIRE(out != nullptr, f, ": out is NULL");
    int longest = 0;
    for (int i = 0; i < n_lengths; ++i) {
      TFP_API_REQUIRE(lengths[i] >= 1, f, ": lengths[", i, "] must be >= 1, got ", lengths[i]);
      TFP_API_REQUIRE(int64_t{n} + lengths[i] - 1 <= cfg.max_positions, f, ": lengths[", i, "] = ", lengths[i],
                      " new tokens do not fit after a ", n, "-token prompt in the model's context of ",
                      cfg.max_positions, " (at most ", cfg.max_positions - n + 1, ")");
      longest = std::max(longest, lengths[i]);
    }
    const std::span<const int32_t> p(prompt, static_cast<size_t>(n));
    model::GenerateOptions opt;
    opt.sampling = sampling_of(temperature, top_k, top_p);
    opt.seed = seed;
    opt.eos_token_ids.clear();  // exactly lengths[i] tokens
    // Warm-up, untimed: WebAssembly starts in a baseline tier; allocators warm up too.
    opt.max_tokens = lengths[0];
    (void)model::generate(cfg, lm.weights(), p, opt);
    (void)model::generate_without_cache(cfg, lm.weights(), p, opt);
    for (int i = 0; i < n_lengths; ++i) {
      opt.max_tokens = lengths[i];
      model::GenerateResult with, without;
      const double ms_with = best_ms([&] { with = model::generate(cfg, lm.weights(), p, opt); });
      const double ms_without = best_ms([&] { without = model::generate_without_cache(cfg, lm.weights(), p, opt); });
      bool same = with.tokens.size() == without.tokens.size();
      for (size_t t = 0; same && t < with.tokens.size(); ++t) same = with.tokens[t].id == without.tokens[t].id;
      double* row = out + 4 * i;
      row[0] = ms_with;
      row[1] = ms_without;
      row[2] = static_cast<double>(with.tokens.size());
      row[3] = same ? 1.0 : 0.0;
      if (lengths[i] == longest) {
        for (size_t t = 0; t < with.tokens.size(); ++t) {
          if (ids_with) ids_with[t] = with.tokens[t].id;
          if (ids_without && t < without.tokens.size()) ids_without[t] = without.tokens[t].id;
        }
      }
    }
  });
}

extern "C" int tfp_learn_beam_search(tfp_model* model, const int32_t* prompt, int n, int beam_size, int max_tokens,
                                     float length_penalty, int eos_id, int32_t* ids, double* result, double* trace) {
  constexpr const char* f = "tfp_learn_beam_search";
  return tfp::api::guard(f, [&] {
    const model::LoadedModel& lm = loaded_of(model, f);
    const model::ModelConfig& cfg = lm.config();
    TFP_API_REQUIRE(prompt != nullptr && n >= 1, f, ": the prompt is empty (n = ", n, ")");
    TFP_API_REQUIRE(beam_size >= 1 && beam_size <= 16, f, ": beam_size must be 1 .. 16, got ", beam_size);
    TFP_API_REQUIRE(max_tokens >= 1, f, ": max_tokens must be >= 1, got ", max_tokens);
    TFP_API_REQUIRE(eos_id >= -2 && eos_id < cfg.vocab_size, f, ": eos_id must be -2, -1 or an id below ",
                    cfg.vocab_size, ", got ", eos_id);
    TFP_API_REQUIRE(ids != nullptr && result != nullptr, f, ": ids and result must not be NULL");
    model::DecodeOptions opt;
    opt.beam_size = beam_size;
    opt.max_tokens = max_tokens;
    opt.length_penalty = length_penalty;
    opt.eos_id = eos_id == -1 ? static_cast<int32_t>(lm.eos_token_id) : eos_id == -2 ? -1 : eos_id;
    std::vector<model::BeamStep> steps;
    opt.trace = &steps;
    const model::Translation t = model::beam_generate(cfg, lm.weights(), std::span<const int32_t>(prompt, static_cast<size_t>(n)), opt);
    std::copy(t.ids.begin(), t.ids.end(), ids);
    result[0] = static_cast<double>(t.ids.size());
    result[1] = t.log_prob;
    result[2] = t.score;
    result[3] = t.reason == model::StopReason::eos ? 1.0 : 0.0;
    result[4] = static_cast<double>(steps.size());
    if (!trace) return;
    const size_t W = 2 * static_cast<size_t>(beam_size);
    for (size_t s = 0; s < static_cast<size_t>(max_tokens); ++s) {
      for (size_t r = 0; r < W; ++r) {
        double* row = trace + 5 * (s * W + r);
        if (s < steps.size() && r < steps[s].ranked.size()) {
          const model::BeamCandidate& c = steps[s].ranked[r];
          row[0] = c.beam;
          row[1] = c.token;
          row[2] = c.log_prob;
          row[3] = c.token_log_prob;
          row[4] = static_cast<double>(static_cast<int>(c.fate));
        } else {
          std::fill(row, row + 5, 0.0);
          row[0] = -1;
        }
      }
    }
  });
}
