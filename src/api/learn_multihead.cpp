// The Learn chapter "Multi-head attention"'s C API (tfp_learn_multihead_api.h): argument
// checks, then nn::multi_head_attention_cost; the counting lives in nn/attention_cost.cpp.
#include "api/tfp_learn_multihead_api.h"

#include "api/api_edge.h"
#include "nn/attention_cost.h"

extern "C" {

int tfp_learn_mha_cost(int d_model, int heads, int tokens, int bias, double* out) {
  return tfp::api::guard("tfp_learn_mha_cost", [&] {
    TFP_API_REQUIRE(out != nullptr, "tfp_learn_mha_cost: out is NULL");
    // Limits keep every count below 2^53, so the doubles are exact.
    TFP_API_REQUIRE(d_model >= 1 && d_model <= 16384, "tfp_learn_mha_cost: d_model must be in [1, 16384], got ",
                    d_model);
    TFP_API_REQUIRE(tokens >= 1 && tokens <= 65536, "tfp_learn_mha_cost: tokens must be in [1, 65536], got ", tokens);
    TFP_API_REQUIRE(heads >= 1 && heads <= d_model, "tfp_learn_mha_cost: heads must be in [1, d_model = ", d_model,
                    "], got ", heads);
    TFP_API_REQUIRE(d_model % heads == 0, "tfp_learn_mha_cost: heads (", heads, ") must divide d_model (", d_model,
                    "): each head takes d_model/heads columns");
    TFP_API_REQUIRE(bias == 0 || bias == 1, "tfp_learn_mha_cost: bias must be 0 or 1, got ", bias);
    const tfp::nn::MultiHeadCost c = tfp::nn::multi_head_attention_cost(d_model, heads, tokens, bias == 1);
    const int64_t values[TFP_LEARN_MHA_COST_VALUES] = {
        c.head_dim,   c.params_q,  c.params_k,     c.params_v,    c.params_out, c.params_total,
        c.flops_qkv, c.flops_scores, c.flops_mix, c.flops_out, c.flops_total, c.map_entries};
    for (int i = 0; i < TFP_LEARN_MHA_COST_VALUES; ++i) out[i] = static_cast<double>(values[i]);
  });
}

}  // extern "C"
