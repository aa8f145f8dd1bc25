// The inverted-dropout mask (Srivastava et al. 2014; as torch.nn.Dropout in training):
// each value is kept with probability 1 − p and then scaled by 1/(1 − p), else set to 0,
// so the expected value of mask·x is x and evaluation needs no rescaling.
//
// Draws come from the trainer's Rng (train/rng.h): uniform() has 24 exact bits, compared
// in double with p, so the same seed gives the same mask natively and in WASM.
#pragma once
#include <cstddef>
#include <vector>

#include "train/rng.h"

namespace tfp::train {

// mask (n values): 0 where dropped (uniform draw < p), 1/(1 − p) where kept. 0 <= p < 1.
template <class T>
void dropout_mask(std::vector<T>& mask, Rng& rng, double p, size_t n) {
  const T scale = static_cast<T>(1.0 / (1.0 - p));
  mask.resize(n);
  for (size_t i = 0; i < n; ++i) mask[i] = double(rng.uniform()) < p ? T(0) : scale;
}

}  // namespace tfp::train
