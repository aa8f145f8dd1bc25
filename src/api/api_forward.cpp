// tfp_model_forward: one forward pass of a token model, results and (on request) every
// layer's attention probabilities, recorded by the observer the forward pass reports to.
#include <algorithm>

#include "api/api_edge.h"
#include "api/api_gru.h"
#include "api/api_model.h"
#include "api/api_tensors.h"
#include "api/api_token_inputs.h"
#include "inspect/head_mask.h"
#include "nn/observer.h"

using tfp::api::loaded_of;

extern "C" {

int tfp_model_forward(tfp_model* model, const tfp_forward_params* p, tfp_tensors** out) {
  if (!p) {
    if (out) *out = nullptr;
    return tfp::api::null_params("tfp_model_forward");
  }
  const int32_t *ids = p->ids, *token_type_ids = p->token_type_ids, *attention_mask = p->attention_mask;
  const int32_t* tgt_ids = p->tgt_ids;
  const int32_t n = p->n, n_tgt = p->n_tgt, want_attention = p->want_attention, logits_last = p->logits_last;
  if (model && model->gru)  // the recurrent encoder-decoder (api_gru.h)
    return tfp::api::gru_model_forward(model, ids, n, token_type_ids, attention_mask, tgt_ids, n_tgt,
                                       want_attention, out);
  if (out) *out = nullptr;
  return tfp::api::guard("tfp_model_forward", [&] {
    namespace m = tfp::model;
    TFP_API_REQUIRE(out != nullptr, "tfp_model_forward: out is NULL");
    const m::LoadedModel& lm = loaded_of(model, "tfp_model_forward");
    const m::ModelConfig& c = lm.config();
    TFP_API_REQUIRE(c.has_embeddings, "tfp_model_forward: '", lm.source,
                    "' takes embeddings (a PyTorch nn.Transformer checkpoint), not token ids");
    TFP_API_REQUIRE(logits_last >= -1, "tfp_model_forward: logits_last must be -1 (none), 0 (every row) or the "
                    "number of last rows, got ", logits_last);
    const tfp::api::TokenInputs in = tfp::api::read_token_inputs(
        "tfp_model_forward", c, ids, n, token_type_ids, attention_mask, tgt_ids, n_tgt);

    tfp::nn::RecordingObserver obs(want_attention ? std::vector<std::string>{"*.probs"}
                                                       : std::vector<std::string>{});
    tfp::inspect::WithHeadMask masked(model->head_mask, want_attention ? &obs : nullptr);
    // The head mask (if any) first, then the recorder.
    m::ForwardResult r = tfp::api::run_tokens(c, lm.weights(), in, masked.get(), logits_last);
    auto list = std::make_unique<tfp_tensors>();
    list->add_summaries(r.hidden, &r.logits);
    if (!r.logits.empty()) list->add("logits", std::move(r.logits));
    list->add("hidden", std::move(r.hidden));
    for (auto& [name, t] : obs.records()) list->add(name, t);
    *out = list.release();
  });
}

int tfp_model_logits(tfp_model* model, const float* hidden, int n, int v_begin, int v_end, float* out) {
  return tfp::api::guard("tfp_model_logits", [&] {
    namespace m = tfp::model;
    const m::LoadedModel& lm = loaded_of(model, "tfp_model_logits");
    const m::ModelConfig& c = lm.config();
    TFP_API_REQUIRE(c.lm_head && c.architecture != m::Architecture::encoder_only, "tfp_model_logits: '", lm.source,
                    "' has no LM head (its head, if any, comes from tfp_model_forward)");
    TFP_API_REQUIRE(hidden != nullptr && out != nullptr, "tfp_model_logits: hidden or out is NULL");
    TFP_API_REQUIRE(n >= 1, "tfp_model_logits: n must be >= 1, got ", n);
    const int64_t V = c.vocab_size;
    TFP_API_REQUIRE(0 <= v_begin && v_begin < v_end && v_end <= V, "tfp_model_logits: the vocabulary range [", v_begin,
                    ", ", v_end, ") is not inside [0, ", V, ")");
    m::lm_logits_into(c, lm.weights(), tfp::TensorView(hidden, {n, c.d_model}), v_begin, v_end, out);
  });
}

}  // extern "C"
