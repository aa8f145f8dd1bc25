// Direct logit attribution (TransformerLens's conventions: decompose_resid / stack_head_results,
// then apply_ln_to_stack, then the residual directions of the answer and the foil).
//
// The residual stream at the last position before the final norm is a sum of parts:
//   x = token embedding + position embedding + Σ_l (Σ_h head_l,h + attention bias_l + MLP_l)
// (pre-norm blocks, sequential or parallel). head_l,h is head h's output z at the last
// position through its slice of the output projection; attention bias_l is that
// projection's bias. The final norm is applied to each part with its scale frozen at the
// clean run's value: LayerNorm centres each part (subtracts the part's own mean) and
// divides by the run's σ = sqrt(var(x) + eps) — apply_ln_to_stack —, RMSNorm divides by
// the run's rms = sqrt(mean(x²) + eps); both multiply by the norm's weight (1 + w for
// Gemma). Each part's attribution is then (LM head(part)_answer − LM head(part)_foil) with
// the head's bias left out; the norm's bias (and the LM head's bias) through the head is
// its own term. The parts plus that term add up to the metric logit(answer) − logit(foil)
// of the forward pass; `residual` is what is left (float rounding).
//
// Accumulated residual (TransformerLens accumulated_resid): the same frozen norm applied to
// the sum of the parts up to block l (row 0: the embeddings), plus the bias term: the last
// row is the metric.
//
// Models: decoder-only token models with an LM head and pre-norm blocks whose sublayer
// outputs are added to the residual as they are (GPT-2, GPT-Neo, Pythia, BLOOM, Llama,
// Mistral, Qwen). Gemma 2/3's sandwich norms (a norm on each sublayer's output) and final
// logit soft-capping are not linear in the parts: refused by name.
//
// Legend: L decoder layers, H heads, C width.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "model/transformer.h"
#include "nn/observer.h"

namespace tfp::inspect {

struct LogitAttribution {
  int64_t L = 0, H = 0;
  double metric = 0;           // logit(answer) − logit(foil) of the forward pass
  double embed = 0;            // the token embedding (all of the embeddings when not split)
  double pos_embed = 0;        // the learned position embedding
  bool has_pos_embed = false;  // learned positions added without an embedding norm
  std::vector<float> heads;    // (L, H)
  std::vector<float> attn_bias;  // (L)
  std::vector<float> mlp;      // (L)
  double norm_bias = 0;        // the final norm's bias and the LM head's bias, through the head
  std::vector<float> accumulated;  // (L+1)
  double residual = 0;         // sum of every term − metric
};

// Why logit_attribution refuses this model or input ("" when it does not): the C API
// checks it first to answer TFP_ERR_INVALID_ARGUMENT.
std::string logit_attribution_refusal(const model::ModelConfig& cfg, std::span<const int32_t> ids, int32_t answer,
                                      int32_t foil);

// ids in the vocabulary (T >= 1), answer and foil token ids in the vocabulary.
// `intervention` (may be null, e.g. a head mask) sees the run first.
LogitAttribution logit_attribution(const model::ModelConfig& cfg, const model::ModelWeights& w,
                                   std::span<const int32_t> ids, int32_t answer, int32_t foil,
                                   nn::Observer* intervention = nullptr);

}  // namespace tfp::inspect
