// A linear layer y = x·Wᵀ + b over the rows of x, with W in either of the two layouts
// checkpoints use: PyTorch nn.Linear stores W as (out, in); GPT-2's Conv1D stores it
// as (in, out). The weight is a view: it stays where the checkpoint put it.
//
// Legend: T rows (tokens), I input features, O output features.
#pragma once
#include "core/tensor.h"

namespace tfp::nn {

enum class WeightLayout { OutIn /* nn.Linear */, InOut /* GPT-2 Conv1D */ };

// A weight held as int8 with one float scale per output channel (nn/quantize_int8.h):
// W[o, i] = q[o·I + i] · scale[o], q always (O, I) row-major (layout OutIn).
struct Int8Weights {
  const int8_t* q = nullptr;      // (O, I)
  const float* scale = nullptr;   // (O)
  bool empty() const { return q == nullptr; }
};

struct Linear {
  TensorView weight;  // (O, I) for OutIn, (I, O) for InOut; data null when weight16 holds it
  TensorView bias;    // (O) or empty
  WeightLayout layout = WeightLayout::OutIn;
  HalfView weight16;  // the weight as a 16-bit checkpoint stored it (shape in weight.shape)
  Int8Weights weight8;  // the weight as int8 + per-output scales (layout OutIn; shape in weight.shape)

  int64_t in_features() const;
  int64_t out_features() const;
  bool empty() const { return weight.empty() && weight16.empty() && weight8.empty(); }
};

// x (T, I) → (T, O). Throws tfp::Error naming `op` when shapes disagree.
// Also accepts any x (..., I) of rank >= 1: leading dims are kept, the last becomes O.
Tensor linear(const TensorView& x, const Linear& layer, const char* op = "linear");

// Only output features [o_begin, o_end) of the layer: x (T, I) → (T, o_end - o_begin).
// Lets a fused projection (q | k | v stacked along O) be applied in parts without
// copying the weight, in either layout — e.g. the k|v part of PyTorch's in_proj_weight
// for cross-attention.
Tensor linear_slice(const TensorView& x, const Linear& layer, int64_t o_begin, int64_t o_end,
                    const char* op = "linear");

// linear_slice written into the caller's buffer out (rows of x × (o_end - o_begin) floats):
// the C API's logits go straight where the caller wants them, with no second copy.
void linear_slice_into(const TensorView& x, const Linear& layer, int64_t o_begin, int64_t o_end, float* out,
                       const char* op = "linear");

}  // namespace tfp::nn
