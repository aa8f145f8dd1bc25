// Per-channel symmetric int8 quantisation (see quantize_int8.h).
#include "nn/quantize_int8.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace tfp::nn {

Int8Channels quantize_int8_channels(const float* w, int64_t O, int64_t I, int64_t stride_o,
                                    int64_t stride_i) {
  TFP_CHECK(O >= 0 && I >= 0, "quantize_int8_channels: sizes must be >= 0, got ", O, " x ", I);
  TFP_CHECK(w || O * I == 0, "quantize_int8_channels: weight is null");
  Int8Channels r;
  r.channels = O;
  r.inputs = I;
  r.q.resize(static_cast<size_t>(O * I));
  r.scale.resize(static_cast<size_t>(O));
  for (int64_t o = 0; o < O; ++o) {
    float amax = 0;
    for (int64_t i = 0; i < I; ++i) {
      const float x = w[o * stride_o + i * stride_i];
      TFP_CHECK(std::isfinite(x), "quantize_int8_channels: weight [", o, ", ", i, "] is ", x);
      amax = std::max(amax, std::fabs(x));
    }
    const float s = amax / 127.0f;
    r.scale[o] = s;
    for (int64_t i = 0; i < I; ++i) {
      // |x / s| <= 127 up to rounding; the clamp keeps a last-bit overshoot in range.
      const float x = w[o * stride_o + i * stride_i];
      const float qf = s > 0 ? std::round(x / s) : 0.0f;
      r.q[o * I + i] = static_cast<int8_t>(std::clamp(qf, -127.0f, 127.0f));
    }
  }
  return r;
}

void dequantize_int8_channels(const Int8Channels& q, float* w, int64_t stride_o, int64_t stride_i) {
  for (int64_t o = 0; o < q.channels; ++o)
    for (int64_t i = 0; i < q.inputs; ++i)
      w[o * stride_o + i * stride_i] = float(q.q[o * q.inputs + i]) * q.scale[o];
}

}  // namespace tfp::nn
