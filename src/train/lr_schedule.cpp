#include "train/lr_schedule.h"

#include <algorithm>
#include <cmath>

namespace tfp::train {

double LrSchedule::at(int step) const {
  if (warmup > 0 && step < warmup) return peak * (step + 1) / warmup;
  if (decay == Decay::Constant || total <= warmup) return peak;
  const double progress = std::clamp(double(step - warmup) / double(total - warmup), 0.0, 1.0);
  const double pi = 3.14159265358979323846;
  const double f = decay == Decay::Cosine ? 0.5 * (1.0 + std::cos(pi * progress)) : 1.0 - progress;
  return floor + (peak - floor) * f;
}

}  // namespace tfp::train
