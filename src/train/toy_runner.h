// The native front end of the toy trainer, shared by `tfp train` (src/cli) and
// bench/train_toy.cpp: parse arguments, train with periodic held-out evaluation, report
// tokens/second, and write the trained model folder.
//
//   train TASK [--steps N (default per task)] [--seed S] [--out DIR] [--arch decoder|encdec|gru] [--batch B]
//              [--d-model C] [--heads H] [--layers L] [--d-ff F] [--post-ln]
//              [--act relu|gelu|gelu_new] [--lr X] [--size N] [--eval-every K]
//              [--label-smoothing E] [--warmup W (steps; default min(50, steps/10 + 1))]
//              [--clip G (global gradient norm; 0 = off; default 1)]
//              [--positions learned|sinusoidal|none (default learned)]
//              [--dropout P (inverted dropout in [0, 1) in training steps; default 0 = off)]
//   TASK: copy, reverse, sort, add, numbers, dates-iso (numbers and dates-iso: an
//   encoder-decoder unless --arch says otherwise)
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "train/trainer.h"

namespace tfp::train {

struct ToyRunOptions {
  TrainerOptions trainer;
  std::string out_dir;   // empty = do not save
  int eval_every = 200;  // steps between held-out evaluations (0 = only at the end)
};

// args exclude the program/sub-command name; throws tfp::Error with a usage message.
ToyRunOptions parse_train_args(const std::vector<std::string>& args);
const char* train_usage();
// Steps used when --steps is not given: enough for the task to pass 95% held-out accuracy.
int default_steps(TaskKind k);

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
