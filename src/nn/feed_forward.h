// The position-wise feed-forward block of a transformer layer, applied to every token
// independently, plain or gated (GLU, Shazeer 2020):
//   plain  FFN(x) = act(x·W1ᵀ + b1)·W2ᵀ + b2                       GPT-2, BERT, Pythia, T5 v1.0
//   gated  FFN(x) = (act(x·Wgᵀ) ⊙ x·W1ᵀ)·W2ᵀ                       Llama/Qwen/Mistral (SiLU: SwiGLU),
//                                                                 Gemma and T5 v1.1 (GELU: GeGLU)
// Does not include the residual or the norm (the layer does those).
//
// Legend: T tokens, C model width, F hidden width (d_ff, usually 4C).
#pragma once
#include <string_view>

#include "core/tensor.h"
#include "nn/observer.h"
#include "nn/linear.h"

namespace tfp::nn {

enum class Activation {
  relu,       // PyTorch nn.Transformer default
  gelu_erf,   // exact GELU: BERT "gelu", PyTorch activation="gelu"
  gelu_tanh,  // tanh approximation: GPT-2 "gelu_new", HF "gelu_pytorch_tanh", BLOOM
  silu,       // x·sigmoid(x): HF "silu" / "swish" (Llama's gate)
};

// "relu" | "gelu" (erf) | "gelu_new" (tanh) | "silu"; also accepts "gelu_erf",
// "gelu_tanh", "gelu_pytorch_tanh", "swish". Throws tfp::Error on anything else.
Activation activation_from_string(std::string_view name);
const char* activation_name(Activation a);  // "relu" | "gelu" | "gelu_new" | "silu"

// In place over every element of x.
void apply_activation(Tensor& x, Activation a);

struct FeedForwardWeights {
  Linear fc1;   // C → F   (PyTorch linear1, GPT-2 mlp.c_fc, BERT intermediate.dense, Llama up_proj)
  Linear fc2;   // F → C   (PyTorch linear2, GPT-2 mlp.c_proj, BERT output.dense, Llama down_proj)
  Linear gate;  // C → F   gated blocks only (Llama gate_proj, T5 wi_0); empty = plain

  bool gated() const { return !gate.empty(); }
};

// x (T, C) → (T, C). Reports "<scope>.hidden" (T, F), what fc2 reads: the activations
// after `act` (times the linear branch when gated); edits there flow on into fc2.
Tensor feed_forward(const TensorView& x, const FeedForwardWeights& w, Activation act,
                    const nn::Scope& scope = {});

}  // namespace tfp::nn
