// The Learn chapter "Efficiency" behind tfp_learn_efficiency_api.h. No maths lives here:
// full and masked attention are nn::scaled_dot_product_attention, the sparse path
// nn::sparse_attention, linear attention nn::linear_attention, the patterns
// nn/sparse_attention.h, int8 nn/quantize_int8.h, the model model::forward_decoder_only
// and the loss train::cross_entropy. This file checks arguments, draws seeded inputs,
// runs the cores under a clock and compares outputs.
//
// Legend: T tokens, d width, H heads, D = d/H head size, V vocabulary.
#include "api/tfp_learn_efficiency_api.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <span>
#include <vector>

#include "api/api_edge.h"
#include "api/api_model.h"
#include "api/api_tensors.h"
#include "api/seeded.h"
#include "api/stopwatch.h"
#include "model/transformer.h"
#include "model/weights.h"
#include "nn/attention.h"
#include "nn/linear_attention.h"
#include "nn/quantize_int8.h"
#include "nn/sparse_attention.h"
#include "train/cross_entropy.h"

namespace {

namespace nn = tfp::nn;
namespace model = tfp::model;
using tfp::Tensor;
using tfp::TensorView;
using tfp::api::clock_type;
using tfp::api::elapsed_ms;

constexpr double kMinBatchMs = 2.0;          // one timed batch lasts at least this long
constexpr double kFirstCallWarmupMs = 60.0;  // V8 optimises a function once it ran hot
bool g_warmed = false;                       // the engine is single-threaded

nn::SparsePattern pattern_of(const char* op, int kind, int window, int dilation, int n_global, int causal) {
  TFP_API_REQUIRE(kind >= 0 && kind <= 2, op, ": kind must be 0 (window), 1 (dilated) or 2 (global), got ", kind);
  nn::SparsePattern p;
  p.kind = static_cast<nn::SparseKind>(kind);
  p.window = window;
  p.dilation = dilation;
  p.n_global = n_global;
  p.causal = causal != 0;
  nn::validate_sparse_pattern(op, p);
  return p;
}

double max_abs_diff(const Tensor& a, const Tensor& b) {
  double m = 0;
  for (size_t i = 0; i < a.data.size(); ++i) m = std::max(m, std::fabs(double(a.data[i]) - b.data[i]));
  return m;
}

// ‖a − b‖ / ‖b‖ over every element (Frobenius), in double.
double relative_error(const Tensor& a, const Tensor& b) {
  double num = 0, den = 0;
  for (size_t i = 0; i < a.data.size(); ++i) {
    const double e = double(a.data[i]) - b.data[i];
    num += e * e;
    den += double(b.data[i]) * b.data[i];
  }
  return den > 0 ? std::sqrt(num / den) : 0;
}

// Mean next-token loss over ids (n − 1 predictions) of one forward pass's logits.
double mean_nll(const Tensor& logits /*(n, V)*/, std::span<const int32_t> ids) {
  const int n = static_cast<int>(ids.size()), V = static_cast<int>(logits.dim(1));
  std::vector<int> targets(ids.begin() + 1, ids.end());
  return tfp::train::cross_entropy<float>(nullptr, logits.ptr(), targets.data(), n - 1, V).loss;
}

}  // namespace

extern "C" int tfp_learn_sparse_pattern(const tfp_learn_sparse_params* params, uint8_t* out, double* pairs) {
  if (!params) return tfp::api::null_params("tfp_learn_sparse_pattern");
  const int32_t kind = params->kind, T = params->T, window = params->window, dilation = params->dilation;
  const int32_t n_global = params->n_global, causal = params->causal;
  return tfp::api::guard("tfp_learn_sparse_pattern", [&] {
    const char* op = "tfp_learn_sparse_pattern";
    TFP_API_REQUIRE(T >= 1 && T <= 1024, op, ": T must be 1..1024, got ", T);
    TFP_API_REQUIRE(out && pairs, op, ": ", out ? "pairs" : "out", " is NULL");
    const nn::SparsePattern p = pattern_of(op, kind, window, dilation, n_global, causal);
    const std::vector<uint8_t> m = nn::sparse_pattern_matrix(p, T);
    std::copy(m.begin(), m.end(), out);
    *pairs = double(nn::sparse_pair_count(p, T));
  });
}

