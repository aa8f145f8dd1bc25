// Per-channel symmetric int8 quantisation (see quantize_int8.h).
#include "nn/quantize_int8.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.h"
#include "kernels/kernels.h"

namespace tfp::nn {

void quantize_int8_channels_into(const float* w, int64_t O, int64_t I, int64_t stride_o, int64_t stride_i,
                                 int8_t* q, float* scale) {
  TFP_CHECK(O >= 0 && I >= 0, "quantize_int8_channels: sizes must be >= 0, got ", O, " x ", I);
  TFP_CHECK(w || O * I == 0, "quantize_int8_channels: weight is null");
  // One pass for max|w| and "any non-finite", then the SIMD rounding kernel (GPT-2-small's
  // 124 M weights quantised at load took ~1.5 s in WASM through std::round and a check per
  // weight).
  std::vector<float> gathered;
  for (int64_t o = 0; o < O; ++o) {
    const float* row = w + o * stride_o;
    float amax = 0;
    bool finite = true;
    for (int64_t i = 0; i < I; ++i) {
      const float a = std::fabs(row[i * stride_i]);
      finite &= a <= std::numeric_limits<float>::max();  // false for inf and NaN
      amax = std::max(amax, a);
    }
    if (!finite)
      for (int64_t i = 0; i < I; ++i)
        TFP_CHECK(std::isfinite(row[i * stride_i]), "quantize_int8_channels: weight [", o, ", ", i, "] is ",
                  row[i * stride_i]);
    const float s = amax / 127.0f;
    scale[o] = s;
    if (!(s > 0)) {  // an all-zero channel
      std::fill(q + o * I, q + (o + 1) * I, int8_t{0});
      continue;
    }
    const float* dense = row;
    if (stride_i != 1) {  // a strided row (an (I, O) matrix's column): gathered first
      gathered.resize(static_cast<size_t>(I));
      for (int64_t i = 0; i < I; ++i) gathered[static_cast<size_t>(i)] = row[i * stride_i];
      dense = gathered.data();
    }
    kernels::quantize_row_int8(dense, I, s, q + o * I);
  }
}

Int8Channels quantize_int8_channels(const float* w, int64_t O, int64_t I, int64_t stride_o,
                                    int64_t stride_i) {
  TFP_CHECK(O >= 0 && I >= 0, "quantize_int8_channels: sizes must be >= 0, got ", O, " x ", I);
  Int8Channels r;
  r.channels = O;
  r.inputs = I;
  r.q.resize(static_cast<size_t>(O * I));
  r.scale.resize(static_cast<size_t>(O));
  quantize_int8_channels_into(w, O, I, stride_o, stride_i, r.q.data(), r.scale.data());
  return r;
}

void quantize_int8_channels16_into(const uint16_t* w, bool bf16, int64_t O, int64_t I, int64_t block_rows,
                                   int8_t* q, float* scale) {
  TFP_CHECK(O >= 0 && I >= 0 && block_rows > 0, "quantize_int8_channels16: sizes must be >= 0 (block > 0), got ", O,
            " x ", I, " in blocks of ", block_rows);
  TFP_CHECK(w || O * I == 0, "quantize_int8_channels16: weight is null");
  std::vector<float> wide;
  for (int64_t r0 = 0; r0 < O; r0 += block_rows) {  // each row is one channel: blocks are independent
    const int64_t n = std::min(block_rows, O - r0);
    wide.resize(static_cast<size_t>(n * I));
    if (bf16) kernels::bf16_to_f32(w + r0 * I, wide.data(), wide.size());
    else kernels::f16_to_f32(w + r0 * I, wide.data(), wide.size());
    quantize_int8_channels_into(wide.data(), n, I, I, 1, q + r0 * I, scale + r0);
  }
}

void dequantize_int8_channels(const Int8Channels& q, float* w, int64_t stride_o, int64_t stride_i) {
  for (int64_t o = 0; o < q.channels; ++o)
    for (int64_t i = 0; i < q.inputs; ++i)
      w[o * stride_o + i * stride_i] = float(q.q[o * q.inputs + i]) * q.scale[o];
}

}  // namespace tfp::nn
