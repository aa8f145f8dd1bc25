// The training loop, written once for every trainer in src/train/: the toy Trainer
// (train/trainer.h: `tfp train TASK`, the C API, the training page) and the shipped
// models' recipes (brown_gpt.cpp, brown_pos.cpp, seq_numbers_transformer.cpp,
// seq_numbers_gru.cpp, seq_dates_transformer.cpp).
//
//   for each step until the run's length:
//     lr ← schedule(step)                                        (train/lr_schedule.h)
//     zero the gradients → forward (the hook draws the step's batch and returns the mean
//     cross-entropy, activations kept) → backward → clip the global gradient norm →
//     AdamW at lr                                                 (train/train_step.h)
//     every eval_every steps and after the last:        hooks.evaluate(state)
//     every checkpoint_every steps and after the last:  hooks.checkpoint(state)
//
// What differs between trainers stays in their hooks: the model (any trainable one —
// TrainModel, GruSeq2Seq — by its forward and backward), the data, what an evaluation
// computes and how a log line reads, what an export writes. Pausing is returning from
// run(); resuming is calling it again: the steps, their batches and their losses are those
// of one uninterrupted run, since everything random is drawn inside the steps themselves.
// Timing counts the steps only (batch drawing included; evaluation and hooks excluded).
#pragma once
#include <functional>

#include "train/cross_entropy.h"
#include "train/lr_schedule.h"
#include "train/optimizer.h"
#include "train/param_store.h"

namespace tfp::train {

struct LoopOptions {
  int steps = 1000;     // the run's length; the schedule's total is this
  LrSchedule schedule;  // peak, floor, warm-up and decay (its `total` is set from steps)
  double clip = 1.0;    // global gradient-norm clipping; 0 = off
  AdamWConfig adamw;
  int eval_every = 0;        // steps between evaluations; 0 = only after the last step
  int checkpoint_every = 0;  // steps between checkpoints; 0 = only after the last step
  // Weight of the newest loss in the smoothed loss the logs print: an exponential moving
  // average, smoothed = (1 − w)·smoothed + w·loss, starting at the first step's loss.
  double loss_weight = 0.05;
};

// Where the run stands, after a step: what the hooks and the callers read.
struct LoopState {
  int step = 0;              // steps done, the last one included
  bool last = false;         // the run's final step (step == steps)
  double lr = 0;             // the last step's learning rate
  double grad_norm = 0;      // the last step's global gradient norm, before clipping
  CrossEntropyResult loss;   // the last step's batch (loss, graded and correct tokens)
  double smoothed_loss = 0;  // see LoopOptions::loss_weight
  double wall_seconds = 0;   // training so far, steps only
  double cpu_seconds = 0;    // the same as process CPU time (robust to a busy machine)
};

struct LoopHooks {
  // The step's batch through the model: draw it, run the forward pass, return the loss.
  std::function<CrossEntropyResult()> forward;
  // Adds the gradients of that forward into the parameters' .grad.
  std::function<void()> backward;
  // Optional: evaluate and log (every eval_every steps and after the last).
  std::function<void(const LoopState&)> evaluate;
  // Optional: save or export the model (every checkpoint_every steps and after the last).
  std::function<void(const LoopState&)> checkpoint;
};

class TrainLoop {
 public:
  // Trains the parameters of `params` (kept by reference: the model owns them).
  TrainLoop(ParamStore<float>& params, const LoopOptions& opt);

  // One step, without the evaluation and checkpoint hooks (the C API steps this way).
  const LoopState& step(const LoopHooks& hooks);
  // Steps until `until` steps are done (-1: the run's length), calling evaluate and
  // checkpoint at their steps. Call again to resume.
  const LoopState& run(const LoopHooks& hooks, int until = -1);

  const LoopState& state() const { return state_; }
  int steps_done() const { return state_.step; }
  const LoopOptions& options() const { return opt_; }
  // A new peak and floor from the next step on; the schedule keeps its position.
  void set_lr(double peak, double floor);

 private:
  ParamStore<float>& params_;
  LoopOptions opt_;
  AdamW adamw_;
  LoopState state_;
};

}  // namespace tfp::train
