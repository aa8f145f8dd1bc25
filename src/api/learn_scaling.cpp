// The random q·k experiment of Learn chapter 5 ("Why divide by √d_k"), behind
// tfp_learn_scaling_stats and tfp_learn_scaling_row (api/tfp_learn_scaling_api.h).
//
// What it shows: for q, k with independent components of mean 0 and variance 1,
//   Var(q·k) = Σ_i Var(q_i k_i) = Σ_i E[q_i²] E[k_i²] = d_k,
// so the scores' spread grows like √d_k, the softmax of n such scores tends to one-hot
// and its Jacobian diag(p) − p pᵀ to zero; dividing by √d_k brings the variance back to 1.
//
// No new maths here: the random numbers come from api/seeded.h's SeededStream, the
// scores from the matmul kernel, the probabilities from the softmax kernel and the
// Jacobian from the trainer's softmax backward (train/attention_grad.h), applied to
// each unit vector. This file draws, calls, and averages.
//
// Legend: n keys per sample, d_k the query/key width, S samples.
#include "api/tfp_learn_scaling_api.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "api/api_edge.h"
#include "api/seeded.h"
#include "kernels/kernels.h"
#include "train/attention_grad.h"

namespace {

namespace kernels = tfp::kernels;

constexpr int kScalings = 3;  // none, ÷√d_k, ÷d_k
constexpr int kStats = 4;     // mean, variance, mean max p, mean ||J||_F
constexpr int kMaxDk = 65536;
constexpr int kMaxKeys = 1024;
constexpr int kMaxSamples = 1000000;
constexpr int kMaxDks = 64;
constexpr uint64_t kMaxWork = uint64_t{1} << 28;  // values drawn or computed: ~1-2 s in WebAssembly

// The factor scaling c multiplies the raw score q·k by.
float scale_of(int scaling, int d_k) {
  if (scaling == 0) return 1.0f;
  if (scaling == 1) return 1.0f / std::sqrt(static_cast<float>(d_k));
  return 1.0f / static_cast<float>(d_k);
}

// The samples of one d_k. Each sample has its own stream, keyed by a base drawn once
// from (seed, d_k), so sample s can be drawn without drawing samples 0..s−1 first.
class Samples {
 public:
  Samples(uint32_t seed, int d_k, int n)
      : d_k_(d_k), n_(n), q_(d_k), keys_(static_cast<size_t>(n) * d_k), raw_(n) {
    tfp::api::SeededStream keyed(seed, "learn.scaling.d_k=" + std::to_string(d_k));
    base_ = keyed.next_u64();
  }

  // Draws sample s (q, then the n keys row by row) and its raw scores K·q (n).
  const std::vector<float>& raw_scores(int s) {
    tfp::api::SeededStream stream(base_ + static_cast<uint64_t>(s), "learn.scaling.sample");
    // Uniform on [−b, b] has variance b²/3: b = √3 gives variance 1.
    const float bound = std::sqrt(3.0f);
    stream.fill_uniform(q_, bound);
    stream.fill_uniform(keys_, bound);
    // (1, n) = q (1, d_k) · K (n, d_k)ᵀ: one row of the attention score matrix Q·Kᵀ.
    kernels::matmul(kernels::dense(1, n_, d_k_, q_.data(), keys_.data(), raw_.data(),
                                   kernels::BLayout::NK));
    return raw_;
  }

 private:
  int d_k_, n_;
  uint64_t base_ = 0;
  std::vector<float> q_, keys_, raw_;
};

// p = softmax(scores) (n), in place on a copy.
void softmax_of(const float* scores, int n, float* p) {
  for (int j = 0; j < n; ++j) p[j] = scores[j];
  kernels::softmax_rows(p, 1, n, n);
}

// ||diag(p) − p pᵀ||_F. The Jacobian ∂p/∂s is symmetric, so its row i is the softmax
// backward of the unit vector e_i: ds = p ⊙ (e_i − p_i). `work` holds 3n² floats.
double jacobian_frobenius(const float* p, int n, std::vector<float>& work) {
  const size_t nn = static_cast<size_t>(n) * n;
  work.assign(3 * nn, 0.0f);
  float* jac = work.data();
  float* p_rows = jac + nn;    // (n, n): p in every row
  float* unit = p_rows + nn;   // (n, n): the identity, row i = e_i
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) p_rows[static_cast<size_t>(i) * n + j] = p[j];
    unit[static_cast<size_t>(i) * n + i] = 1.0f;
  }
  tfp::train::softmax_rows_backward<float>(jac, p_rows, unit, n, n);
  double sum = 0.0;
  for (size_t i = 0; i < nn; ++i) sum += static_cast<double>(jac[i]) * jac[i];
  return std::sqrt(sum);
}

