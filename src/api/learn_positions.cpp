// The Learn chapter "Positional encoding" (tfp_learn_positions_api.h): argument checks and
// copies around nn::sinusoidal_encoding / sinusoidal_shift_matrix, inspect::cosine on a
// model's learned table, nn::RelativePositionBias, nn::rope and nn::alibi_*. The position
// maths lives in src/nn/positional_*.cpp; here only the dot products of the reader's rows.
#include "api/tfp_learn_positions_api.h"

#include <cmath>
#include <vector>

#include "api/api_edge.h"
#include "api/api_model.h"
#include "api/seeded.h"
#include "inspect/stream_stats.h"
#include "nn/positional.h"

namespace {

using tfp::Tensor;
using tfp::TensorView;
namespace nn = tfp::nn;

double dot(const float* a, const float* b, int n) {
  double s = 0.0;
  for (int i = 0; i < n; ++i) s += static_cast<double>(a[i]) * static_cast<double>(b[i]);
  return s;
}

}  // namespace

extern "C" int tfp_learn_sinusoidal_table(int T, int C, int layout, float* out, float* dots) {
  constexpr const char* f = "tfp_learn_sinusoidal_table";
  return tfp::api::guard(f, [&] {
    TFP_API_REQUIRE(out != nullptr, f, ": out is NULL");
    TFP_API_REQUIRE(T >= 1 && T <= 512, f, ": T must be in [1, 512], got ", T);
    TFP_API_REQUIRE(C >= 2 && C <= 512, f, ": C must be in [2, 512], got ", C);
    TFP_API_REQUIRE(layout >= 0 && layout <= 2, f,
                    ": layout must be 0 (interleaved), 1 (halves) or 2 (tensor2tensor), got ", layout);
    TFP_API_REQUIRE(layout == 0 || C % 2 == 0, f, ": the halves and tensor2tensor layouts need an even C, got ", C);
    const Tensor pe = nn::sinusoidal_encoding(T, C, 0, 10000.0, static_cast<nn::SinusoidalLayout>(layout));
    std::copy(pe.data.begin(), pe.data.end(), out);
    if (dots)
      for (int p = 0; p < T; ++p)
        for (int q = 0; q < T; ++q) dots[p * T + q] = static_cast<float>(dot(pe.row(p), pe.row(q), C));
  });
}

extern "C" int tfp_learn_sinusoidal_frequencies(int C, int layout, double* out) {
  constexpr const char* f = "tfp_learn_sinusoidal_frequencies";
  return tfp::api::guard(f, [&] {
    TFP_API_REQUIRE(out != nullptr, f, ": out is NULL");
    TFP_API_REQUIRE(C >= 2 && C <= 512 && C % 2 == 0, f, ": C must be even, in [2, 512], got ", C);
    TFP_API_REQUIRE(layout >= 0 && layout <= 2, f,
                    ": layout must be 0 (interleaved), 1 (halves) or 2 (tensor2tensor), got ", layout);
    for (int i = 0; i < C / 2; ++i)
      out[i] = layout == 2 ? nn::timing_signal_frequency(C, i) : nn::sinusoidal_frequency(C, i);
  });
}

extern "C" int tfp_learn_sinusoidal_shift(int C, int pair, int p, int k, double* out) {
  constexpr const char* f = "tfp_learn_sinusoidal_shift";
  return tfp::api::guard(f, [&] {
    TFP_API_REQUIRE(out != nullptr, f, ": out is NULL");
    TFP_API_REQUIRE(C >= 2 && C <= 512, f, ": C must be in [2, 512], got ", C);
    TFP_API_REQUIRE(pair >= 0 && 2 * pair + 1 < C, f, ": pair must be in [0, ", C / 2 - 1, "] for C = ", C, ", got ",
                    pair);
    TFP_API_REQUIRE(p >= 0 && k >= 0 && p + static_cast<int64_t>(k) <= 100000, f,
                    ": need p >= 0, k >= 0 and p + k <= 100000; got p = ", p, ", k = ", k);
    const std::array<double, 4> m = nn::sinusoidal_shift_matrix(C, pair, k);
    const Tensor pe = nn::sinusoidal_encoding(1, C, p);  // PE(p), (1, C)
    const double s = pe.data[2 * pair], c = pe.data[2 * pair + 1];
    out[0] = nn::sinusoidal_frequency(C, pair);
    out[1] = static_cast<double>(k) * out[0];
    for (int i = 0; i < 4; ++i) out[2 + i] = m[i];
    out[6] = s;
    out[7] = c;
    out[8] = m[0] * s + m[1] * c;
    out[9] = m[2] * s + m[3] * c;
  });
}

extern "C" int tfp_learn_position_similarity(tfp_model* model, int P, float* out, float* rows) {
  constexpr const char* f = "tfp_learn_position_similarity";
  return tfp::api::guard(f, [&] {
    TFP_API_REQUIRE(out != nullptr, f, ": out is NULL");
    const tfp::model::LoadedModel& lm = tfp::api::loaded_of(model, f);
    const tfp::model::ModelWeights& w = lm.weights();
    const TensorView table = w.embed.position.data ? w.embed.position : w.tgt_embed.position;  // (max_positions, C)
    TFP_API_REQUIRE(table.data != nullptr && table.rank() == 2, f, ": '", lm.source,
                    "' has no learned position table (its positions are not 'learned')");
    const int64_t rowsN = table.shape[0], C = table.shape[1];
    TFP_API_REQUIRE(P >= 1 && P <= rowsN, f, ": P must be in [1, ", rowsN, "] (the table's rows), got ", P);
    for (int p = 0; p < P; ++p)
      for (int q = 0; q < P; ++q)
        out[p * P + q] = static_cast<float>(tfp::inspect::cosine(TensorView{table.data + p * C, {C}},
                                                                 TensorView{table.data + q * C, {C}}));
    if (rows) std::copy(table.data, table.data + P * C, rows);
  });
}

