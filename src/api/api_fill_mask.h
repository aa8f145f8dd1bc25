// Writes fill-mask results into the C caller's arrays (tfp_model_fill_mask and
// tfp_fill_mask_logits): row r = the r-th mask, top_k ids/probs, unused slots -1 / 0.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "model/fill_mask.h"

namespace tfp::api {

// Call only after everything succeeded: a failure must leave the outputs untouched.
inline void write_fills(const std::vector<model::MaskPrediction>& found, int top_k, int32_t* positions,
                        int32_t* out_ids, float* out_probs, int* n_masked) {
  const size_t K = static_cast<size_t>(top_k);
  for (size_t r = 0; r < found.size(); ++r) {
    positions[r] = static_cast<int32_t>(found[r].position);
    std::fill(out_ids + r * K, out_ids + (r + 1) * K, -1);
    std::fill(out_probs + r * K, out_probs + (r + 1) * K, 0.0f);
    std::copy(found[r].ids.begin(), found[r].ids.end(), out_ids + r * K);
    std::copy(found[r].probs.begin(), found[r].probs.end(), out_probs + r * K);
  }
  *n_masked = static_cast<int>(found.size());
}

}  // namespace tfp::api
