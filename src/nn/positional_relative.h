// Learned relative position bias: each head adds a trained scalar to the score of
// query i on key j that depends only on the relative distance r = j - i (key minus
// query: negative = the key lies in the past). Distances are grouped into buckets so a
// small table covers any length:
//
//   Clip (Shaw et al. 2018, scalar form): r is clipped to [-k, k] (bidirectional, 2k+1
//     buckets, bucket = r + k) or, causally, the past distance min(i - j, k) with future
//     keys in bucket 0 (k+1 buckets); k = max_distance. Every distance up to k has its own
//     bucket, everything farther shares the edge one.
//   T5Log (Raffel et al. 2020, HF T5's _relative_position_bucket): half of the buckets are
//     exact small distances, the rest cover max_exact .. max_distance on a log scale;
//     bidirectional splits the buckets between past (r <= 0) and future (r > 0).
//
// The table is the checkpoint's (num_buckets, H), as T5's relative_attention_bias.weight.
// Shaw et al. learn vectors added to keys/values; the per-head scalar bias here is the
// simplification later models (T5, and the relative-bias tutorials) use.
//
// Legend: Tq query tokens, Tk key tokens, H heads, NB buckets.
#pragma once
#include "core/tensor.h"
#include "nn/attention.h"

namespace tfp::nn {

enum class RelativeBucketing { Clip, T5Log };

struct RelativePositionBias {
  TensorView table;  // (NB, H): bias of bucket b for head h at [b, h]
  RelativeBucketing bucketing = RelativeBucketing::T5Log;
  bool bidirectional = true;  // false: causal (decoder) bucketing
  int max_distance = 128;     // Clip: k; T5Log: distances >= this share the last bucket

  // Number of buckets this configuration uses: Clip 2k+1 (or k+1 causal); T5Log: the
  // table's rows (must be >= 2, and even when bidirectional).
  int num_buckets() const;
  int n_heads() const;
  // The bucket of relative distance r = key position − query position.
  int bucket(int64_t r) const;
  // Checks the table against the configuration; throws naming `op` and the shapes.
  void validate(const char* op = "relative_position_bias") const;

  // Biases (H, Tq, Tk) for query positions q_pos0.. and key positions k_pos0..
  Tensor bias(int Tq, int Tk, int64_t q_pos0, int64_t k_pos0) const;
  // The hook for attention (AttentionHooks::score_bias). The table view must outlive it.
  AttentionHooks::ScoreBiasFn hook() const;
};

// T5's bucket function on its own (the hand-derivable part, used by bucket()).
int t5_relative_bucket(int64_t r, bool bidirectional, int num_buckets, int max_distance);

}  // namespace tfp::nn
