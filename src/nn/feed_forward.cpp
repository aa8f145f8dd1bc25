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
  if (name == "silu" || name == "swish") return Activation::silu;
  TFP_FAIL("activation: unknown name \"", std::string(name),
           "\" (expected relu, gelu, gelu_new, gelu_pytorch_tanh, silu)");
}

const char* activation_name(Activation a) {
  switch (a) {
    case Activation::relu: return "relu";
    case Activation::gelu_erf: return "gelu";
    case Activation::gelu_tanh: return "gelu_new";
    case Activation::silu: return "silu";
  }
  return "?";
}

void apply_activation(Tensor& x, Activation a) {
  const size_t n = x.data.size();
  switch (a) {
    case Activation::relu: kernels::relu(x.ptr(), n); break;
    case Activation::gelu_erf: kernels::gelu_erf(x.ptr(), n); break;
    case Activation::gelu_tanh: kernels::gelu_tanh(x.ptr(), n); break;
    case Activation::silu: kernels::silu(x.ptr(), n); break;
  }
}

Tensor feed_forward(const TensorView& x,  // (T, C)
                    const FeedForwardWeights& w, Activation act, const nn::Scope& scope) {
  TFP_CHECK(!w.fc1.empty() && !w.fc2.empty(), "feed_forward: missing fc1 or fc2 weight");
  TFP_CHECK(w.fc2.in_features() == w.fc1.out_features(), "feed_forward: fc1 gives ",
            w.fc1.out_features(), " features but fc2 takes ", w.fc2.in_features());
  Tensor h;  // (T, F)
  if (w.gated()) {
    h = linear(x, w.gate, "feed_forward.gate");
    apply_activation(h, act);
    const Tensor up = linear(x, w.fc1, "feed_forward.fc1");
    TFP_CHECK(up.shape == h.shape, "feed_forward: gate gives ", shape_str(h.shape), " but fc1 gives ",
              shape_str(up.shape));
    for (size_t i = 0; i < h.data.size(); ++i) h.data[i] *= up.data[i];
  } else {
    h = linear(x, w.fc1, "feed_forward.fc1");
    apply_activation(h, act);
  }
  scope.emit("hidden", h);  // (T, F): what each hidden unit says about each token
  return linear(h.view(), w.fc2, "feed_forward.fc2");  // (T, C)
}

}  // namespace tfp::nn
