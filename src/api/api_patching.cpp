// tfp_model_activation_patching (tfp_patch_api.h): argument checks by name and copies;
// the sweeps are inspect/activation_patching.
#include <memory>
#include <span>
#include <string>

#include "api/api_edge.h"
#include "api/api_model.h"
#include "api/api_tensors.h"
#include "api/tfp_patch_api.h"
#include "inspect/activation_patching.h"
#include "inspect/head_mask.h"

using tfp::api::loaded_of;
namespace m = tfp::model;

extern "C" int tfp_model_activation_patching(tfp_model* model, const tfp_patching_params* p, tfp_tensors** out) {
  if (out) *out = nullptr;
  const char* f = "tfp_model_activation_patching";
  if (!p) return tfp::api::null_params(f);
  return tfp::api::guard(f, [&] {
    TFP_API_REQUIRE(out != nullptr, f, ": out is NULL");
    const m::LoadedModel& lm = loaded_of(model, f);
    const m::ModelConfig& c = lm.config();
    TFP_API_REQUIRE(c.architecture == m::Architecture::decoder_only, f, ": '", lm.source, "' is an ",
                    m::architecture_name(c.architecture),
                    " model; activation patching reads the next-token logits at the last position of a "
                    "decoder-only model");
    TFP_API_REQUIRE(c.has_embeddings && c.lm_head, f, ": '", lm.source,
                    "' has no token embeddings or no LM head (the metric reads its logits)");
    TFP_API_REQUIRE(p->clean != nullptr && p->corrupted != nullptr && p->n > 0, f,
                    ": clean and corrupted need n >= 1 token ids each (n = ", p->n, ")");
    TFP_API_REQUIRE(p->kinds != 0 && (p->kinds & ~31u) == 0, f, ": kinds ", p->kinds,
                    " is not a non-empty combination of 1 resid, 2 attn_out, 4 mlp_out, 8 head_all, 16 head_pos");
    const int64_t V = c.vocab_size;
    TFP_API_REQUIRE(p->answer >= 0 && p->answer < V, f, ": answer id ", p->answer,
                    " is outside the vocabulary (0..", V - 1, ")");
    TFP_API_REQUIRE(p->foil >= 0 && p->foil < V, f, ": foil id ", p->foil, " is outside the vocabulary (0..",
                    V - 1, ")");
    const int64_t L = c.n_decoder_layers;
    TFP_API_REQUIRE(p->layer >= -1 && p->layer <= L && (p->layer < L || p->kinds == 1u), f, ": layer ", p->layer,
                    " is not -1 (every layer) or a layer 0..", L - 1, " (", L, " with kinds 1: resid after the last block)");
    const size_t n = static_cast<size_t>(p->n);
    for (size_t t = 0; t < n; ++t) {
      TFP_API_REQUIRE(p->clean[t] >= 0 && p->clean[t] < V, f, ": clean id ", p->clean[t], " at position ", t,
                      " is outside the vocabulary (0..", V - 1, ")");
      TFP_API_REQUIRE(p->corrupted[t] >= 0 && p->corrupted[t] < V, f, ": corrupted id ", p->corrupted[t],
                      " at position ", t, " is outside the vocabulary (0..", V - 1, ")");
    }
    tfp::inspect::WithHeadMask masked(model->head_mask, nullptr);
    const tfp::inspect::ActivationPatching r = tfp::inspect::activation_patching(
        c, lm.weights(), std::span<const int32_t>(p->clean, n), std::span<const int32_t>(p->corrupted, n), p->answer,
        p->foil, p->kinds, masked.get(), p->layer);
    auto list = std::make_unique<tfp_tensors>();
    list->add("metric", tfp::Tensor(tfp::Shape{4}, {static_cast<float>(r.clean_logit_diff),
                                                   static_cast<float>(r.corrupted_logit_diff),
                                                   static_cast<float>(r.clean_logprob),
                                                   static_cast<float>(r.corrupted_logprob)}));
    for (const tfp::inspect::PatchTable& t : r.tables) {
      const tfp::Shape shape(t.dims.begin(), t.dims.end());
      list->add(t.kind + ".logit_diff", tfp::Tensor(shape, t.logit_diff));
      if (r.logit_diff_normalizable) list->add(t.kind + ".logit_diff_norm", tfp::Tensor(shape, t.logit_diff_norm));
      list->add(t.kind + ".logprob", tfp::Tensor(shape, t.logprob));
      if (r.logprob_normalizable) list->add(t.kind + ".logprob_norm", tfp::Tensor(shape, t.logprob_norm));
    }
    *out = list.release();
  });
}
