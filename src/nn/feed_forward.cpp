// The position-wise feed-forward block: two linears with an activation between.
// Every token goes through it on its own — this is where a transformer spends most of
// its parameters (2·C·F with F = 4C) and, for short inputs, most of its time.
#include "nn/feed_forward.h"

#include "kernels/kernels.h"

namespace tfp::nn {

Activation activation_from_string(std::string_view name) {
  if (name == "relu") return Activation::relu;
  if (name == "gelu" || name == "gelu_erf") return Activation::gelu_erf;
  // GPT-2's "gelu_new" and HF's "gelu_pytorch_tanh" are the same tanh approximation.
  if (name == "gelu_new" || name == "gelu_tanh" || name == "gelu_pytorch_tanh")
    return Activation::gelu_tanh;
  TFP_FAIL("activation: unknown name \"", std::string(name),
           "\" (expected relu, gelu, gelu_new)");
}

const char* activation_name(Activation a) {
  switch (a) {
    case Activation::relu: return "relu";
    case Activation::gelu_erf: return "gelu";
    case Activation::gelu_tanh: return "gelu_new";
  }
  return "?";
}

void apply_activation(Tensor& x, Activation a) {
  const size_t n = x.data.size();
  switch (a) {
    case Activation::relu: kernels::relu(x.ptr(), n); break;
    case Activation::gelu_erf: kernels::gelu_erf(x.ptr(), n); break;
    case Activation::gelu_tanh: kernels::gelu_tanh(x.ptr(), n); break;
  }
}

Tensor feed_forward(const TensorView& x,  // (T, C)
                    const FeedForwardWeights& w, Activation act, const nn::Scope& scope) {
  TFP_CHECK(!w.fc1.empty() && !w.fc2.empty(), "feed_forward: missing fc1 or fc2 weight");
  TFP_CHECK(w.fc2.in_features() == w.fc1.out_features(), "feed_forward: fc1 gives ",
            w.fc1.out_features(), " features but fc2 takes ", w.fc2.in_features());
  Tensor h = linear(x, w.fc1, "feed_forward.fc1");  // (T, F)
  apply_activation(h, act);
  scope.emit("hidden", h);  // (T, F): what each hidden unit says about each token
  return linear(h.view(), w.fc2, "feed_forward.fc2");  // (T, C)
}

}  // namespace tfp::nn
