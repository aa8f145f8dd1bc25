// Element-wise activations of the feed-forward block and their derivatives.
//
//   ReLU        f(x) = max(0, x)                          f'(x) = [x > 0]
//   GELU (erf)  f(x) = x·Φ(x) = ½x(1 + erf(x/√2))         f'(x) = Φ(x) + x·φ(x)
//               (BERT, PyTorch "gelu"; φ(x) = e^{−x²/2}/√(2π) is the normal density)
//   GELU (tanh) f(x) = ½x(1 + tanh(u)),  u = √(2/π)(x + 0.044715x³)
//               f'(x) = ½(1 + tanh u) + ½x(1 − tanh²u)·√(2/π)(1 + 3·0.044715x²)
//               (GPT-2 "gelu_new", an approximation of the erf form within ~1e-3)
//
// The backward needs the activation's *input* x, so the forward keeps it (the model
// stores the pre-activation h and the activated a separately).
// Legend: n elements.
#pragma once
#include <cstddef>

namespace tfp::train {

enum class Activation { Relu, GeluErf, GeluTanh };

const char* activation_name(Activation a);  // "relu", "gelu", "gelu_new"

// y (n) = f(x); y and x may alias.
template <class T>
void activation_forward(Activation a, T* y, const T* x, size_t n);

// dx (n) += dy ⊙ f'(x)
template <class T>
void activation_backward(Activation a, T* dx, const T* dy, const T* x, size_t n);

}  // namespace tfp::train
