// tfp_model_fill_mask: the top fillers of every [MASK] of a masked-LM model's input, with
// their probabilities (model/fill_mask.h), so the page shows them without doing the
// softmax itself.
#include <algorithm>

#include "api/api_edge.h"
#include "api/api_model.h"
#include "model/fill_mask.h"

using tfp::api::loaded_of;

extern "C" {

int tfp_model_fill_mask(tfp_model* model, const int32_t* ids, int n, const int32_t* token_type_ids,
                        const int32_t* attention_mask, int mask_id, int top_k, int32_t* positions,
                        int32_t* out_ids, float* out_probs, int* n_masked) {
  if (n_masked) *n_masked = 0;
  return tfp::api::guard("tfp_model_fill_mask", [&] {
    namespace m = tfp::model;
    TFP_API_REQUIRE(positions && out_ids && out_probs && n_masked,
                    "tfp_model_fill_mask: an output pointer is NULL");
    const m::LoadedModel& lm = loaded_of(model, "tfp_model_fill_mask");
    const m::ModelConfig& c = lm.config();
    TFP_API_REQUIRE(c.architecture == m::Architecture::encoder_only && c.encoder_head == m::EncoderHead::masked_lm,
                    "tfp_model_fill_mask: '", lm.source, "' has no masked-LM head (it is ",
                    m::architecture_name(c.architecture),
                    "; a BERT checkpoint needs its cls.predictions.* tensors, as BertForMaskedLM saves them)");
    TFP_API_REQUIRE(ids != nullptr && n > 0, "tfp_model_fill_mask: no input tokens (n = ", n, ")");
    TFP_API_REQUIRE(top_k >= 1, "tfp_model_fill_mask: top_k must be at least 1, got ", top_k);
    int32_t mask = mask_id;
    if (mask < 0) {
      TFP_API_REQUIRE(lm.tokenizer != nullptr, "tfp_model_fill_mask: mask_id -1 needs a tokenizer; '", lm.source,
                      "' has none (pass the mask id)");
      mask = static_cast<int32_t>(lm.tokenizer->special_ids().mask);
      TFP_API_REQUIRE(mask >= 0, "tfp_model_fill_mask: the tokenizer of '", lm.source,
                      "' has no [MASK] token (pass the mask id)");
    }
    std::vector<int32_t> types;
    if (token_type_ids) types.assign(token_type_ids, token_type_ids + n);
    std::vector<uint8_t> padding;
    if (attention_mask) {
      for (int i = 0; i < n; ++i) {
        TFP_API_REQUIRE(attention_mask[i] == 0 || attention_mask[i] == 1,
                        "tfp_model_fill_mask: attention_mask values must be 0 or 1, got ", attention_mask[i],
                        " at position ", i);
        padding.push_back(attention_mask[i] == 0 ? 1 : 0);
      }
    }
    const std::vector<m::MaskPrediction> found = m::fill_mask_forward(
        c, lm.weights(), std::span<const int32_t>(ids, static_cast<size_t>(n)), types, padding, mask, top_k,
        tfp::inspect::WithHeadMask(model->head_mask, nullptr).get());
    // Written only after everything succeeded: a failure leaves the outputs untouched.
    const size_t K = static_cast<size_t>(top_k);
    for (size_t r = 0; r < found.size(); ++r) {
      positions[r] = static_cast<int32_t>(found[r].position);
      std::fill(out_ids + r * K, out_ids + (r + 1) * K, -1);
      std::fill(out_probs + r * K, out_probs + (r + 1) * K, 0.0f);
      std::copy(found[r].ids.begin(), found[r].ids.end(), out_ids + r * K);
      std::copy(found[r].probs.begin(), found[r].probs.end(), out_probs + r * K);
    }
    *n_masked = static_cast<int>(found.size());
  });
}

}  // extern "C"
