// tfp_model_fill_mask: the top fillers of every [MASK] of a masked-LM model's input, with
// their probabilities (model/fill_mask.h), so the page shows them without doing the
// softmax itself.
#include "api/api_edge.h"
#include "api/api_fill_mask.h"
#include "api/api_model.h"
#include "api/api_token_inputs.h"
#include "model/fill_mask.h"

using tfp::api::loaded_of;

extern "C" {

int tfp_model_fill_mask(tfp_model* model, const tfp_fill_mask_params* p, int32_t* positions, int32_t* out_ids,
                        float* out_probs, int* n_masked) {
  if (n_masked) *n_masked = 0;
  if (!p) return tfp::api::null_params("tfp_model_fill_mask");
  const int32_t *ids = p->ids, *token_type_ids = p->token_type_ids, *attention_mask = p->attention_mask;
  const int32_t n = p->n, mask_id = p->mask_id, top_k = p->top_k;
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
    TFP_API_REQUIRE(top_k >= 1, "tfp_model_fill_mask: top_k must be at least 1, got ", top_k);
    int32_t mask = mask_id;
    if (mask < 0) {
      TFP_API_REQUIRE(lm.tokenizer != nullptr, "tfp_model_fill_mask: mask_id -1 needs a tokenizer; '", lm.source,
                      "' has none (pass the mask id)");
      mask = static_cast<int32_t>(lm.tokenizer->special_ids().mask);
      TFP_API_REQUIRE(mask >= 0, "tfp_model_fill_mask: the tokenizer of '", lm.source,
                      "' has no [MASK] token (pass the mask id)");
    }
    const tfp::api::TokenInputs in = tfp::api::read_token_inputs(
        "tfp_model_fill_mask", c, ids, n, token_type_ids, attention_mask, nullptr, 0);
    const std::vector<m::MaskPrediction> found =
        m::fill_mask_forward(c, lm.weights(), in.ids, in.token_types, in.padding, mask, top_k,
                             tfp::inspect::WithHeadMask(model->head_mask, nullptr).get());
    tfp::api::write_fills(found, top_k, positions, out_ids, out_probs, n_masked);
  });
}

}  // extern "C"
