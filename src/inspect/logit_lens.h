// The logit lens (nostalgebraist 2020): read the residual stream after every decoder
// layer as if it were the last one — through the final norm and the LM head, softmax —
// to see when the model's next-token guess forms and how it changes layer by layer.
//
//   row 0      embed.out      (decoder-only)  or dec.embed.out  (encoder–decoder)
//   row l + 1  dec.l.out      the residual stream after decoder layer l
//   lens[r, t] = softmax(lm_head(final_norm(row r at position t)))     (V)
// The last row is exactly the model's own next-token distribution (same functions on
// the same numbers). Rows are recorded from the real forward pass through the observer
// (inspect/observer.h); an intervention (inspect/head_mask.h) applies when given.
//
// What it does not do: encoder-only models (their heads are not read out of the stream
// of every layer the same way), or "tuned" lenses (a learned map per layer).
//
// Legend: L decoder layers, T (target) tokens, V vocabulary, K top entries kept.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "inspect/observer.h"
#include "model/transformer.h"

namespace tfp::inspect {

struct LogitLens {
  std::vector<std::string> rows;  // (L + 1) the observer names read: "embed.out", "dec.0.out", ...
  int64_t T = 0, K = 0;
  std::vector<int32_t> ids;       // (L + 1, T, K) most probable first; ties: the lower id
  std::vector<float> probs;       // (L + 1, T, K) their probabilities (softmax in double)
};

// Decoder-only: ids are the input, tgt_ids must be empty. Encoder–decoder: ids is the
// source, tgt_ids the decoder input (teacher forcing; the lens reads the decoder).
// top_k >= 1 (clipped to V). `intervention` (may be null) sees the forward pass first,
// e.g. a HeadMaskObserver. Throws tfp::Error for an encoder-only model, a model without
// an LM head, or empty inputs.
LogitLens logit_lens(const model::ModelConfig& cfg, const model::ModelWeights& w,
                     std::span<const int32_t> ids, std::span<const int32_t> tgt_ids, int top_k,
                     Observer* intervention = nullptr);

// One row of the lens: the residual stream h (T, C) → final norm (when the config has
// one) → LM head → logits (T, V). What logit_lens applies to every row.
Tensor lens_logits(const model::ModelConfig& cfg, const model::ModelWeights& w, const Tensor& h);

}  // namespace tfp::inspect
