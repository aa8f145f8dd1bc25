// The Learn chapter on additive attention (tfp_learn_additive_api.h): argument checks
// and tensor lists around nn::additive_attention and model::gru_greedy_decode. No maths
// here: every number comes from the functions the model itself runs.
#include "api/tfp_learn_additive_api.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <span>

#include "api/api_edge.h"
#include "api/api_model.h"
#include "api/api_tensors.h"
#include "model/gru_seq2seq.h"
#include "nn/additive_attention.h"

namespace {

using tfp::Tensor;
using tfp::TensorView;

// A borrowed (rows, cols) input as a view, after checking that it exists and is finite.
TensorView checked(const char* where, const char* what, const float* p, int rows, int cols) {
  TFP_API_REQUIRE(p != nullptr, where, ": ", what, " is NULL");
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      TFP_API_REQUIRE(std::isfinite(p[r * cols + c]), where, ": ", what, " has ", p[r * cols + c], " at row ",
                      r + 1, ", column ", c + 1, " (inputs must be finite numbers)");
  return TensorView{p, {rows, cols}};
}

}  // namespace

extern "C" int tfp_learn_additive_attention(const tfp_learn_additive_params* p, tfp_tensors** out) {
  if (out) *out = nullptr;
  const char* where = "tfp_learn_additive_attention";
  if (!p) return tfp::api::null_params(where);
  const float *s = p->s, *h = p->h, *W = p->W, *b = p->b, *U = p->U, *v = p->v;
  const int32_t Tq = p->Tq, Cs = p->Cs, Tk = p->Tk, Ch = p->Ch, A = p->A;
  return tfp::api::guard(where, [&] {
    TFP_API_REQUIRE(out != nullptr, where, ": out is NULL");
    TFP_API_REQUIRE(Tq > 0 && Cs > 0 && Tk > 0 && Ch > 0 && A > 0, where,
                    ": sizes must be at least 1, got Tq = ", Tq, ", Cs = ", Cs, ", Tk = ", Tk, ", Ch = ", Ch,
                    ", A = ", A);
    TFP_API_REQUIRE(int64_t{Tq} * Tk * A <= (int64_t{1} << 24), where, ": Tq·Tk·A = ", int64_t{Tq} * Tk * A,
                    " is more than this teaching call takes (16M)");
    const TensorView sv = checked(where, "s", s, Tq, Cs), hv = checked(where, "h", h, Tk, Ch);
    tfp::nn::AdditiveAttentionWeights w;
    w.query = {checked(where, "W", W, A, Cs), {}, tfp::nn::WeightLayout::OutIn};
    if (b) w.query.bias = TensorView{checked(where, "b", b, 1, A).data, {A}};
    w.key = {checked(where, "U", U, A, Ch), {}, tfp::nn::WeightLayout::OutIn};
    w.v = TensorView{checked(where, "v", v, 1, A).data, {A}};

    tfp::nn::AdditiveAttentionTrace trace;
    tfp::nn::AdditiveAttentionResult r = tfp::nn::additive_attention(sv, hv, w, {}, &trace);
    auto list = std::make_unique<tfp_tensors>();
    list->add("ws", std::move(trace.ws));
    list->add("uh", std::move(trace.uh));
    list->add("sum", std::move(trace.sum));
    list->add("tanh", std::move(trace.hidden));
    list->add("scores", std::move(r.scores));
    list->add("weights", std::move(r.probs));
    list->add("context", std::move(r.context));
    *out = list.release();
  });
}

extern "C" int tfp_learn_additive_gru_steps(tfp_model* model, const int32_t* src_ids, int n, int max_tokens,
                                            int32_t* out_ids, int capacity, int* out_len, tfp_tensors** out) {
  if (out) *out = nullptr;
  if (out_len) *out_len = 0;
  const char* where = "tfp_learn_additive_gru_steps";
  return tfp::api::guard(where, [&] {
    TFP_API_REQUIRE(out != nullptr && out_ids != nullptr && out_len != nullptr, where,
                    ": out, out_ids or out_len is NULL");
    TFP_API_REQUIRE(model != nullptr && (model->gru || model->loaded), where, ": model is NULL");
    TFP_API_REQUIRE(model->gru != nullptr, where, ": '", model->source,
                    "' is a Transformer; additive attention steps need a recurrent encoder-decoder "
                    "(model_type tfp_gru_seq2seq, e.g. numbers-gru)");
    TFP_API_REQUIRE(src_ids != nullptr && n > 0, where, ": the source is empty (n = ", n, ")");
    TFP_API_REQUIRE(max_tokens >= 0, where, ": max_tokens must be >= 0, got ", max_tokens);
    tfp::model::GruDecodeResult r = tfp::model::gru_greedy_decode(
        *model->gru, std::span<const int32_t>(src_ids, static_cast<size_t>(n)), max_tokens);
    TFP_API_REQUIRE(static_cast<int>(r.ids.size()) <= capacity, where, ": the output has ", r.ids.size(),
                    " tokens, more than out_ids' capacity of ", capacity);
    auto list = std::make_unique<tfp_tensors>();
    list->add("scores", std::move(r.scores));
    list->add("weights", std::move(r.attention));
    std::copy(r.ids.begin(), r.ids.end(), out_ids);
    *out_len = static_cast<int>(r.ids.size());
    *out = list.release();
  });
}