extern "C" int tfp_learn_sparse_reach(const tfp_learn_sparse_params* params, int layers, int32_t* out,
                                      double* farthest) {
  if (!params) return tfp::api::null_params("tfp_learn_sparse_reach");
  const int32_t kind = params->kind, T = params->T, window = params->window, dilation = params->dilation;
  const int32_t n_global = params->n_global, causal = params->causal;
  return tfp::api::guard("tfp_learn_sparse_reach", [&] {
    const char* op = "tfp_learn_sparse_reach";
    TFP_API_REQUIRE(T >= 1 && T <= 256, op, ": T must be 1..256, got ", T);
    TFP_API_REQUIRE(layers >= 1 && layers <= 16, op, ": layers must be 1..16, got ", layers);
    TFP_API_REQUIRE(out && farthest, op, ": ", out ? "farthest" : "out", " is NULL");
    const nn::SparsePattern p = pattern_of(op, kind, window, dilation, n_global, causal);
    const std::vector<int> first = nn::sparse_reach(p, T, layers);
    int far = 0;
    for (int i = 0; i < T; ++i)
      for (int j = 0; j < T; ++j)
        if (first[size_t(i) * T + j]) far = std::max(far, std::abs(i - j));
    std::copy(first.begin(), first.end(), out);
    *farthest = far;
  });
}

extern "C" int tfp_learn_efficiency_timing(const tfp_learn_efficiency_params* params, double* out) {
  if (!params) return tfp::api::null_params("tfp_learn_efficiency_timing");
  const int32_t d = params->d, heads = params->heads, n_lengths = params->n_lengths, kind = params->kind;
  const int32_t window = params->window, dilation = params->dilation, n_global = params->n_global;
  const int32_t repeats = params->repeats;
  const int32_t* lengths = params->lengths;
  const uint32_t seed = params->seed;
  return tfp::api::guard("tfp_learn_efficiency_timing", [&] {
    const char* op = "tfp_learn_efficiency_timing";
    TFP_API_REQUIRE(d >= 1 && d <= 1024, op, ": width d must be 1..1024, got ", d);
    TFP_API_REQUIRE(heads >= 1 && d % heads == 0, op, ": ", heads, " heads do not divide width ", d,
                    " (each head gets d / heads channels)");
    TFP_API_REQUIRE(n_lengths >= 1 && n_lengths <= 16, op, ": n_lengths must be 1..16, got ", n_lengths);
    TFP_API_REQUIRE(repeats >= 1 && repeats <= 20, op, ": repeats must be 1..20, got ", repeats);
    TFP_API_REQUIRE(lengths && out, op, ": ", lengths ? "out" : "lengths", " is NULL");
    for (int i = 0; i < n_lengths; ++i)
      TFP_API_REQUIRE(lengths[i] >= 1 && lengths[i] <= 2048, op, ": length ", i, " is ", lengths[i],
                      "; each must be 1..2048");
    const nn::SparsePattern p = pattern_of(op, kind, window, dilation, n_global, 0);
    const int64_t H = heads, D = d / heads;
    const float scale = 1.0f / std::sqrt(float(D));

    for (int li = 0; li < n_lengths; ++li) {
      const int64_t T = lengths[li];
      // q, k, v uniform(±√3): variance 1 per entry.
      std::vector<float> qv(size_t(H * T * D)), kv(qv.size()), vv(qv.size());
      tfp::api::SeededStream(seed, "efficiency.q").fill_uniform(qv, std::sqrt(3.0f));
      tfp::api::SeededStream(seed, "efficiency.k").fill_uniform(kv, std::sqrt(3.0f));
      tfp::api::SeededStream(seed, "efficiency.v").fill_uniform(vv, std::sqrt(3.0f));
      const TensorView q(qv.data(), {H, T, D}), k(kv.data(), {H, T, D}), v(vv.data(), {H, T, D});
      const nn::AttentionMask masked = nn::sparse_as_dense_mask(p, static_cast<int>(T));

      const auto full = [&] { return nn::scaled_dot_product_attention(q, k, v, {}, scale, false).out; };
      const auto dense = [&] { return nn::scaled_dot_product_attention(q, k, v, masked, scale, false).out; };
      const auto sparse = [&] { return nn::sparse_attention(q, k, v, p, scale, false).out; };
      const auto linear = [&] { return nn::linear_attention(q, k, v).out; };
      if (!g_warmed) {
        const auto w0 = clock_type::now();
        while (elapsed_ms(w0) < kFirstCallWarmupMs) (void)full(), (void)dense(), (void)sparse(), (void)linear();
        g_warmed = true;
      }
      double* row = out + size_t(li) * TFP_EFF_COLUMNS;
      // Interleaved: a burst of other work slows all four, not only the one it lands on.
      const auto ms = tfp::api::interleaved_best_ms(
          repeats, kMinBatchMs, [&] { (void)full(); }, [&] { (void)dense(); }, [&] { (void)sparse(); },
          [&] { (void)linear(); });
      row[TFP_EFF_FULL_MS] = ms[0];
      row[TFP_EFF_MASKED_MS] = ms[1];
      row[TFP_EFF_SPARSE_MS] = ms[2];
      row[TFP_EFF_LINEAR_MS] = ms[3];
      const int64_t pairs = nn::sparse_pair_count(p, static_cast<int>(T));
      row[TFP_EFF_SCORE_BYTES] = double(H * T * T * 4);
      row[TFP_EFF_SPARSE_PAIRS] = double(pairs);
      row[TFP_EFF_SPARSE_BYTES] = double(H * pairs * 4);
      row[TFP_EFF_LINEAR_BYTES] = double(H * (D * D + D) * 4);
      const Tensor f = full();
      row[TFP_EFF_SPARSE_DIFF] = max_abs_diff(sparse(), dense());
      row[TFP_EFF_LINEAR_REL_ERR] = relative_error(linear(), f);
    }
  });
}

