// Layer normalisation (Ba et al. 2016) over the channels of each token, as PyTorch's
// nn.LayerNorm: y = (x - mean) / sqrt(var + eps) · gamma + beta, biased variance.
// Does not do RMSNorm or batch norm.
//
// Legend: T tokens, C channels.
#pragma once
#include "core/tensor.h"

namespace tfp::nn {

struct LayerNormWeights {
  TensorView gamma;   // (C) scale ("weight" in PyTorch); empty means "no such norm"
  TensorView beta;    // (C) shift ("bias"); empty = zeros
  float eps = 1e-5f;  // PyTorch default 1e-5; BERT 1e-12; GPT-2 1e-5

  bool empty() const { return gamma.empty(); }
};

// x (T, C) → (T, C). Throws tfp::Error naming `op` if gamma/beta are not (C).
Tensor layer_norm(const TensorView& x, const LayerNormWeights& w, const char* op = "layer_norm");
// Same, in place.
void layer_norm_inplace(Tensor& x, const LayerNormWeights& w, const char* op = "layer_norm");

}  // namespace tfp::nn
