#include "train/activation_grad.h"

#include <cmath>
#include <cstring>
#include <type_traits>

#include "kernels/kernels.h"

namespace tfp::train {

namespace {
constexpr double kSqrt2OverPi = 0.7978845608028654;   // √(2/π)
constexpr double kInvSqrt2 = 0.7071067811865476;      // 1/√2
constexpr double kInvSqrt2Pi = 0.3989422804014327;    // 1/√(2π)
constexpr double kGeluCubic = 0.044715;
}  // namespace

const char* activation_name(Activation a) {
  switch (a) {
    case Activation::Relu: return "relu";
    case Activation::GeluErf: return "gelu";
    case Activation::GeluTanh: return "gelu_new";
  }
  return "?";
}

// tanh(u) = 1 − 2/(e^{2u} + 1): one exp instead of libm's slower tanh (it dominated the
// training profile), exact to rounding; e^{2u} = inf gives 1 and e^{2u} = 0 gives −1.
template <class T>
T tanh_via_exp(T u) {
  return T(1) - T(2) / (std::exp(T(2) * u) + T(1));
}

template <class T>
void activation_forward(Activation a, T* y, const T* x, size_t n) {
  if constexpr (std::is_same_v<T, float>) {
    // Training in float uses the engine's own SIMD kernels, so the trained model's
    // activations are the very numbers inference will compute.
    if (y != x) std::memcpy(y, x, n * sizeof(float));
    switch (a) {
      case Activation::Relu: kernels::relu(y, n); return;
      case Activation::GeluErf: kernels::gelu_erf(y, n); return;
      case Activation::GeluTanh: kernels::gelu_tanh(y, n); return;
    }
  }
  const T k = static_cast<T>(kSqrt2OverPi), c3 = static_cast<T>(kGeluCubic);
  const T r2 = static_cast<T>(kInvSqrt2);
  for (size_t i = 0; i < n; ++i) {
    const T v = x[i];
    switch (a) {
      case Activation::Relu: y[i] = v > T(0) ? v : T(0); break;
      case Activation::GeluErf: y[i] = T(0.5) * v * (T(1) + std::erf(v * r2)); break;
      case Activation::GeluTanh: y[i] = T(0.5) * v * (T(1) + std::tanh(k * (v + c3 * v * v * v))); break;
    }
  }
}

template <class T>
void activation_backward(Activation a, T* dx, const T* dy, const T* x, size_t n) {
  const T k = static_cast<T>(kSqrt2OverPi), c3 = static_cast<T>(kGeluCubic);
  const T r2 = static_cast<T>(kInvSqrt2), r2pi = static_cast<T>(kInvSqrt2Pi);
  for (size_t i = 0; i < n; ++i) {
    const T v = x[i];
    T d = 0;
    switch (a) {
      case Activation::Relu: d = v > T(0) ? T(1) : T(0); break;
      case Activation::GeluErf: {
        const T cdf = T(0.5) * (T(1) + std::erf(v * r2));
        const T pdf = r2pi * std::exp(T(-0.5) * v * v);
        d = cdf + v * pdf;
        break;
      }
      case Activation::GeluTanh: {
        const T t = tanh_via_exp<T>(k * (v + c3 * v * v * v));
        d = T(0.5) * (T(1) + t) + T(0.5) * v * (T(1) - t * t) * k * (T(1) + T(3) * c3 * v * v);
        break;
      }
    }
    dx[i] += dy[i] * d;
  }
}

template void activation_forward<float>(Activation, float*, const float*, size_t);
template void activation_forward<double>(Activation, double*, const double*, size_t);
template void activation_backward<float>(Activation, float*, const float*, const float*, size_t);
template void activation_backward<double>(Activation, double*, const double*, const double*, size_t);

}  // namespace tfp::train
