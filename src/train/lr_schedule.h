// Learning-rate schedule: linear warm-up to the peak, then a decay to a floor.
//
//   step < warmup:  lr = peak · (step + 1) / warmup   (peak/warmup at step 0, never 0: the
//                   first step already moves the weights; the peak at step warmup − 1)
//   after:          progress = (step − warmup) / (total − warmup) ∈ [0, 1]
//     cosine:       lr = floor + (peak − floor) · ½(1 + cos(π·progress))
//     linear:       lr = floor + (peak − floor) · (1 − progress)
//     constant:     lr = peak (the floor is not used)
//   warmup = 0 starts at the peak; total <= warmup stays at the peak after the warm-up.
// Warm-up keeps Adam's first, poorly estimated steps small; the decay lets the weights
// settle at the end.
#pragma once

namespace tfp::train {

enum class Decay { Cosine, Linear, Constant };

struct LrSchedule {
  double peak = 1e-3;
  double floor = 1e-4;
  int warmup = 100;
  int total = 1000;
  Decay decay = Decay::Cosine;

  double at(int step) const;  // step counts from 0
};

}  // namespace tfp::train
