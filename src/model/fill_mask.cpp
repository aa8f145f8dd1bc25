// Fill-mask top-k (see fill_mask.h). The softmax runs in double over one row of V
// logits: V can be 30k (bert-base) and the probabilities shown are small numbers whose
// sum must still be 1 — f32 accumulation over 30k terms would lose ~1e-4 relative.
#include "model/fill_mask.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace tfp::model {

std::vector<MaskPrediction> fill_mask(const TensorView& logits, std::span<const int32_t> ids,
                                      int32_t mask_id, int top_k) {
  const int64_t T = static_cast<int64_t>(ids.size());
  TFP_CHECK(logits.rank() == 2 && logits.dim(0) == T, "fill_mask: logits ", shape_str(logits.shape),
            " for ", T, " tokens, expected (", T, ", V)");
  TFP_CHECK(top_k >= 1, "fill_mask: top_k must be at least 1, got ", top_k);
  const int64_t V = logits.dim(1);
  TFP_CHECK(V > 0, "fill_mask: logits have no vocabulary entries ", shape_str(logits.shape));
  const int64_t K = std::min<int64_t>(top_k, V);
  std::vector<MaskPrediction> out;
  std::vector<int32_t> order(static_cast<size_t>(V));
  for (int64_t t = 0; t < T; ++t) {
    if (ids[static_cast<size_t>(t)] != mask_id) continue;
    const float* row = logits.data + t * V;  // (V)
    // Subtracting the row max keeps exp() in range: logits of a trained model reach ±20,
    // and exp(89) already overflows a float.
    const double mx = *std::max_element(row, row + V);
    double sum = 0.0;
    for (int64_t v = 0; v < V; ++v) sum += std::exp(static_cast<double>(row[v]) - mx);
    std::iota(order.begin(), order.end(), 0);
    // Largest logit first (= most probable); equal logits keep the smaller id first.
    std::partial_sort(order.begin(), order.begin() + K, order.end(), [row](int32_t a, int32_t b) {
      return row[a] > row[b] || (row[a] == row[b] && a < b);
    });
    MaskPrediction p;
    p.position = t;
    for (int64_t k = 0; k < K; ++k) {
      const int32_t id = order[static_cast<size_t>(k)];
      p.ids.push_back(id);
      p.probs.push_back(static_cast<float>(std::exp(static_cast<double>(row[id]) - mx) / sum));
    }
    out.push_back(std::move(p));
  }
  return out;
}

std::vector<MaskPrediction> fill_mask_forward(const ModelConfig& cfg, const ModelWeights& w,
                                              std::span<const int32_t> ids,
                                              std::span<const int32_t> token_types,
                                              const std::vector<uint8_t>& padding, int32_t mask_id,
                                              int top_k, nn::Observer* obs) {
  const bool encoder = cfg.architecture == Architecture::encoder_only;
  TFP_CHECK(encoder && cfg.encoder_head == EncoderHead::masked_lm,
            "fill_mask: needs an encoder-only model with a masked-LM head (BERT's cls.predictions); this one is ",
            !encoder ? architecture_name(cfg.architecture)
            : cfg.encoder_head == EncoderHead::token_classifier ? "an encoder with a token classifier"
                                                                : "an encoder without a head (hidden states only)");
  TFP_CHECK(top_k >= 1, "fill_mask: top_k must be at least 1, got ", top_k);
  const ForwardResult r = forward_encoder_only(cfg, w, ids, token_types, padding, obs);
  return fill_mask(r.logits.view(), ids, mask_id, top_k);
}

}  // namespace tfp::model
