// tfp_model_forward: one forward pass of a token model, results and (on request) every
// layer's attention probabilities, recorded by the observer the forward pass reports to.
#include "api/api_edge.h"
#include "api/api_gru.h"
#include "api/api_model.h"
#include "api/api_tensors.h"
#include "inspect/head_mask.h"
#include "inspect/observer.h"

using tfp::api::loaded_of;

extern "C" {

int tfp_model_forward(tfp_model* model, const int32_t* ids, int n, const int32_t* token_type_ids,
                      const int32_t* attention_mask, const int32_t* tgt_ids, int n_tgt,
                      int want_attention, tfp_tensors** out) {
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
    TFP_API_REQUIRE(ids != nullptr && n > 0, "tfp_model_forward: no input tokens (n = ", n, ")");
    const std::span<const int32_t> x(ids, static_cast<size_t>(n));

    tfp::inspect::RecordingObserver obs(want_attention ? std::vector<std::string>{"*.probs"}
                                                       : std::vector<std::string>{});
    tfp::inspect::WithHeadMask masked(model->head_mask, want_attention ? &obs : nullptr);
    tfp::inspect::Observer* o = masked.get();  // the head mask (if any) first, then the recorder
    m::ForwardResult r;
    switch (c.architecture) {
      case m::Architecture::decoder_only:
        TFP_API_REQUIRE(!token_type_ids && !attention_mask,
                        "tfp_model_forward: token types and attention masks apply to encoder-only models");
        r = m::forward_decoder_only(c, lm.weights(), x, o);
        break;
      case m::Architecture::encoder_only: {
        std::vector<int32_t> types;
        if (token_type_ids) types.assign(token_type_ids, token_type_ids + n);
        std::vector<uint8_t> padding;
        if (attention_mask) {
          for (int i = 0; i < n; ++i) {
            TFP_API_REQUIRE(attention_mask[i] == 0 || attention_mask[i] == 1,
                            "tfp_model_forward: attention_mask values must be 0 or 1, got ", attention_mask[i],
                            " at position ", i);
            padding.push_back(attention_mask[i] == 0 ? 1 : 0);
          }
        }
        r = m::forward_encoder_only(c, lm.weights(), x, types, padding, o);
        break;
      }
      case m::Architecture::encoder_decoder:
        TFP_API_REQUIRE(!token_type_ids && !attention_mask,
                        "tfp_model_forward: token types and attention masks apply to encoder-only models");
        TFP_API_REQUIRE(tgt_ids != nullptr && n_tgt > 0,
                        "tfp_model_forward: an encoder-decoder model needs decoder input ids (tgt_ids)");
        r = m::forward_encoder_decoder(c, lm.weights(), x,
                                       std::span<const int32_t>(tgt_ids, static_cast<size_t>(n_tgt)), {}, o);
        break;
    }
    auto list = std::make_unique<tfp_tensors>();
    if (!r.logits.empty()) list->add("logits", std::move(r.logits));
    list->add("hidden", std::move(r.hidden));
    for (auto& [name, t] : obs.records()) list->add(name, t);
    *out = list.release();
  });
}

}  // extern "C"