extern "C" int tfp_learn_int8_model(tfp_model* handle, const int32_t* ids, int n, double* out) {
  return tfp::api::guard("tfp_learn_int8_model", [&] {
    const char* op = "tfp_learn_int8_model";
    model::LoadedModel& lm = tfp::api::loaded_of(handle, op);
    const model::ModelConfig& cfg = lm.config();
    TFP_API_REQUIRE(cfg.architecture == model::Architecture::decoder_only, op,
                    ": needs a decoder-only model (next-token perplexity)");
    TFP_API_REQUIRE(ids && out, op, ": ", ids ? "out" : "ids", " is NULL");
    TFP_API_REQUIRE(n >= 2 && n <= cfg.max_positions, op, ": n must be 2..", cfg.max_positions,
                    " (the context), got ", n);
    for (int i = 0; i < n; ++i)
      TFP_API_REQUIRE(ids[i] >= 0 && ids[i] < cfg.vocab_size, op, ": id ", i, " is ", ids[i],
                      ", outside the vocabulary 0..", cfg.vocab_size - 1);

    // The int8 copy: every rank-2 weight quantised per output channel and dequantised;
    // the rest shared with the loaded model (views into its buffers).
    model::ModelWeights q = model::ModelWeights::for_config(cfg);
    std::vector<model::WeightSlot> src = model::weight_slots(cfg, lm.model.weights);
    std::vector<model::WeightSlot> dst = model::weight_slots(cfg, q);
    double bytes_f32 = 0, bytes_int8 = 0, n_quant = 0, n_all = 0, max_err = 0;
    for (size_t s = 0; s < src.size(); ++s) {
      if (src[s].empty()) continue;
      Tensor wide;  // a 16-bit matrix, widened
      const TensorView w = src[s].f32(wide);
      if (src[s].linear) dst[s].linear->layout = src[s].linear->layout;
      const double numel = double(w.numel());
      n_all += numel;
      bytes_f32 += 4 * numel;
      if (w.rank() != 2) {
        *dst[s].view = w;
        bytes_int8 += 4 * numel;
        continue;
      }
      // Output channels: rows of an (O, I) matrix and of an embedding table (V, C); the
      // columns of an InOut (I, O) Linear weight.
      const bool in_out = src[s].linear && src[s].linear->layout == nn::WeightLayout::InOut &&
                          &src[s].linear->weight == src[s].view;
      const int64_t R = w.shape[0], C = w.shape[1];
      const int64_t O = in_out ? C : R, I = in_out ? R : C;
      const int64_t so = in_out ? 1 : C, si = in_out ? C : 1;
      const nn::Int8Channels qc = nn::quantize_int8_channels(w.data, O, I, so, si);
      Tensor deq(w.shape);
      nn::dequantize_int8_channels(qc, deq.ptr(), so, si);
      for (int64_t e = 0; e < R * C; ++e) max_err = std::max(max_err, std::fabs(double(deq.data[e]) - w.data[e]));
      *dst[s].view = q.own(std::move(deq));
      bytes_int8 += double(qc.bytes());
      n_quant += numel;
    }
    model::validate_weights(cfg, q);

    const std::span<const int32_t> tokens(ids, size_t(n));
    const model::ForwardResult f32 = model::forward_decoder_only(cfg, lm.weights(), tokens);
    const model::ForwardResult i8 = model::forward_decoder_only(cfg, q, tokens);
    out[0] = max_abs_diff(i8.logits, f32.logits);
    out[1] = std::exp(mean_nll(f32.logits, tokens));
    out[2] = std::exp(mean_nll(i8.logits, tokens));
    out[3] = bytes_f32;
    out[4] = bytes_int8;
    out[5] = n_quant;
    out[6] = n_all;
    out[7] = max_err;
  });
}

