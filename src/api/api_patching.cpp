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
    TFP_API_REQUIRE(p->clean != nullptr && p->corrupted != nullptr && p->n > 0, f,
                    ": clean and corrupted need n >= 1 token ids each (n = ", p->n, ")");
    TFP_API_REQUIRE(p->kinds != 0 && (p->kinds & ~511u) == 0, f, ": kinds ", p->kinds,
                    " is not a non-empty combination of 1 resid, 2 attn_out, 4 mlp_out, 8 head_all, 16 head_pos, "
                    "32 head_q, 64 head_k, 128 head_v, 256 head_pattern");
    const int64_t L = c.n_decoder_layers;
    TFP_API_REQUIRE(p->layer >= -1 && p->layer <= L && (p->layer < L || p->kinds == 1u), f, ": layer ", p->layer,
                    " is not -1 (every layer) or a layer 0..", L - 1, " (", L, " with kinds 1: resid after the last block)");
    const size_t n = static_cast<size_t>(p->n);
    for (const auto& [ids, what] : {std::pair{p->clean, "clean"}, std::pair{p->corrupted, "corrupted"}}) {
      const std::string why =
          tfp::inspect::metric_input_refusal(c, std::span<const int32_t>(ids, n), what, p->answer, p->foil);
      TFP_API_REQUIRE(why.empty(), f, ": '", lm.source, "': ", why);
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

extern "C" int tfp_model_head_ablation(tfp_model* model, const int32_t* ids, int32_t n, int32_t answer, int32_t foil,
                                       int32_t mode, tfp_tensors** out) {
  if (out) *out = nullptr;
  const char* f = "tfp_model_head_ablation";
  return tfp::api::guard(f, [&] {
    TFP_API_REQUIRE(out != nullptr, f, ": out is NULL");
    TFP_API_REQUIRE(ids != nullptr && n > 0, f, ": needs n >= 1 token ids (n = ", n, ")");
    TFP_API_REQUIRE(mode == 0 || mode == 1, f, ": mode ", mode, " is not 0 (zero ablation) or 1 (mean ablation)");
    const m::LoadedModel& lm = loaded_of(model, f);
    const std::span<const int32_t> input(ids, static_cast<size_t>(n));
    const std::string why = tfp::inspect::metric_input_refusal(lm.config(), input, "prompt", answer, foil);
    TFP_API_REQUIRE(why.empty(), f, ": '", lm.source, "': ", why);
    tfp::inspect::WithHeadMask masked(model->head_mask, nullptr);
    const tfp::inspect::HeadAblation r = tfp::inspect::head_ablation(
        lm.config(), lm.weights(), input, answer, foil,
        mode == 0 ? tfp::inspect::AblationMode::zero : tfp::inspect::AblationMode::mean, masked.get());
    auto list = std::make_unique<tfp_tensors>();
    list->add("metric", tfp::Tensor(tfp::Shape{2}, {static_cast<float>(r.logit_diff), static_cast<float>(r.logprob)}));
    list->add("logit_diff", tfp::Tensor(tfp::Shape{r.L, r.H}, r.ablated_logit_diff));
    list->add("logprob", tfp::Tensor(tfp::Shape{r.L, r.H}, r.ablated_logprob));
    *out = list.release();
  });
}
