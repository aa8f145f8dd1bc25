// tfp_learn_time_gru_attention: the Learn chapter "Why attention" times the engine's GRU
// against one self-attention layer of the same width, on the same input.
//
// No maths lives here. The GRU pass is nn::gru_sequence (the code the numbers-gru encoder
// runs, one direction), the attention layer nn::multi_head_attention (the function every
// transformer layer calls). This file draws seeded weights and an input, runs each many
// times under a clock, and counts what each needs:
//
//   sequential steps  GRU: T. h_t = GRU(x_t, h_{t-1}) cannot start before h_{t-1} exists,
//                     so T state updates happen one after another whatever the hardware.
//                     Attention: 1. Every query row's scores, softmax and weighted sum read
//                     only the layer's input, never another row's output.
//   multiply-adds     GRU: input products T·3d·d + recurrent products T·3d·d = 6·T·d².
//   (matrix products  Attention: q|k|v T·3d·d, scores H·T·T·(d/H) = T²·d, weights·v T²·d,
//    only)            output projection T·d·d: 4·T·d² + 2·T²·d.
//                     The gates, the softmax's exp and the biases add O(T·d) and O(H·T²).
//
// Legend: T tokens, d width, H heads.
#include "api/tfp_learn_timing_api.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "api/api_edge.h"
#include "api/seeded.h"
#include "api/stopwatch.h"
#include "nn/attention.h"
#include "nn/gru.h"
#include "nn/linear.h"

namespace {

using tfp::Tensor;
using tfp::TensorView;
namespace nn = tfp::nn;
using tfp::api::batch_ms;
using tfp::api::clock_type;
using tfp::api::elapsed_ms;

constexpr double kMinBatchMs = 2.0;  // one timed batch lasts at least this long
// Untimed calls first: WebAssembly starts in a baseline tier and the optimised code
// arrives later; caches and the allocator warm up too.
constexpr double kWarmupMs = 5.0;
constexpr int kWarmupCalls = 3;
// The first call in a process also runs both operations for this long before timing
// anything: V8 replaces a function's baseline code only after it has run hot for a while
// (measured in Node 20: the first T = 8 of a fresh module read 5x too slow without it,
// right after 100 ms of it).
constexpr double kFirstCallWarmupMs = 100.0;
constexpr int64_t kFirstCallWarmupT = 32;
bool g_warmed = false;  // the engine is single-threaded

// Owns the weights of both contenders; the Linear views point into the vectors.
struct Contenders {
  int d = 0, heads = 0;
  std::vector<float> gru_ih, gru_hh, gru_b_ih, gru_b_hh;  // (3d, d), (3d, d), (3d), (3d)
  std::vector<float> w_qkv, w_out;                         // (3d, d), (d, d); zero biases
  nn::GruWeights gru;
  nn::AttentionWeights attn;

  Contenders(int d_, int heads_, uint32_t seed) : d(d_), heads(heads_) {
    const size_t D = static_cast<size_t>(d);
    // PyTorch nn.GRU: every weight and bias uniform(±1/sqrt(hidden)).
    const float gru_bound = 1.0f / std::sqrt(float(d));
    gru_ih.resize(3 * D * D);
    gru_hh.resize(3 * D * D);
    gru_b_ih.resize(3 * D);
    gru_b_hh.resize(3 * D);
    tfp::api::SeededStream(seed, "timing.gru.weight_ih").fill_uniform(gru_ih, gru_bound);
    tfp::api::SeededStream(seed, "timing.gru.weight_hh").fill_uniform(gru_hh, gru_bound);
    tfp::api::SeededStream(seed, "timing.gru.bias_ih").fill_uniform(gru_b_ih, gru_bound);
    tfp::api::SeededStream(seed, "timing.gru.bias_hh").fill_uniform(gru_b_hh, gru_bound);
    gru.ih = linear_of(gru_ih, gru_b_ih, 3 * D, D);
    gru.hh = linear_of(gru_hh, gru_b_hh, 3 * D, D);
    // nn.MultiheadAttention's scale, as tfp_attn_lab_seed_weights: xavier-uniform in_proj
    // (bound sqrt(6 / (d + 3d))), uniform(±1/sqrt(d)) out_proj, zero biases.
    w_qkv.resize(3 * D * D);
    w_out.resize(D * D);
    tfp::api::SeededStream(seed, "timing.attn.in_proj_weight").fill_uniform(w_qkv, std::sqrt(6.0f / (4.0f * d)));
    tfp::api::SeededStream(seed, "timing.attn.out_proj.weight").fill_uniform(w_out, 1.0f / std::sqrt(float(d)));
    attn.qkv = linear_of(w_qkv, {}, 3 * D, D);
    attn.out = linear_of(w_out, {}, D, D);
  }

  static nn::Linear linear_of(const std::vector<float>& w, const std::vector<float>& b, size_t rows,
                              size_t in) {
    nn::Linear l;
    l.weight = TensorView(w.data(), {int64_t(rows), int64_t(in)});
    if (!b.empty()) l.bias = TensorView(b.data(), {int64_t(rows)});
    l.layout = nn::WeightLayout::OutIn;
    return l;
  }

