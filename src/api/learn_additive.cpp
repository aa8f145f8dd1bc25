// The Learn chapter on additive attention (tfp_learn_additive_api.h): argument checks
// and tensor lists around nn::additive_attention, model::gru_greedy_decode and the
// decoder's own step functions; the dot-product comparison runs the Transformer's
// kernels::matmul (scores) and nn::scaled_dot_product_attention (weights, context), the
// entropies inspect::attention_head_stats. No maths of its own beyond ‖v‖₁.
#include "api/tfp_learn_additive_api.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <span>

#include "api/api_edge.h"
#include "api/api_model.h"
#include "api/api_tensors.h"
#include "inspect/rollout.h"
#include "kernels/kernels.h"
#include "model/gru_seq2seq.h"
#include "nn/additive_attention.h"
#include "nn/attention.h"

namespace {

using tfp::Tensor;
using tfp::TensorView;

using tfp::api::finite_matrix;

// Dot-product attention of queries q (Tq, C) over keys k (Tk, C), values h (Tk, Ch),
// unscaled (scale 1, as Luong's "dot" and "general"): the scores q·k_j by the engine's
// matmul, the weights and the context by the Transformer's scaled_dot_product_attention.
struct DotAttention {
  Tensor scores, weights, context;  // (Tq, Tk), (Tq, Tk), (Tq, Ch)
};
DotAttention dot_attention(const TensorView& q, const TensorView& k, const TensorView& h) {
  const int Tq = static_cast<int>(q.shape[0]), Tk = static_cast<int>(k.shape[0]), C = static_cast<int>(q.shape[1]);
  const int Ch = static_cast<int>(h.shape[1]);
  DotAttention r;
  r.scores = Tensor({Tq, Tk});
  tfp::kernels::MatmulArgs mm;
  mm.M = Tq, mm.N = Tk, mm.K = C;
  mm.A = q.data, mm.lda = C, mm.B = k.data, mm.ldb = C, mm.C = r.scores.ptr(), mm.ldc = Tk;
  mm.layout = tfp::kernels::BLayout::NK;
  tfp::kernels::matmul(mm);
  tfp::nn::AttentionResult a = tfp::nn::scaled_dot_product_attention(
      TensorView{q.data, {1, Tq, C}}, TensorView{k.data, {1, Tk, C}}, TensorView{h.data, {1, Tk, Ch}}, {}, 1.0f, true);
  r.weights = Tensor({Tq, Tk}, std::move(a.probs.data));
  r.context = Tensor({Tq, Ch}, std::move(a.out.data));
  return r;
}

// −Σ_j α_ij ln α_ij of each row of weights (Tq, Tk), in nats: inspect's head statistics
// on one row at a time (a row with one key has entropy 0).
Tensor row_entropy(const Tensor& weights) {
  const int64_t Tq = weights.shape[0], Tk = weights.shape[1];
  Tensor e({Tq});
  for (int64_t i = 0; i < Tq; ++i) {
    const float v = Tk < 2 ? 0.0f : tfp::inspect::attention_head_stats(TensorView{weights.row(i), {1, 1, Tk}}).data[0];
    e.data[static_cast<size_t>(i)] = v;
  }
  return e;
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
    const TensorView sv = finite_matrix(where, "s", s, Tq, Cs), hv = finite_matrix(where, "h", h, Tk, Ch);
    tfp::nn::AdditiveAttentionWeights w;
    w.query = {finite_matrix(where, "W", W, A, Cs), {}, tfp::nn::WeightLayout::OutIn};
    if (b) w.query.bias = TensorView{finite_matrix(where, "b", b, 1, A).data, {A}};
    w.key = {finite_matrix(where, "U", U, A, Ch), {}, tfp::nn::WeightLayout::OutIn};
    w.v = TensorView{finite_matrix(where, "v", v, 1, A).data, {A}};

    tfp::nn::AdditiveAttentionTrace trace;
    tfp::nn::AdditiveAttentionResult r = tfp::nn::additive_attention(sv, hv, w, {}, &trace);
    // Luong's "general" score with the same projections: (W s_i + b)·(U h_j) = s_iᵀ(WᵀU)h_j (b = 0).
    DotAttention general = dot_attention(trace.ws.view(), trace.uh.view(), hv);
    Tensor entropy = row_entropy(r.probs), general_entropy = row_entropy(general.weights);
    Tensor bound({1});
    for (int a = 0; a < A; ++a) bound.data[0] += std::fabs(v[a]);  // ‖v‖₁ ≥ |vᵀ tanh(·)|
    auto list = std::make_unique<tfp_tensors>();
    list->add("ws", std::move(trace.ws));
    list->add("uh", std::move(trace.uh));
    list->add("sum", std::move(trace.sum));
    list->add("tanh", std::move(trace.hidden));
    list->add("scores", std::move(r.scores));
    list->add("weights", std::move(r.probs));
    list->add("context", std::move(r.context));
    list->add("entropy", std::move(entropy));
    list->add("bound", std::move(bound));
    list->add("general_scores", std::move(general.scores));
    list->add("general_weights", std::move(general.weights));
    list->add("general_context", std::move(general.context));
    list->add("general_entropy", std::move(general_entropy));
    if (Cs == Ch) {  // Luong's "dot": s_i·h_j needs equal widths
      DotAttention dot = dot_attention(sv, hv, hv);
      Tensor dot_entropy = row_entropy(dot.weights);
      list->add("dot_scores", std::move(dot.scores));
      list->add("dot_weights", std::move(dot.weights));
      list->add("dot_context", std::move(dot.context));
      list->add("dot_entropy", std::move(dot_entropy));
    }
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
    // The same steps again, teacher-forced on the chosen ids with the decoder's own step
    // function, to keep what each step read and wrote: the query s_{t−1}, the context c_t
    // (additive_attention on the same inputs as inside the step), the embedding of y_{t−1},
    // the new state s_t and the output probabilities.
    const tfp::model::GruSeq2SeqModel& m = *model->gru;
    const tfp::model::GruEncoded enc = tfp::model::gru_encode(m, std::span<const int32_t>(src_ids, static_cast<size_t>(n)));
    const int64_t T = static_cast<int64_t>(r.ids.size()), E = m.config.embed_dim;
    const int64_t D = m.config.decoder_hidden, Ce = m.config.encoder_width(), V = m.config.vocab_size;
    Tensor query({T, D}), context({T, Ce}), embed({T, E}), state({T, D}), probs({T, V});
    Tensor s = tfp::model::gru_initial_state(m, enc);
    for (int64_t t = 0; t < T; ++t) {
      const int32_t y_prev = t == 0 ? m.config.decoder_start_token_id : r.ids[static_cast<size_t>(t - 1)];
      std::copy(s.data.begin(), s.data.end(), query.row(t));
      const tfp::nn::AdditiveAttentionResult a = tfp::nn::additive_attention(s.view(), enc.states.view(), m.attention);
      std::copy(a.context.data.begin(), a.context.data.end(), context.row(t));
      std::copy(m.embed.data + y_prev * E, m.embed.data + (y_prev + 1) * E, embed.row(t));
      Tensor logits = tfp::model::gru_decoder_step(m, enc, s, y_prev, nullptr);
      tfp::kernels::softmax_rows(logits.ptr(), 1, static_cast<int>(V), V);
      std::copy(s.data.begin(), s.data.end(), state.row(t));
      std::copy(logits.data.begin(), logits.data.end(), probs.row(t));
    }
    auto list = std::make_unique<tfp_tensors>();
    list->add("scores", std::move(r.scores));
    list->add("weights", std::move(r.attention));
    if (D == Ce) {  // Luong's "dot" on the same states: s_{t−1}·h_j (the model was not trained for it)
      DotAttention dot = dot_attention(query.view(), enc.states.view(), enc.states.view());
      list->add("dot_scores", std::move(dot.scores));
      list->add("dot_weights", std::move(dot.weights));
    }
    list->add("encoder", Tensor(enc.states));
    list->add("query", std::move(query));
    list->add("context", std::move(context));
    list->add("embed", std::move(embed));
    list->add("state", std::move(state));
    list->add("probs", std::move(probs));
    std::copy(r.ids.begin(), r.ids.end(), out_ids);
    *out_len = static_cast<int>(r.ids.size());
    *out = list.release();
  });
}
