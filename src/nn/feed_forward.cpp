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

namespace {

// Rows of x a pass holds the (rows, F) hidden activations for, when nobody looks at them:
// a long input's hidden layer (T·F floats, 4x the model's width, twice that when gated) is
// never held at once. Chunks are balanced, so none is small enough (<= 4 rows) to take the
// matrix-vector path: every row gets the arithmetic the whole-T product gives it.
constexpr int64_t kRowsAtOnce = 64;

// act(x·Wgᵀ) ⊙ x·W1ᵀ, or act(x·W1ᵀ): the hidden activations of x's rows (rows, F).
Tensor hidden_of(const TensorView& x, const FeedForwardWeights& w, Activation act) {
  Tensor h;
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
  return h;
}

}  // namespace

Tensor feed_forward(const TensorView& x,  // (T, C)
                    const FeedForwardWeights& w, Activation act, const nn::Scope& scope) {
  TFP_CHECK(!w.fc1.empty() && !w.fc2.empty(), "feed_forward: missing fc1 or fc2 weight");
  TFP_CHECK(w.fc2.in_features() == w.fc1.out_features(), "feed_forward: fc1 gives ",
            w.fc1.out_features(), " features but fc2 takes ", w.fc2.in_features());
  const int64_t T = x.rank() == 2 ? x.shape[0] : 0;
  if (T <= kRowsAtOnce || scope.wants("hidden")) {
    Tensor h = hidden_of(x, w, act);  // (T, F)
    scope.emit("hidden", h);          // what each hidden unit says about each token
    return linear(h.view(), w.fc2, "feed_forward.fc2");  // (T, C)
  }
  const int64_t C = x.shape[1], O = w.fc2.out_features();
  const int64_t chunks = (T + kRowsAtOnce - 1) / kRowsAtOnce;
  Tensor out({T, O});
  for (int64_t c = 0; c < chunks; ++c) {
    const int64_t r0 = T * c / chunks, r1 = T * (c + 1) / chunks;
    const Tensor h = hidden_of(TensorView(x.data + r0 * C, {r1 - r0, C}), w, act);
    linear_slice_into(h.view(), w.fc2, 0, O, out.ptr() + r0 * O, "feed_forward.fc2");
  }
  return out;
}

}  // namespace tfp::nn