extern "C" int tfp_learn_relative_bias(const tfp_learn_relative_bias_params* p, float* table, float* buckets,
                                       float* bias) {
  constexpr const char* f = "tfp_learn_relative_bias";
  if (!p) return tfp::api::null_params(f);
  const int32_t bucketing = p->bucketing, bidirectional = p->bidirectional, num_buckets = p->num_buckets;
  const int32_t max_distance = p->max_distance, T = p->T;
  const uint32_t seed = p->seed;
  return tfp::api::guard(f, [&] {
    TFP_API_REQUIRE(table && buckets && bias, f, ": table, buckets and bias must not be NULL");
    TFP_API_REQUIRE(bucketing == 0 || bucketing == 1, f, ": bucketing must be 0 (clip) or 1 (T5 log), got ",
                    bucketing);
    TFP_API_REQUIRE(bidirectional == 0 || bidirectional == 1, f, ": bidirectional must be 0 or 1, got ",
                    bidirectional);
    TFP_API_REQUIRE(T >= 1 && T <= 64, f, ": T must be in [1, 64], got ", T);
    TFP_API_REQUIRE(max_distance >= 1 && max_distance <= 1024, f, ": max_distance must be in [1, 1024], got ",
                    max_distance);
    TFP_API_REQUIRE(num_buckets >= 2 && num_buckets <= 512, f, ": num_buckets must be in [2, 512], got ",
                    num_buckets);
    if (bucketing == 0) {
      const int want = bidirectional ? 2 * max_distance + 1 : max_distance + 1;
      TFP_API_REQUIRE(num_buckets == want, f, ": clip with k = ", max_distance, " has ", want,
                      " buckets (2k+1, or k+1 causal), got num_buckets = ", num_buckets);
    }
    std::vector<float> t(static_cast<size_t>(num_buckets));
    tfp::api::SeededStream(seed, "learn.relative_bias.table").fill_uniform(t, 1.0f);
    nn::RelativePositionBias rb;
    rb.table = TensorView{t.data(), {num_buckets, 1}};  // (NB, H = 1)
    rb.bucketing = bucketing == 0 ? nn::RelativeBucketing::Clip : nn::RelativeBucketing::T5Log;
    rb.bidirectional = bidirectional == 1;
    rb.max_distance = max_distance;
    rb.validate(f);
    const Tensor b = rb.bias(T, T, 0, 0);  // (1, T, T)
    std::copy(t.begin(), t.end(), table);
    std::copy(b.data.begin(), b.data.end(), bias);
    for (int i = 0; i < T; ++i)
      for (int j = 0; j < T; ++j) buckets[i * T + j] = static_cast<float>(rb.bucket(j - i));
  });
}

extern "C" int tfp_learn_rope_score(const float* q, const float* k, int D, int pairing, int m, int n, float* out) {
  constexpr const char* f = "tfp_learn_rope_score";
  return tfp::api::guard(f, [&] {
    TFP_API_REQUIRE(q && k && out, f, ": q, k and out must not be NULL");
    TFP_API_REQUIRE(D >= 2 && D <= 256 && D % 2 == 0, f, ": D must be even and in [2, 256], got ", D);
    TFP_API_REQUIRE(pairing == 0 || pairing == 1, f, ": pairing must be 0 (interleaved) or 1 (half-split), got ",
                    pairing);
    TFP_API_REQUIRE(m >= 0 && m <= 100000 && n >= 0 && n <= 100000, f, ": positions must be in [0, 100000], got m = ",
                    m, ", n = ", n);
    for (int i = 0; i < D; ++i)
      TFP_API_REQUIRE(std::isfinite(q[i]) && std::isfinite(k[i]), f, ": q and k must be finite (channel ", i, ")");
    nn::RopeConfig cfg;
    cfg.pairing = pairing == 0 ? nn::RopePairing::Interleaved : nn::RopePairing::HalfSplit;
    const Tensor qr = nn::rope(TensorView{q, {1, D}}, m, cfg), kr = nn::rope(TensorView{k, {1, D}}, n, cfg);
    std::copy(qr.data.begin(), qr.data.end(), out);
    std::copy(kr.data.begin(), kr.data.end(), out + D);
    out[2 * D] = static_cast<float>(dot(q, k, D));
    out[2 * D + 1] = static_cast<float>(dot(qr.data.data(), kr.data.data(), D));
  });
}

extern "C" int tfp_learn_alibi(int H, int T, int symmetric, float* slopes, float* bias) {
  constexpr const char* f = "tfp_learn_alibi";
  return tfp::api::guard(f, [&] {
    TFP_API_REQUIRE(slopes && bias, f, ": slopes and bias must not be NULL");
    TFP_API_REQUIRE(H >= 1 && H <= 64, f, ": H must be in [1, 64], got ", H);
    TFP_API_REQUIRE(T >= 1 && T <= 64, f, ": T must be in [1, 64], got ", T);
    TFP_API_REQUIRE(symmetric == 0 || symmetric == 1, f, ": symmetric must be 0 or 1, got ", symmetric);
    const std::vector<float> s = nn::alibi_slopes(H);
    const Tensor b = nn::alibi_bias(H, T, T, 0, 0, symmetric == 1);  // (H, T, T)
    std::copy(s.begin(), s.end(), slopes);
    std::copy(b.data.begin(), b.data.end(), bias);
  });
}
