// Fixed sinusoidal positional encoding (Vaswani et al. 2017, section 3.5):
//   PE[pos, 2i]   = sin(pos / 10000^(2i/C))
//   PE[pos, 2i+1] = cos(pos / 10000^(2i/C))
// Each pair of channels is a clock turning at its own speed, from one turn per 2π
// tokens (i = 0) to one per 10000·2π tokens; PE[pos + k] is a fixed rotation of PE[pos],
// which is what lets attention read relative offsets from absolute codes.
// With odd C the last channel is a lone sin.
//
// Legend: T tokens, C channels.
#pragma once
#include "core/tensor.h"

namespace tfp::nn {

// The table for positions pos0 .. pos0 + T - 1: (T, C).
Tensor sinusoidal_encoding(int64_t T, int64_t C, int64_t pos0 = 0, double base = 10000.0);

// x (T, C) += PE for positions pos0 .. pos0 + T - 1, in place.
void add_sinusoidal_encoding(Tensor& x, int64_t pos0 = 0, double base = 10000.0);

}  // namespace tfp::nn
