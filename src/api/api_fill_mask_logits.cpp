// tfp_fill_mask_logits: fill-mask top-k (model/fill_mask.h) from the logits of a masked-LM
// forward pass the caller already ran, so the playground shows the [MASK] fillers of the
// text it just ran through tfp_model_forward without a second forward pass.
#include "api/api_edge.h"
#include "api/api_fill_mask.h"
#include "model/fill_mask.h"

extern "C" {

int tfp_fill_mask_logits(const float* logits, int V, const tfp_fill_mask_params* p, int32_t* positions,
                         int32_t* out_ids, float* out_probs, int* n_masked) {
  if (n_masked) *n_masked = 0;
  if (!p) return tfp::api::null_params("tfp_fill_mask_logits");
  const int32_t* ids = p->ids;
  const int32_t n = p->n, mask_id = p->mask_id, top_k = p->top_k;
  return tfp::api::guard("tfp_fill_mask_logits", [&] {
    TFP_API_REQUIRE(positions && out_ids && out_probs && n_masked, "tfp_fill_mask_logits: an output pointer is NULL");
    TFP_API_REQUIRE(logits != nullptr && ids != nullptr && n > 0 && V > 0,
                    "tfp_fill_mask_logits: no logits (n = ", n, ", V = ", V, ")");
    TFP_API_REQUIRE(mask_id >= 0, "tfp_fill_mask_logits: mask_id must be a token id, got ", mask_id);
    TFP_API_REQUIRE(top_k >= 1, "tfp_fill_mask_logits: top_k must be at least 1, got ", top_k);
    // logits (n, V), borrowed: fill_mask only reads it.
    const tfp::TensorView view(logits, {n, V});
    const std::vector<tfp::model::MaskPrediction> found =
        tfp::model::fill_mask(view, std::span<const int32_t>(ids, static_cast<size_t>(n)), mask_id, top_k);
    tfp::api::write_fills(found, top_k, positions, out_ids, out_probs, n_masked);
  });
}

}  // extern "C"
