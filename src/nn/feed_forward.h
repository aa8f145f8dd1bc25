// The position-wise feed-forward block of a transformer layer:
// FFN(x) = act(x·W1ᵀ + b1)·W2ᵀ + b2, applied to every token independently.
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
  gelu_tanh,  // tanh approximation: GPT-2 "gelu_new"
};

// "relu" | "gelu" (erf) | "gelu_new" (tanh); also accepts "gelu_erf", "gelu_tanh",
// "gelu_pytorch_tanh". Throws tfp::Error on anything else.
Activation activation_from_string(std::string_view name);
const char* activation_name(Activation a);  // "relu" | "gelu" | "gelu_new"

// In place over every element of x.
void apply_activation(Tensor& x, Activation a);

struct FeedForwardWeights {
  Linear fc1;  // C → F   (PyTorch linear1, GPT-2 mlp.c_fc, BERT intermediate.dense)
  Linear fc2;  // F → C   (PyTorch linear2, GPT-2 mlp.c_proj, BERT output.dense)
};

// x (T, C) → (T, C). Reports "<scope>.hidden" (T, F), the activations after `act`
// (edits there flow on into fc2), when an observer asks for it.
Tensor feed_forward(const TensorView& x, const FeedForwardWeights& w, Activation act,
                    const nn::Scope& scope = {});

}  // namespace tfp::nn
