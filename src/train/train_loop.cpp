// See train_loop.h.
#include "train/train_loop.h"

#include <chrono>
#include <ctime>

#include "core/error.h"
#include "train/train_step.h"

namespace tfp::train {

TrainLoop::TrainLoop(ParamStore<float>& params, const LoopOptions& opt)
    : params_(params), opt_(opt), adamw_(opt.adamw) {
  TFP_CHECK(opt.steps > 0, "train loop: steps must be positive, got ", opt.steps);
  opt_.schedule.total = opt.steps;
}

const LoopState& TrainLoop::step(const LoopHooks& hooks) {
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  const std::clock_t c0 = std::clock();
  LoopState& s = state_;
  s.lr = opt_.schedule.at(s.step);
  const OptimisationStep o = optimisation_step(params_, adamw_, s.lr, opt_.clip, hooks.forward, hooks.backward);
  s.cpu_seconds += double(std::clock() - c0) / CLOCKS_PER_SEC;
  s.wall_seconds += std::chrono::duration<double>(clock::now() - t0).count();
  s.loss = o.loss;
  s.grad_norm = o.grad_norm;
  const double w = opt_.loss_weight;
  s.smoothed_loss = s.step == 0 ? o.loss.loss : (1 - w) * s.smoothed_loss + w * o.loss.loss;
  ++s.step;
  s.last = s.step == opt_.steps;
  return s;
}

const LoopState& TrainLoop::run(const LoopHooks& hooks, int until) {
  const int end = until < 0 ? opt_.steps : until;
  auto due = [&](int every) { return state_.last || (every > 0 && state_.step % every == 0); };
  while (state_.step < end) {
    step(hooks);
    if (hooks.evaluate && due(opt_.eval_every)) hooks.evaluate(state_);
    if (hooks.checkpoint && due(opt_.checkpoint_every)) hooks.checkpoint(state_);
  }
  return state_;
}

void TrainLoop::set_lr(double peak, double floor) {
  opt_.schedule.peak = peak;
  opt_.schedule.floor = floor;
}

}  // namespace tfp::train
