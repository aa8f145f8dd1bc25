// Learned relative position bias with Shaw-style clipping or T5 log buckets.
// See positional_relative.h.
//
// Legend: Tq query tokens, Tk key tokens, H heads, NB buckets.
#include "nn/positional_relative.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace tfp::nn {

int t5_relative_bucket(int64_t r, bool bidirectional, int num_buckets, int max_distance) {
  TFP_CHECK(num_buckets >= (bidirectional ? 4 : 2) && max_distance > 0,
            "t5_relative_bucket: need num_buckets >= ", bidirectional ? 4 : 2,
            " and max_distance > 0, got ", num_buckets, ", ", max_distance);
  int ret = 0;
  int nb = num_buckets;
  int64_t n;  // the distance measured in this half
  if (bidirectional) {
    nb /= 2;                 // first half: past and present, second half: future
    if (r > 0) ret += nb;
    n = std::llabs(r);
  } else {
    n = std::max<int64_t>(-r, 0);  // causal: only the past has distinct buckets
  }
  const int max_exact = nb / 2;  // distances below this each get their own bucket
  if (n < max_exact) return ret + static_cast<int>(n);
  // Log-spaced: max_exact + log(n / max_exact) / log(max_distance / max_exact) · (nb − max_exact).
  // Computed in float32 as T5 does (torch float tensors), so bucket edges agree exactly;
  // the quotient is truncated toward zero like torch's .to(long).
  const float lg = std::log(static_cast<float>(n) / static_cast<float>(max_exact));
  const float denom = static_cast<float>(std::log(static_cast<double>(max_distance) / max_exact));
  const float scaled = lg / denom * static_cast<float>(nb - max_exact);
  int64_t large = max_exact + static_cast<int64_t>(scaled);
  large = std::min<int64_t>(large, nb - 1);
  return ret + static_cast<int>(large);
}

int RelativePositionBias::num_buckets() const {
  if (bucketing == RelativeBucketing::Clip) return bidirectional ? 2 * max_distance + 1 : max_distance + 1;
  TFP_CHECK(table.rank() == 2, "relative_position_bias: table must be (num_buckets, H), got ",
            shape_str(table.shape));
  return static_cast<int>(table.shape[0]);
}

int RelativePositionBias::n_heads() const {
  TFP_CHECK(table.rank() == 2, "relative_position_bias: table must be (num_buckets, H), got ",
            shape_str(table.shape));
  return static_cast<int>(table.shape[1]);
}

int RelativePositionBias::bucket(int64_t r) const {
  if (bucketing == RelativeBucketing::T5Log)
    return t5_relative_bucket(r, bidirectional, num_buckets(), max_distance);
  const int64_t k = max_distance;
  if (bidirectional) return static_cast<int>(std::clamp<int64_t>(r, -k, k) + k);
  return static_cast<int>(std::clamp<int64_t>(-r, 0, k));  // past distance; future → 0
}

void RelativePositionBias::validate(const char* op) const {
  TFP_CHECK(!table.empty() && table.rank() == 2, op, ": table must be (num_buckets, H), got ",
            shape_str(table.shape));
  TFP_CHECK(max_distance > 0, op, ": max_distance must be > 0, got ", max_distance);
  if (bucketing == RelativeBucketing::Clip) {
    TFP_CHECK(table.shape[0] == num_buckets(), op, ": table ", shape_str(table.shape), " has ",
              table.shape[0], " buckets, clipping at ", max_distance, " needs ", num_buckets(),
              bidirectional ? " (2k+1)" : " (k+1, causal)");
  } else {
    TFP_CHECK(table.shape[0] >= (bidirectional ? 4 : 2) && (!bidirectional || table.shape[0] % 2 == 0),
              op, ": T5 buckets need an even count >= 4 (bidirectional) or >= 2 (causal); table ",
              shape_str(table.shape));
  }
}

static void add_bias(const RelativePositionBias& rp, int head, float* scores, int Tq, int Tk,
                     int64_t ld, int64_t q_pos0, int64_t k_pos0) {
  const int H = rp.n_heads();
  TFP_CHECK(head >= 0 && head < H, "relative_position_bias: head ", head, " out of range for table ",
            shape_str(rp.table.shape));
  for (int i = 0; i < Tq; ++i)
    for (int j = 0; j < Tk; ++j) {
      const int b = rp.bucket((k_pos0 + j) - (q_pos0 + i));
      scores[i * ld + j] += rp.table.data[static_cast<int64_t>(b) * H + head];
    }
}

Tensor RelativePositionBias::bias(int Tq, int Tk, int64_t q_pos0, int64_t k_pos0) const {
  validate();
  TFP_CHECK(Tq > 0 && Tk > 0, "relative_position_bias: Tq and Tk must be > 0, got ", Tq, ", ", Tk);
  const int H = n_heads();
  Tensor b({H, Tq, Tk});  // (H, Tq, Tk)
  for (int h = 0; h < H; ++h)
    add_bias(*this, h, b.ptr() + static_cast<int64_t>(h) * Tq * Tk, Tq, Tk, Tk, q_pos0, k_pos0);
  return b;
}

AttentionHooks::ScoreBiasFn RelativePositionBias::hook() const {
  validate();
  RelativePositionBias self = *this;  // copies the view, not the table
  return [self](int head, float* scores, int Tq, int Tk, int64_t ld, int64_t q_pos0, int64_t k_pos0) {
    add_bias(self, head, scores, Tq, Tk, ld, q_pos0, k_pos0);
  };
}

}  // namespace tfp::nn
