// Normalisation over the channels of each token, the two kinds transformers use:
//   LayerNorm (Ba et al. 2016, PyTorch nn.LayerNorm): y = (x - mean) / sqrt(var + eps) · γ + β,
//     biased variance (GPT-2, BERT, nn.Transformer, Pythia, BLOOM)
//   RMSNorm (Zhang & Sennrich 2019; T5LayerNorm, LlamaRMSNorm): y = x / sqrt(mean(x²) + eps) · γ,
//     no centring and no shift (T5, Llama, Qwen, Mistral, Gemma)
// Gemma stores its RMSNorm scale as an offset from one: y = x̂ · (1 + w) (plus_one).
// Statistics: LayerNorm's mean and variance are float sums (kernels::layernorm_rows, SIMD:
// a float mean m, then Σ(x - m) and Σ(x - m)² in float, which corrects m's rounding, so a
// large common offset does not cancel as E[x²] - E[x]² would); RMSNorm's mean square is
// summed in double (rms_rows in layer_norm.cpp). PyTorch and HF compute both in float32.
//
// Legend: T tokens, C channels.
#pragma once
#include "core/tensor.h"

namespace tfp::nn {

struct LayerNormWeights {
  TensorView gamma;   // (C) scale ("weight" in PyTorch); empty means "no such norm"
  TensorView beta;    // (C) shift ("bias"); empty = zeros (RMSNorm has none)
  float eps = 1e-5f;  // PyTorch default 1e-5; BERT 1e-12; GPT-2 1e-5
  bool rms = false;       // RMSNorm instead of LayerNorm
  bool plus_one = false;  // scale by (1 + gamma) (Gemma), not gamma

  bool empty() const { return gamma.empty(); }
};

// x (T, C) → (T, C). Throws tfp::Error naming `op` if gamma/beta are not (C).
Tensor layer_norm(const TensorView& x, const LayerNormWeights& w, const char* op = "layer_norm");
// Same, in place.
void layer_norm_inplace(Tensor& x, const LayerNormWeights& w, const char* op = "layer_norm");
// In place over `rows` contiguous rows of C floats at x (e.g. the heads of one token).
void norm_rows_inplace(float* x, int64_t rows, int64_t C, const LayerNormWeights& w,
                       const char* op = "layer_norm");

}  // namespace tfp::nn
