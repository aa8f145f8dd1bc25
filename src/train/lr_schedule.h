// Learning-rate schedule: linear warm-up from 0 to the peak, then a decay to a floor.
//
//   step < warmup:  lr = peak · (step + 1) / warmup
//   after:          progress = (step − warmup) / (total − warmup) ∈ [0, 1]
//     cosine:       lr = floor + (peak − floor) · ½(1 + cos(π·progress))
//     linear:       lr = floor + (peak − floor) · (1 − progress)
//     constant:     lr = peak
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