void check_shape(const char* fn, int d_k, int n_keys) {
  TFP_API_REQUIRE(d_k >= 1 && d_k <= kMaxDk, fn, ": d_k must be 1..", kMaxDk, ", got ", d_k);
  TFP_API_REQUIRE(n_keys >= 2 && n_keys <= kMaxKeys, fn, ": n_keys must be 2..", kMaxKeys,
                  " (a softmax over one key is always 1), got ", n_keys);
}

}  // namespace

extern "C" int tfp_learn_scaling_stats(const int32_t* dks, int n_dk, int n_keys, int samples,
                                       uint32_t seed, float* out) {
  const char* fn = "tfp_learn_scaling_stats";
  return tfp::api::guard(fn, [&] {
    TFP_API_REQUIRE(n_dk >= 1 && n_dk <= kMaxDks, fn, ": n_dk must be 1..", kMaxDks, ", got ",
                    n_dk);
    TFP_API_REQUIRE(dks && out, fn, ": NULL ", dks ? "out" : "dks");
    TFP_API_REQUIRE(samples >= 2 && samples <= kMaxSamples, fn, ": samples must be 2..",
                    kMaxSamples, " (a variance needs two), got ", samples);
    uint64_t dk_sum = 0;
    for (int i = 0; i < n_dk; ++i) {
      check_shape(fn, dks[i], n_keys);
      dk_sum += static_cast<uint64_t>(dks[i]);
    }
    // The work: (n + 1)·d_k random numbers per sample and d_k, plus the n×n Jacobian of
    // each of the three softmaxes.
    const uint64_t per_sample = (n_keys + 1) * dk_sum + uint64_t{kScalings} * n_dk * n_keys * n_keys;
    const uint64_t total = static_cast<uint64_t>(samples) * per_sample;
    TFP_API_REQUIRE(total <= kMaxWork, fn, ": ", samples, " samples x ", per_sample,
                    " (", n_keys, " keys + 1 query drawn over d_k components summing to ", dk_sum,
                    ", and the 3 Jacobians of ", n_keys, "x", n_keys, " per d_k) = ", total,
                    " values, more than the limit ", kMaxWork,
                    " (2^28); ask for fewer samples, fewer keys or smaller d_k");

    std::vector<float> scaled(n_keys), p(n_keys), work;
    for (int i = 0; i < n_dk; ++i) {
      const int d_k = dks[i];
      Samples draw(seed, d_k, n_keys);
      // Per scaling: Σ score, Σ score², Σ max p, Σ ||J||_F. Plain sums in double are exact
      // enough here: the scores' mean is ~0, so Σx² − (Σx)²/N loses nothing to cancellation.
      double acc[kScalings][kStats] = {};
      for (int s = 0; s < samples; ++s) {
        const std::vector<float>& raw = draw.raw_scores(s);
        for (int c = 0; c < kScalings; ++c) {
          const float f = scale_of(c, d_k);
          float top = 0.0f;
          for (int j = 0; j < n_keys; ++j) {
            scaled[j] = raw[j] * f;
            acc[c][0] += scaled[j];
            acc[c][1] += static_cast<double>(scaled[j]) * scaled[j];
          }
          softmax_of(scaled.data(), n_keys, p.data());
          for (int j = 0; j < n_keys; ++j) top = p[j] > top ? p[j] : top;
          acc[c][2] += top;
          acc[c][3] += jacobian_frobenius(p.data(), n_keys, work);
        }
      }
      const double N = static_cast<double>(samples) * n_keys;  // scores per scaling
      for (int c = 0; c < kScalings; ++c) {
        float* o = out + (static_cast<size_t>(i) * kScalings + c) * kStats;
        const double mean = acc[c][0] / N;
        o[0] = static_cast<float>(mean);
        o[1] = static_cast<float>((acc[c][1] - N * mean * mean) / (N - 1.0));
        o[2] = static_cast<float>(acc[c][2] / samples);
        o[3] = static_cast<float>(acc[c][3] / samples);
      }
    }
  });
}

extern "C" int tfp_learn_scaling_row(int d_k, int n_keys, int sample, uint32_t seed,
                                     float* scores, float* probs) {
  const char* fn = "tfp_learn_scaling_row";
  return tfp::api::guard(fn, [&] {
    check_shape(fn, d_k, n_keys);
    TFP_API_REQUIRE(sample >= 0 && sample < kMaxSamples, fn, ": sample must be 0..",
                    kMaxSamples - 1, ", got ", sample);
    TFP_API_REQUIRE(scores && probs, fn, ": NULL ", scores ? "probs" : "scores");
    Samples draw(seed, d_k, n_keys);
    const std::vector<float>& raw = draw.raw_scores(sample);
    for (int c = 0; c < kScalings; ++c) {
      float* row = scores + static_cast<size_t>(c) * n_keys;
      const float f = scale_of(c, d_k);
      for (int j = 0; j < n_keys; ++j) row[j] = raw[j] * f;
      softmax_of(row, n_keys, probs + static_cast<size_t>(c) * n_keys);
    }
  });
}