  // The two operations being timed. The results are returned (and dropped by the
  // caller) so nothing can be optimised away.
  Tensor run_gru(const TensorView& x) const { return nn::gru_sequence(x, gru); }
  Tensor run_attention(const TensorView& x) const {
    return nn::multi_head_attention(x, x, attn, heads, nn::AttentionMask{}, /*need_probs=*/false).out;
  }
};

// How many calls make one batch last kMinBatchMs: doubles k until it does (a clock that
// reads 0 for a short batch only makes k grow). Untimed warm-up calls first: at least
// kWarmupCalls and kWarmupMs.
template <typename Op>
int64_t calibrate(const Op& op) {
  const auto w0 = clock_type::now();
  for (int i = 0; i < kWarmupCalls || elapsed_ms(w0) < kWarmupMs; ++i) op();
  return tfp::api::calls_per_batch(op, kMinBatchMs);
}

struct Summary {
  double median, min, max;
};

Summary summarise(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  const size_t n = ms.size();
  const double median = n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
  return {median, ms.front(), ms.back()};
}

}  // namespace

extern "C" int tfp_learn_time_gru_attention(int d, int heads, const int32_t* lengths, int n_lengths,
                                            int repeats, uint32_t seed, double* out) {
  return tfp::api::guard("tfp_learn_time_gru_attention", [&] {
    TFP_API_REQUIRE(d >= 1 && d <= 1024, "tfp_learn_time_gru_attention: width d must be 1..1024, got ", d);
    TFP_API_REQUIRE(heads >= 1 && d % heads == 0, "tfp_learn_time_gru_attention: ", heads,
                    " heads do not divide width ", d, " (each head gets d / heads channels)");
    TFP_API_REQUIRE(n_lengths >= 0, "tfp_learn_time_gru_attention: n_lengths is ", n_lengths);
    TFP_API_REQUIRE(repeats >= 1 && repeats <= 50, "tfp_learn_time_gru_attention: repeats must be 1..50, got ",
                    repeats);
    if (n_lengths == 0) return;
    TFP_API_REQUIRE(lengths && out, "tfp_learn_time_gru_attention: ", lengths ? "out" : "lengths", " is NULL");
    for (int i = 0; i < n_lengths; ++i)
      TFP_API_REQUIRE(lengths[i] >= 1 && lengths[i] <= 4096, "tfp_learn_time_gru_attention: length ", i,
                      " is ", lengths[i], "; each must be 1..4096");

    const Contenders c(d, heads, seed);
    int64_t T_max = kFirstCallWarmupT;
    for (int i = 0; i < n_lengths; ++i) T_max = std::max(T_max, int64_t{lengths[i]});
    // One input for every length: x (T, d) is the first T rows. Uniform(±√3): variance 1.
    std::vector<float> x(size_t(T_max) * size_t(d));
    tfp::api::SeededStream(seed, "timing.x").fill_uniform(x, std::sqrt(3.0f));

    if (!g_warmed) {
      const TensorView xw(x.data(), {kFirstCallWarmupT, int64_t{d}});
      const auto w0 = clock_type::now();
      while (elapsed_ms(w0) < kFirstCallWarmupMs) {
        (void)c.run_gru(xw);
        (void)c.run_attention(xw);
      }
      g_warmed = true;
    }

    for (int i = 0; i < n_lengths; ++i) {
      const int64_t T = lengths[i];
      const TensorView xv(x.data(), {T, int64_t{d}});  // (T, d)
      const auto gru = [&] { (void)c.run_gru(xv); };
      const auto attention = [&] { (void)c.run_attention(xv); };
      const int64_t k_gru = calibrate(gru), k_attn = calibrate(attention);
      std::vector<double> ms_gru, ms_attn;
      for (int r = 0; r < repeats; ++r) {  // alternating, so drift in the machine hits both
        ms_gru.push_back(batch_ms(gru, k_gru));
        ms_attn.push_back(batch_ms(attention, k_attn));
      }
      const Summary g = summarise(ms_gru), a = summarise(ms_attn);
      const double Td = double(T) * d;
      double* row = out + size_t(i) * TFP_TIMING_COLUMNS;
      row[TFP_TIMING_GRU_MS] = g.median;
      row[TFP_TIMING_ATTN_MS] = a.median;
      row[TFP_TIMING_GRU_MIN_MS] = g.min;
      row[TFP_TIMING_GRU_MAX_MS] = g.max;
      row[TFP_TIMING_ATTN_MIN_MS] = a.min;
      row[TFP_TIMING_ATTN_MAX_MS] = a.max;
      row[TFP_TIMING_GRU_STEPS] = double(T);
      row[TFP_TIMING_ATTN_STEPS] = 1.0;
      row[TFP_TIMING_GRU_MACS] = 6.0 * Td * d;
      row[TFP_TIMING_ATTN_MACS] = 4.0 * Td * d + 2.0 * Td * double(T);
    }
  });
}
