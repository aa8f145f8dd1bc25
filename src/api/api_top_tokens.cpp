// tfp_top_tokens_logits: the next token's most probable candidates from one row of logits
// the caller already has (model::report_token, what a generator's step reports), so the
// playground's next-token bars come from the forward pass it just ran, not a second one.
#include <algorithm>
#include <span>

#include "api/api_edge.h"
#include "model/sampling.h"

extern "C" {

int tfp_top_tokens_logits(const float* logits, int V, int top_n, int32_t* out_ids, float* out_probs, int* n_out) {
  if (n_out) *n_out = 0;
  return tfp::api::guard("tfp_top_tokens_logits", [&] {
    TFP_API_REQUIRE(logits && out_ids && out_probs && n_out, "tfp_top_tokens_logits: a pointer is NULL");
    TFP_API_REQUIRE(V >= 1, "tfp_top_tokens_logits: V must be at least 1, got ", V);
    TFP_API_REQUIRE(top_n >= 1 && top_n <= 64, "tfp_top_tokens_logits: top_n must be in [1, 64], got ", top_n);
    // The id whose probability report_token also gives is not needed here: 0 will do.
    const tfp::model::TokenReport r =
        tfp::model::report_token(std::span<const float>(logits, static_cast<size_t>(V)), 0, top_n);
    for (size_t i = 0; i < r.top.size(); ++i) {
      out_ids[i] = r.top[i].first;
      out_probs[i] = r.top[i].second;
    }
    *n_out = static_cast<int>(r.top.size());
  });
}

}  // extern "C"
