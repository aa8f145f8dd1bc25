// Symmetric int8 weight quantisation, one scale per output channel (as LLM.int8's and
// PyTorch's per-channel weight observers do for a Linear layer):
//   scale_o = max_i |W[o, i]| / 127          (0 for an all-zero channel)
//   q[o, i] = round(W[o, i] / scale_o)        in [-127, 127] (round half away from zero)
//   W'[o, i] = q[o, i] · scale_o              the dequantised weight
// Symmetric: 0 maps to 0 exactly and -128 is never used. The round-trip error of one
// element is at most scale_o / 2 = max|W[o, ·]| / 254 (plus float rounding of the product).
// Storage: one byte per weight plus one float32 scale per channel.
//
// What this file deliberately does not do: int8 matrix products (the dequantised
// weights run through the ordinary float kernels), activation quantisation, zero points.
//
// Legend: O output channels, I inputs per channel.
#pragma once
#include <cstdint>
#include <vector>

namespace tfp::nn {

struct Int8Channels {
  int64_t channels = 0, inputs = 0;  // O, I
  std::vector<int8_t> q;             // (O, I) row-major
  std::vector<float> scale;          // (O)
  int64_t bytes() const { return static_cast<int64_t>(q.size()) + 4 * static_cast<int64_t>(scale.size()); }
};

// Element (o, i) of the weight is w[o·stride_o + i·stride_i]: (O, I) row-major is
// stride_o = I, stride_i = 1; an (I, O) "InOut" matrix (GPT-2 Conv1D) is stride_o = 1,
// stride_i = O. Throws tfp::Error on a non-finite weight or negative sizes.
Int8Channels quantize_int8_channels(const float* w, int64_t O, int64_t I, int64_t stride_o,
                                    int64_t stride_i);
// The same into caller memory: q (O·I, row-major) and scale (O).
void quantize_int8_channels_into(const float* w, int64_t O, int64_t I, int64_t stride_o, int64_t stride_i,
                                 int8_t* q, float* scale);

// The same of a 16-bit (O, I) row-major matrix (bf16 or IEEE half, as bits), into caller
// memory, widened `block_rows` rows at a time: no f32 copy of the whole matrix exists
// (GPT-2's token table would be 154 MB of it). Equal to widening it all first, then quantising.
void quantize_int8_channels16_into(const uint16_t* w, bool bf16, int64_t O, int64_t I, int64_t block_rows,
                                   int8_t* q, float* scale);

// Writes q·scale back at the same strides.
void dequantize_int8_channels(const Int8Channels& q, float* w, int64_t stride_o, int64_t stride_i);

}  // namespace tfp::nn