extern "C" int tfp_learn_linear_attention(const float* q, const float* k, const float* v, int T, int D, int Dv, int causal,
                                          tfp_tensors** out) {
  if (out) *out = nullptr;
  const char* where = "tfp_learn_linear_attention";
  return tfp::api::guard(where, [&] {
    TFP_API_REQUIRE(out != nullptr, where, ": out is NULL");
    TFP_API_REQUIRE(T >= 1 && T <= 32 && D >= 1 && D <= 16 && Dv >= 1 && Dv <= 16, where,
                    ": sizes must be T 1..32, D 1..16, Dv 1..16; got T = ", T, ", D = ", D, ", Dv = ", Dv);
    using tfp::api::finite_matrix;
    const TensorView qv = finite_matrix(where, "q", q, T, D), kv = finite_matrix(where, "k", k, T, D),
                     vv = finite_matrix(where, "v", v, T, Dv);
    // One head: (1, T, ·) views of the same rows; φ, the running state and the quotient's parts from linear_attention_steps.
    const TensorView q3{q, {1, T, D}}, k3{k, {1, T, D}}, v3{v, {1, T, Dv}};
    nn::LinearAttentionOptions lin;
    lin.causal = causal != 0;
    nn::AttentionResult linear = nn::linear_attention(q3, k3, v3, lin, true);
    nn::AttentionMask mask;
    mask.causal = causal != 0;
    nn::AttentionResult soft = nn::scaled_dot_product_attention(q3, k3, v3, mask, 1.0f / std::sqrt(static_cast<float>(D)), true);
    nn::LinearAttentionSteps steps = nn::linear_attention_steps(qv, kv, vv, causal != 0);
    const auto as2d = [&](Tensor t, int64_t cols) {  // drop the head axis
      t.shape = {T, cols};
      return t;
    };
    auto list = std::make_unique<tfp_tensors>();
    list->add("phi_q", std::move(steps.phi_q));
    list->add("phi_k", std::move(steps.phi_k));
    list->add("out", as2d(std::move(linear.out), Dv));
    list->add("weights", as2d(std::move(linear.probs), T));
    list->add("state", std::move(steps.S));
    list->add("norm", std::move(steps.z));
    list->add("numerator", std::move(steps.numerator));
    list->add("denominator", std::move(steps.denominator));
    list->add("softmax_out", as2d(std::move(soft.out), Dv));
    list->add("softmax_weights", as2d(std::move(soft.probs), T));
    *out = list.release();
  });
}
