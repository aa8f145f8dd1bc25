// Gradient attribution on the token embeddings (Captum's conventions on the embedding
// layer's output: the rows of the token table, positions and token types kept as they are).
//
// The metric is patching's (activation_patching.h) at one position p of the model's logits:
//   logit_diff = logit(answer) - logit(foil)      logprob = log softmax(logits)[answer]
// (a decoder-only model: its next-token logits at p, default the last position; BERT: its
// masked-LM logits at p, e.g. a [MASK]). With e (T, C) the token rows and g = ∂metric/∂e:
//   gradient × input   Σ_c g[t, c] · e[t, c]  per position t
//   gradient norm      ‖g[t, :]‖₂
//   integrated gradients from the zero baseline (Sundararajan et al. 2017), midpoint rule:
//     IG[t] = Σ_c e[t, c] · (1/n) Σ_{k=0}^{n-1} g(((k + ½)/n) · e)[t, c]
//   completeness gap = Σ_t IG[t] − (metric(e) − metric(0 · e)): → 0 as n grows.
//
// The gradient is our own backward pass through the engine's forward (its attention, its
// linears in whatever precision they are held, its norms): every part of the decoder-only
// families — LayerNorm, RMSNorm and (1 + w), GELU (erf, tanh), SiLU, gated MLPs, RoPE (any
// pairing, fraction and scaling; local and global bases), ALiBi, grouped-query heads,
// windows, q/k norms, attention and final soft-capping, sandwich norms, parallel residuals,
// embedding scales and norms — and BERT (post-LN, token types, its masked-LM head).
// Encoder–decoders and models without an LM head are refused by name. Under a head mask
// (inspect/head_mask.h) the gradient is the masked model's.
//
// Legend: T tokens, C width, V vocabulary.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "inspect/head_mask.h"
#include "model/transformer.h"

namespace tfp::inspect {

enum class GradMetric { logit_diff, logprob };

struct MetricGradient {
  double value = 0;          // the metric
  std::vector<float> grad;   // (T, C) ∂metric/∂(token rows)
};

struct GradientAttribution {
  int64_t T = 0, C = 0, position = 0;
  GradMetric metric = GradMetric::logit_diff;
  double value = 0;                  // metric at the input
  std::vector<float> grad_x_input;   // (T)
  std::vector<float> grad_norm;      // (T)
  int steps = 0;                     // integrated gradients' n (0: not computed)
  std::vector<float> integrated;     // (T)
  double baseline_value = 0;         // metric with every token row 0
  double completeness_gap = 0;       // Σ integrated − (value − baseline_value)
};

// Why gradient attribution refuses this model or input ("" when it does not): the C API
// checks it first to answer TFP_ERR_INVALID_ARGUMENT. position -1 = the last.
std::string gradient_refusal(const model::ModelConfig& cfg, std::span<const int32_t> ids, int32_t answer,
                             int32_t foil, int64_t position, int steps);

// The metric and its gradient for token rows `rows` (T, C) standing in for the table's rows
// of ids (ids still give T; positions and token types as for ids). position -1 = the last.
MetricGradient metric_gradient(const model::ModelConfig& cfg, const model::ModelWeights& w,
                               std::span<const int32_t> ids, const Tensor& rows, int32_t answer, int32_t foil,
                               GradMetric metric, int64_t position = -1, const HeadMask* head_mask = nullptr);

// Gradient × input and the gradient's norm at the input, and integrated gradients over
// `steps` midpoints (0 = skip them). Throws tfp::Error with gradient_refusal's reason.
GradientAttribution gradient_attribution(const model::ModelConfig& cfg, const model::ModelWeights& w,
                                         std::span<const int32_t> ids, int32_t answer, int32_t foil,
                                         GradMetric metric, int steps = 64, int64_t position = -1,
                                         const HeadMask* head_mask = nullptr);

// One range of integrated gradients' midpoints, so that a long run can report progress and
// stop between ranges: steps k = first .. first + count - 1 of `steps`, each gradient at
// ((k + ½)/steps) · e weighted 1/steps, then times e and summed over the width:
//   part[t] = Σ_c e[t, c] · (1/steps) Σ_{k in range} g(((k + ½)/steps) · e)[t, c]
// The ranges of 0..steps-1 add up to GradientAttribution::integrated (the midpoint rule is
// a sum over steps). 1 <= steps <= 4096, 0 <= first, 1 <= count, first + count <= steps;
// otherwise (and for what gradient_refusal refuses) throws tfp::Error naming it.
std::vector<double> integrated_gradients_part(const model::ModelConfig& cfg, const model::ModelWeights& w,
                                              std::span<const int32_t> ids, int32_t answer, int32_t foil,
                                              GradMetric metric, int steps, int first, int count, int64_t position = -1,
                                              const HeadMask* head_mask = nullptr);

// The metric with every token row 0 (integrated gradients' baseline).
double zero_baseline_metric(const model::ModelConfig& cfg, const model::ModelWeights& w, std::span<const int32_t> ids,
                            int32_t answer, int32_t foil, GradMetric metric, int64_t position = -1,
                            const HeadMask* head_mask = nullptr);

}  // namespace tfp::inspect
