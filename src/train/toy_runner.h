// The native run of the toy trainer, shared by `tfp train TASK` (src/cli/cmd_train.cpp,
// whose flags fill the options: src/cli/train_flags.h) and bench/train_toy.cpp: train with
// periodic held-out evaluation (the one loop, train/train_loop.h), report tokens/second,
// and write the trained model folder.
#pragma once
#include <ostream>
#include <string>

#include "train/trainer.h"

namespace tfp::train {

struct ToyRunOptions {
  TrainerOptions trainer;  // its eval_every: steps between held-out evaluations
  std::string out_dir;     // empty = do not save
};

struct ToyRunResult {
  EvalStats final_eval;
  double seconds = 0;          // training time (evaluation excluded)
  double cpu_seconds = 0;      // process CPU time of training (robust to a busy machine)
  double tokens_per_second = 0;  // input tokens processed (B·T per step, padding included)
  double tokens_per_cpu_second = 0;
  int steps = 0;
};

// Trains, logging one line per evaluation to `log`; saves to out_dir when set.
ToyRunResult run_toy_training(const ToyRunOptions& opt, std::ostream& log);

}  // namespace tfp::train
