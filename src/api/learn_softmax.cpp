// The Learn chapter "Softmax" behind tfp_learn_softmax_api.h. No softmax maths lives
// here: the probabilities come from kernels::softmax_rows (what models call), the
// intermediates and the naive counter-example from kernels/ref/softmax_steps.h, the
// mask from nn::apply_attention_mask. This file checks arguments, divides by the
// temperature and sums what it shows.
#include <cmath>
#include <cstdint>
#include <vector>

#include "api/api_edge.h"
#include "api/tfp_learn_softmax_api.h"
#include "kernels/kernels.h"
#include "kernels/ref/softmax_steps.h"
#include "nn/attention.h"

namespace {

namespace ref = tfp::kernels::ref;

void check_row(const char* f, const float* scores, int n) {
  TFP_API_REQUIRE(n >= 1, f, ": n must be >= 1, got ", n);
  TFP_API_REQUIRE(scores != nullptr, f, ": scores is NULL");
  for (int j = 0; j < n; ++j)
    TFP_API_REQUIRE(!std::isnan(scores[j]), f, ": scores[", j, "] is NaN");
}

void check_temperature(const char* f, float t, const char* what, int i = -1) {
  if (i >= 0)
    TFP_API_REQUIRE(std::isfinite(t) && t > 0.0f, f, ": ", what, "[", i,
                    "] must be a finite number > 0, got ", t);
  TFP_API_REQUIRE(std::isfinite(t) && t > 0.0f, f, ": ", what,
                  " must be a finite number > 0, got ", t);
}

// z_j = scores_j / τ, then -inf where masked, as attention masks a padded key.
std::vector<float> logits_of(const float* scores, int n, float t, const uint8_t* masked) {
  std::vector<float> z(scores, scores + n);
  for (float& v : z) v /= t;
  if (masked) {
    tfp::nn::AttentionMask mask;
    mask.key_padding.assign(masked, masked + n);
    tfp::nn::apply_attention_mask(z.data(), n, /*head=*/0, /*Tq=*/1, /*Tk=*/n, mask);
  }
  return z;
}

}  // namespace

extern "C" int tfp_learn_softmax_row(const tfp_learn_softmax_params* p, float* logits, float* exps, float* probs,
                                     float* stats) {
  constexpr const char* f = "tfp_learn_softmax_row";
  if (!p) return tfp::api::null_params(f);
  const float* scores = p->scores;
  const uint8_t* masked = p->masked;
  const int32_t n = p->n, variant = p->variant;
  const float temperature = p->temperature;
  return tfp::api::guard(f, [&] {
    check_row(f, scores, n);
    check_temperature(f, temperature, "temperature");
    TFP_API_REQUIRE(variant == 0 || variant == 1, f,
                    ": variant must be 0 (stable) or 1 (naive), got ", variant);
    TFP_API_REQUIRE(logits && exps && probs && stats, f, ": an output pointer is NULL");
    const std::vector<float> z = logits_of(scores, n, temperature, masked);
    float shift = 0.0f;
    std::vector<float> p(static_cast<size_t>(n));
    const float sum_exps = ref::softmax_row_steps(z.data(), n, variant == 0, exps, p.data(), &shift);
    if (variant == 0) {  // the probabilities a model would get: the fast kernel's
      p = z;
      tfp::kernels::softmax_rows(p.data(), 1, n, n);
    }
    float sum_probs = 0.0f, best = 0.0f;
    int arg = -1;
    for (int j = 0; j < n; ++j) {
      sum_probs += p[j];
      if (p[j] > best) best = p[j], arg = j;  // NaN compares false: skipped
    }
    for (int j = 0; j < n; ++j) logits[j] = z[j], probs[j] = p[j];
    stats[0] = shift;
    stats[1] = sum_exps;
    stats[2] = sum_probs;
    stats[3] = best;
    stats[4] = static_cast<float>(arg);
  });
}

extern "C" int tfp_learn_softmax_temperatures(const float* scores, int n, const uint8_t* masked,
                                              const float* temperatures, int m, float* probs) {
  constexpr const char* f = "tfp_learn_softmax_temperatures";
  return tfp::api::guard(f, [&] {
    check_row(f, scores, n);
    TFP_API_REQUIRE(m >= 1, f, ": m must be >= 1, got ", m);
    TFP_API_REQUIRE(temperatures && probs, f, ": temperatures or probs is NULL");
    for (int i = 0; i < m; ++i) check_temperature(f, temperatures[i], "temperatures", i);
    for (int i = 0; i < m; ++i) {
      const std::vector<float> z = logits_of(scores, n, temperatures[i], masked);
      float* row = probs + static_cast<int64_t>(i) * n;
      for (int j = 0; j < n; ++j) row[j] = z[j];
      tfp::kernels::softmax_rows(row, 1, n, n);
    }
  });
}
