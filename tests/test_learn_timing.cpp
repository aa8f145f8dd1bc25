// tfp_learn_time_gru_attention (the Learn chapter "Why attention"): the layout of its
// rows, the counts it reports, and its refusals. Timings have no oracle; what is checked
// of them is what must hold on any machine: positive and finite, min <= median <= max,
// and a bound on growth far looser than the work ratio (so a loaded machine passes).
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "api/tfp_learn_timing_api.h"

namespace {

std::vector<double> time_rows(int d, int heads, const std::vector<int32_t>& lengths, int repeats) {
  std::vector<double> out(lengths.size() * TFP_TIMING_COLUMNS, -1.0);
  const int rc = tfp_learn_time_gru_attention(d, heads, lengths.data(), int(lengths.size()), repeats, 7, out.data());
  REQUIRE_MESSAGE(rc == TFP_OK, tfp_last_error());
  return out;
}

}  // namespace

TEST_CASE("learn timing: rows hold medians, ranges, sequential steps and multiply-adds") {
  const std::vector<int32_t> lengths = {8, 3, 64};
  const int d = 16;
  const auto out = time_rows(d, 4, lengths, 3);
  for (size_t i = 0; i < lengths.size(); ++i) {
    const double* row = out.data() + i * TFP_TIMING_COLUMNS;
    const double T = lengths[i];
    CAPTURE(T);
    for (int c : {TFP_TIMING_GRU_MS, TFP_TIMING_ATTN_MS, TFP_TIMING_GRU_MIN_MS, TFP_TIMING_GRU_MAX_MS,
                  TFP_TIMING_ATTN_MIN_MS, TFP_TIMING_ATTN_MAX_MS}) {
      CHECK(std::isfinite(row[c]));
      CHECK(row[c] > 0.0);
    }
    CHECK(row[TFP_TIMING_GRU_MIN_MS] <= row[TFP_TIMING_GRU_MS]);
    CHECK(row[TFP_TIMING_GRU_MS] <= row[TFP_TIMING_GRU_MAX_MS]);
    CHECK(row[TFP_TIMING_ATTN_MIN_MS] <= row[TFP_TIMING_ATTN_MS]);
    CHECK(row[TFP_TIMING_ATTN_MS] <= row[TFP_TIMING_ATTN_MAX_MS]);
    // The GRU's h_t waits for h_{t-1}: T steps; attention's rows wait for nothing: 1.
    CHECK(row[TFP_TIMING_GRU_STEPS] == T);
    CHECK(row[TFP_TIMING_ATTN_STEPS] == 1.0);
    // GRU: W_ih·x_t and W_hh·h_{t-1}, each (3d, d), per step: 2·3d·d·T = 6·T·d².
    // Attention: q|k|v 3·T·d², scores and weights·v T²·d each, output T·d².
    CHECK(row[TFP_TIMING_GRU_MACS] == 6.0 * T * d * d);
    CHECK(row[TFP_TIMING_ATTN_MACS] == 4.0 * T * d * d + 2.0 * T * T * d);
  }
  // Hand-derived at T = 8, d = 16: GRU 6·8·256 = 12288; attention 4·8·256 + 2·64·16 = 10240.
  CHECK(out[TFP_TIMING_GRU_MACS] == 12288.0);
  CHECK(out[TFP_TIMING_ATTN_MACS] == 10240.0);
}

TEST_CASE("learn timing: attention's time grows with T at large T") {
  // From T = 16 to T = 512 at d = 8, attention's work grows (4·512·64 + 2·512²·8) /
  // (4·16·64 + 2·16²·8) = 4325376 / 8192 = 528×. Its time must grow at least 8× (a
  // bound loose enough for any load on the machine; measured natively: > 100×).
  const auto out = time_rows(8, 2, {16, 512}, 3);
  const double ratio = out[TFP_TIMING_COLUMNS + TFP_TIMING_ATTN_MS] / out[TFP_TIMING_ATTN_MS];
  CAPTURE(ratio);
  CHECK(ratio > 8.0);
}

TEST_CASE("learn timing: bad arguments are messages") {
  const int32_t lengths[] = {8, 16};
  double out[2 * TFP_TIMING_COLUMNS];
  CHECK(tfp_learn_time_gru_attention(0, 1, lengths, 2, 3, 1, out) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(tfp_last_error()).find("width d must be 1..1024, got 0") != std::string::npos);
  CHECK(tfp_learn_time_gru_attention(10, 4, lengths, 2, 3, 1, out) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(tfp_last_error()) == "tfp_learn_time_gru_attention: 4 heads do not divide width 10 "
                                         "(each head gets d / heads channels)");
  CHECK(tfp_learn_time_gru_attention(8, 1, lengths, 2, 0, 1, out) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(tfp_last_error()).find("repeats must be 1..50, got 0") != std::string::npos);
  CHECK(tfp_learn_time_gru_attention(8, 1, nullptr, 2, 3, 1, out) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(tfp_last_error()) == "tfp_learn_time_gru_attention: lengths is NULL");
  CHECK(tfp_learn_time_gru_attention(8, 1, lengths, 2, 3, 1, nullptr) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(tfp_last_error()) == "tfp_learn_time_gru_attention: out is NULL");
  const int32_t bad[] = {8, 0};
  CHECK(tfp_learn_time_gru_attention(8, 1, bad, 2, 3, 1, out) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(tfp_last_error()) == "tfp_learn_time_gru_attention: length 1 is 0; each must be 1..4096");
  // No lengths: nothing to do, nothing written, NULL pointers allowed.
  CHECK(tfp_learn_time_gru_attention(8, 1, nullptr, 0, 3, 1, nullptr) == TFP_OK);
}
