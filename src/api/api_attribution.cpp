// tfp_model_logit_attribution, tfp_model_gradient_attribution and tfp_model_integrated_gradients (tfp_attribution_api.h):
// argument checks by name and copies; the work is inspect/logit_attribution and
// inspect/gradient_attribution.
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "api/api_edge.h"
#include "api/api_model.h"
#include "api/api_tensors.h"
#include "api/tfp_attribution_api.h"
#include "inspect/gradient_attribution.h"
#include "inspect/head_mask.h"
#include "inspect/logit_attribution.h"

using tfp::api::loaded_of;

namespace {

// What both gradient calls take from their arguments, after the model's refusal (by name):
// the loaded model, the ids, the metric and the head mask (none when empty).
struct GradientInputs {
  const tfp::model::LoadedModel& lm;
  std::span<const int32_t> ids;
  tfp::inspect::GradMetric metric;
  const tfp::inspect::HeadMask* mask;
};

GradientInputs gradient_inputs(const char* f, tfp_model* model, const int32_t* ids, int32_t n, int32_t answer,
                               int32_t foil, int32_t metric, int32_t steps, int32_t position) {
  const tfp::model::LoadedModel& lm = loaded_of(model, f);
  const std::span<const int32_t> input(ids, static_cast<size_t>(n));
  const std::string why = tfp::inspect::gradient_refusal(lm.config(), input, answer, foil, position, steps);
  TFP_API_REQUIRE(why.empty(), f, ": '", lm.source, "': ", why);
  return {lm, input, metric == 0 ? tfp::inspect::GradMetric::logit_diff : tfp::inspect::GradMetric::logprob,
          model->head_mask.empty() ? nullptr : &model->head_mask};
}

}  // namespace

extern "C" int tfp_model_logit_attribution(tfp_model* model, const int32_t* ids, int32_t n, int32_t answer,
                                           int32_t foil, tfp_tensors** out) {
  if (out) *out = nullptr;
  const char* f = "tfp_model_logit_attribution";
  return tfp::api::guard(f, [&] {
    TFP_API_REQUIRE(out != nullptr, f, ": out is NULL");
    TFP_API_REQUIRE(ids != nullptr && n > 0, f, ": needs n >= 1 token ids (n = ", n, ")");
    const tfp::model::LoadedModel& lm = loaded_of(model, f);
    const std::span<const int32_t> input(ids, static_cast<size_t>(n));
    const std::string why = tfp::inspect::logit_attribution_refusal(lm.config(), input, answer, foil);
    TFP_API_REQUIRE(why.empty(), f, ": '", lm.source, "': ", why);
    tfp::inspect::WithHeadMask masked(model->head_mask, nullptr);
    const tfp::inspect::LogitAttribution r = tfp::inspect::logit_attribution(
        lm.config(), lm.weights(), input, answer, foil, masked.get());
    using tfp::Shape;
    using tfp::Tensor;
    auto list = std::make_unique<tfp_tensors>();
    const auto one = [](double v) { return Tensor(Shape{1}, {static_cast<float>(v)}); };
    list->add("metric", Tensor(Shape{3}, {static_cast<float>(r.metric), static_cast<float>(r.metric + r.residual),
                                          static_cast<float>(r.residual)}));
    list->add("embed", one(r.embed));
    if (r.has_pos_embed) list->add("pos_embed", one(r.pos_embed));
    list->add("heads", Tensor(Shape{r.L, r.H}, r.heads));
    list->add("attn_bias", Tensor(Shape{r.L}, r.attn_bias));
    list->add("mlp", Tensor(Shape{r.L}, r.mlp));
    list->add("norm_bias", one(r.norm_bias));
    list->add("accumulated", Tensor(Shape{r.L + 1}, r.accumulated));
    *out = list.release();
  });
}

extern "C" int tfp_model_gradient_attribution(tfp_model* model, const int32_t* ids, int32_t n, int32_t answer,
                                              int32_t foil, int32_t metric, int32_t steps, int32_t position,
                                              tfp_tensors** out) {
  if (out) *out = nullptr;
  const char* f = "tfp_model_gradient_attribution";
  return tfp::api::guard(f, [&] {
    TFP_API_REQUIRE(out != nullptr, f, ": out is NULL");
    TFP_API_REQUIRE(ids != nullptr && n > 0, f, ": needs n >= 1 token ids (n = ", n, ")");
    TFP_API_REQUIRE(metric == 0 || metric == 1, f, ": metric must be 0 (logit difference) or 1 (log-probability), got ",
                    metric);
    const GradientInputs in = gradient_inputs(f, model, ids, n, answer, foil, metric, steps, position);
    const tfp::inspect::GradientAttribution r = tfp::inspect::gradient_attribution(
        in.lm.config(), in.lm.weights(), in.ids, answer, foil, in.metric, steps, position, in.mask);
    using tfp::Shape;
    using tfp::Tensor;
    auto list = std::make_unique<tfp_tensors>();
    list->add("metric", Tensor(Shape{2}, {static_cast<float>(r.value), static_cast<float>(r.baseline_value)}));
    list->add("grad_x_input", Tensor(Shape{r.T}, r.grad_x_input));
    list->add("grad_norm", Tensor(Shape{r.T}, r.grad_norm));
    if (r.steps > 0) {
      double total = 0;
      for (float v : r.integrated) total += v;
      list->add("integrated", Tensor(Shape{r.T}, r.integrated));
      list->add("completeness", Tensor(Shape{2}, {static_cast<float>(total), static_cast<float>(r.completeness_gap)}));
    }
    *out = list.release();
  });
}

extern "C" int tfp_model_integrated_gradients(tfp_model* model, const int32_t* ids, int32_t n, int32_t answer, int32_t foil,
                                              int32_t metric, int32_t steps, int32_t first, int32_t count, int32_t position,
                                              tfp_tensors** out) {
  if (out) *out = nullptr;
  const char* f = "tfp_model_integrated_gradients";
  return tfp::api::guard(f, [&] {
    TFP_API_REQUIRE(out != nullptr, f, ": out is NULL");
    TFP_API_REQUIRE(ids != nullptr && n > 0, f, ": needs n >= 1 token ids (n = ", n, ")");
    TFP_API_REQUIRE(metric == 0 || metric == 1, f, ": metric must be 0 (logit difference) or 1 (log-probability), got ",
                    metric);
    TFP_API_REQUIRE(steps >= 1 && steps <= 4096, f, ": steps must be 1..4096, got ", steps);
    TFP_API_REQUIRE(first >= 0 && count >= 1 && static_cast<int64_t>(first) + count <= steps, f, ": steps ", first, "..",
                    static_cast<int64_t>(first) + count - 1, " are not a range of 0..", steps - 1);
    const GradientInputs in = gradient_inputs(f, model, ids, n, answer, foil, metric, steps, position);
    const std::vector<double> part = tfp::inspect::integrated_gradients_part(
        in.lm.config(), in.lm.weights(), in.ids, answer, foil, in.metric, steps, first, count, position, in.mask);
    using tfp::Shape;
    using tfp::Tensor;
    auto list = std::make_unique<tfp_tensors>();
    list->add("integrated", Tensor(Shape{static_cast<int64_t>(part.size())}, std::vector<float>(part.begin(), part.end())));
    if (first + count == steps)
      list->add("baseline", Tensor(Shape{1}, {static_cast<float>(
          tfp::inspect::zero_baseline_metric(in.lm.config(), in.lm.weights(), in.ids, answer, foil, in.metric, position,
                                             in.mask))}));
    *out = list.release();
  });
}
