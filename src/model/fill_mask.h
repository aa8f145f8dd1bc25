// Fill-mask: what a masked-language model (BERT's cls.predictions head) predicts at
// every [MASK] of its input — the most probable vocabulary entries with their
// probabilities, softmax over the (T, V) logits of that position only.
//
// What it does not do: decide which id is the mask (the caller names it, usually the
// tokenizer's [MASK]), or run the model (fill_mask_forward does that for a loaded model).
//
// Legend: T tokens, V vocabulary, K candidates per mask.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "core/tensor.h"
#include "model/transformer.h"

namespace tfp::model {

struct MaskPrediction {
  int64_t position = 0;       // index of the [MASK] in the input
  std::vector<int32_t> ids;   // (K) most probable first; ties: the smaller id first
  std::vector<float> probs;   // (K) softmax(logits row)[id]
};

// For every t with ids[t] == mask_id, in order: the top_k (clipped to V) entries of
// softmax(logits[t]). logits (T, V), ids (T). Errors name the shapes; top_k must be >= 1.
std::vector<MaskPrediction> fill_mask(const TensorView& logits, std::span<const int32_t> ids,
                                      int32_t mask_id, int top_k);

// Runs an encoder-only model with a masked_lm head (forward_encoder_only) and fills its
// masks. token_types / padding as forward_encoder_only; obs (may be null) sees the
// forward pass (e.g. the head mask of inspect/head_mask.h). A model without the head is
// an error that says what it has instead.
std::vector<MaskPrediction> fill_mask_forward(const ModelConfig& cfg, const ModelWeights& w,
                                              std::span<const int32_t> ids,
                                              std::span<const int32_t> token_types,
                                              const std::vector<uint8_t>& padding, int32_t mask_id,
                                              int top_k, nn::Observer* obs = nullptr);

}  // namespace tfp::model
