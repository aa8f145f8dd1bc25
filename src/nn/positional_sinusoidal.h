// Fixed sinusoidal positional encoding (Vaswani et al. 2017, section 3.5):
//   PE[pos, 2i]   = sin(pos / 10000^(2i/C))
//   PE[pos, 2i+1] = cos(pos / 10000^(2i/C))
// Each pair of channels is a clock turning at its own speed, from one turn per 2π
// tokens (i = 0) to one per 2π·10000^((C-2)/C) tokens (the last pair, i = C/2 - 1: just
// short of 10000·2π); PE[pos + k] is a fixed rotation of PE[pos], which is what lets
// attention read relative offsets from absolute codes.
// With odd C the last channel is a lone sin.
//
// Channel layouts: Interleaved is the paper's and every model here (sin in 2i, cos in 2i+1).
// Halves puts the same numbers in another order: all the sines in channels 0 .. C/2-1,
// then all the cosines in C/2 .. C-1 (a model trained with one does not read the other).
// Tensor2Tensor is tensor2tensor's get_timing_signal_1d (also fairseq's and the
// reference code of the paper's authors): the halves order with its OWN frequencies, a
// geometric sequence from 1 to exactly 1/10000 over n = C/2 pairs,
//   ω_i = exp(-i · ln(10000) / max(n - 1, 1)) = 10000^(-i/(n-1)),
// not the paper's 10000^(-2i/C) = 10000^(-i/n): different numbers, not a rearrangement.
// With odd C its last channel is 0 (tensor2tensor pads). Halves needs an even C.
//
// Legend: T tokens, C channels.
#pragma once
#include <array>

#include "core/tensor.h"

namespace tfp::nn {

enum class SinusoidalLayout { Interleaved, Halves, Tensor2Tensor };

// Frequency ω_i = base^(-2i/C) of the channel pair i (channels 2i, 2i+1 interleaved).
double sinusoidal_frequency(int64_t C, int64_t i, double base = 10000.0);

// tensor2tensor's frequency of pair i: exp(-i · ln(base) / max(C/2 - 1, 1)), 0 <= i < C/2.
double timing_signal_frequency(int64_t C, int64_t i, double base = 10000.0);

// The table in any layout: (T, C). Interleaved equals sinusoidal_encoding.
Tensor sinusoidal_encoding(int64_t T, int64_t C, int64_t pos0, double base, SinusoidalLayout layout);

// PE(p + k) as a rotation of PE(p), pair i: (sin((p+k)ω), cos((p+k)ω)) = M (sin(pω), cos(pω))
// with M = [[cos kω, sin kω], [-sin kω, cos kω]] (row-major), the same M for every p.
std::array<double, 4> sinusoidal_shift_matrix(int64_t C, int64_t i, int64_t k, double base = 10000.0);

// The table for positions pos0 .. pos0 + T - 1: (T, C).
Tensor sinusoidal_encoding(int64_t T, int64_t C, int64_t pos0 = 0, double base = 10000.0);

// x (T, C) += PE for positions pos0 .. pos0 + T - 1, in place. What model::embed adds for
// sinusoidal models (pos0 = the KV cache's position when decoding).
void add_sinusoidal_encoding(Tensor& x, int64_t pos0 = 0, double base = 10000.0);

}  // namespace tfp::nn
