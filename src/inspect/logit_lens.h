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
// What it does not do: "tuned" lenses (a learned map per layer). Encoder-only models
// with a token classifier have their own lens, tagger_lens below: the same idea with the
// encoder's final norm and the classifier in place of the LM head.
//
// Legend: L decoder layers, T (target) tokens, V vocabulary, K top entries kept.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "nn/observer.h"
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
                     nn::Observer* intervention = nullptr);

// The lens of an encoder-only token classifier (our part-of-speech tagger): what each
// layer's output would tag if the final classifier read it.
//   row 0      embed.out      the embeddings (token + position)
//   row l + 1  enc.l.out      the residual stream after encoder layer l
//   probs[r, t] = softmax(classifier(encoder_final_norm(row r at position t)))   (n_labels)
// The last row is exactly the model's own label distribution. Legend: R = L + 1 rows,
// N labels.
struct TaggerLens {
  std::vector<std::string> rows;  // (R) the observer names read
  int64_t T = 0, N = 0;
  std::vector<float> probs;       // (R, T, N) softmax in double, stored as float
};

// ids (T) of an encoder-only model with a token_classifier head. `also` (may be null)
// sees the same forward pass first, e.g. a head mask, or a recorder of "enc.*.ffn.hidden"
// so that one pass serves both. Throws tfp::Error for another architecture or head, or
// empty ids.
TaggerLens tagger_lens(const model::ModelConfig& cfg, const model::ModelWeights& w,
                       std::span<const int32_t> ids, nn::Observer* also = nullptr);

// One row of the lens: the residual stream h (T, C) → final norm (when the config has
// one) → LM head → logits (T, V). What logit_lens applies to every row.
Tensor lens_logits(const model::ModelConfig& cfg, const model::ModelWeights& w, const Tensor& h);

}  // namespace tfp::inspect
