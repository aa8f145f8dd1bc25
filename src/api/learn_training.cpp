// Learn chapter 12, "Training a transformer" (api/tfp_learn_training_api.h): the trainer's
// learning-rate schedule and its cross-entropy, exposed so the page plots the very
// functions the trainer uses. No maths here: train/lr_schedule.h and train/cross_entropy.h.
#include "api/tfp_learn_training_api.h"

#include <cmath>
#include <cstddef>

#include "api/api_edge.h"
#include "train/cross_entropy.h"
#include "train/lr_schedule.h"

int tfp_learn_lr_schedule(double peak, double floor, int warmup, int total, int decay, int n,
                          double* out) {
  return tfp::api::guard("tfp_learn_lr_schedule", [&] {
    TFP_API_REQUIRE(out != nullptr, "tfp_learn_lr_schedule: out is NULL");
    TFP_API_REQUIRE(std::isfinite(peak) && peak > 0, "tfp_learn_lr_schedule: peak must be > 0, got ", peak);
    TFP_API_REQUIRE(std::isfinite(floor) && floor >= 0 && floor <= peak,
                    "tfp_learn_lr_schedule: floor must be in [0, peak], got ", floor);
    TFP_API_REQUIRE(warmup >= 0, "tfp_learn_lr_schedule: warmup must be >= 0, got ", warmup);
    TFP_API_REQUIRE(total >= 1, "tfp_learn_lr_schedule: total must be >= 1, got ", total);
    TFP_API_REQUIRE(decay >= 0 && decay <= 2,
                    "tfp_learn_lr_schedule: decay must be 0 (cosine), 1 (linear) or 2 (constant), got ", decay);
    TFP_API_REQUIRE(n >= 1 && n <= 1000000, "tfp_learn_lr_schedule: n must be in 1..1000000, got ", n);
    tfp::train::LrSchedule s;
    s.peak = peak;
    s.floor = floor;
    s.warmup = warmup;
    s.total = total;
    s.decay = decay == 0 ? tfp::train::Decay::Cosine
                         : decay == 1 ? tfp::train::Decay::Linear : tfp::train::Decay::Constant;
    for (int i = 0; i < n; ++i) out[i] = s.at(i);
  });
}

int tfp_learn_cross_entropy(const float* logits, const int32_t* targets, int n, int V,
                            double label_smoothing, double* out_losses) {
  return tfp::api::guard("tfp_learn_cross_entropy", [&] {
    TFP_API_REQUIRE(logits != nullptr && targets != nullptr && out_losses != nullptr,
                    "tfp_learn_cross_entropy: logits, targets and out_losses must not be NULL");
    TFP_API_REQUIRE(n >= 1 && n <= 4096, "tfp_learn_cross_entropy: n must be in 1..4096, got ", n);
    TFP_API_REQUIRE(V >= 2 && V <= 4096, "tfp_learn_cross_entropy: V must be in 2..4096, got ", V);
    TFP_API_REQUIRE(std::isfinite(label_smoothing) && label_smoothing >= 0 && label_smoothing < 1,
                    "tfp_learn_cross_entropy: label_smoothing must be in [0, 1), got ", label_smoothing);
    for (int i = 0; i < n; ++i) {
      TFP_API_REQUIRE(targets[i] >= 0 && targets[i] < V, "tfp_learn_cross_entropy: target ", i,
                      " is ", targets[i], ", outside [0, ", V, ")");
      const int t = targets[i];
      const tfp::train::CrossEntropyResult r = tfp::train::cross_entropy<float>(
          nullptr, logits + static_cast<size_t>(i) * V, &t, 1, V, label_smoothing);
      out_losses[i] = r.loss;
    }
  });
}
