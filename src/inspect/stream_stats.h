// Sizes of activations, for the tutorials on LayerNorm and on where to put it: each
// token's mean and variance over its channels (what LayerNorm removes), the root mean
// square of a whole (T, C) block, and how the residual stream of an encoder stack grows
// (or does not) layer after layer. Measurements only: the layers are the engine's own
// (model::encoder_stack), recorded through the observer hook.
//
// Legend: T tokens, C channels, L layers.
#pragma once
#include <vector>

#include "core/tensor.h"
#include "model/config.h"
#include "model/weights.h"

namespace tfp::inspect {

// x (T, C) → (T, 2): per row its mean and biased variance (÷C, as LayerNorm uses),
// accumulated in double. The statistics LayerNorm takes out of each token.
Tensor row_moments(const TensorView& x);

// sqrt(mean of x²) over every element of x, accumulated in double; 0 for an empty x.
double rms(const TensorView& x);

// x (T, C) → (T): each row's rms over its C values (one token's size in the stream).
Tensor row_rms(const TensorView& x);

// a·b / (|a| |b|) over every element (same shapes), in double; 0 if either is all zero.
double cosine(const TensorView& a, const TensorView& b);

// The residual stream through an encoder stack, layer by layer.
struct DepthProfile {
  std::vector<double> stream_rms;  // (L + 1) rms of the input, then of "enc.l.out"
  std::vector<double> update_rms;  // (L + 1) rms of enc.l.out − (its input); row 0 is 0
  std::vector<double> input_cos;   // (L + 1) cosine of the flattened stream with the input; row 0 is 1
};

// Runs model::encoder_stack (no mask) on x (T, C) and measures every layer's output.
// The config's final norm, if any, is not part of the profile (it reads the stream after
// the last layer). Throws tfp::Error for a model without encoder layers.
DepthProfile depth_profile(const model::ModelConfig& cfg, const model::ModelWeights& w,
                           const TensorView& x);

}  // namespace tfp::inspect
