// Native (and Node) runner of the toy trainer: `train_toy TASK [--steps N --seed S --out DIR ...]`,
// the flags of `tfp train TASK` (src/cli/train_flags.h) and the same run (train/toy_runner.h).
#include <iostream>

#include "cli/train_flags.h"
#include "core/error.h"
#include "train/toy_runner.h"

int main(int argc, char** argv) {
  try {
    std::vector<std::string> args(argv + 1, argv + argc);
    tfp::train::run_toy_training(tfp::cli::parse_train_args(args), std::cout);
    return 0;
  } catch (const tfp::Error& e) {
    std::cerr << e.what() << "\n";
    return 2;
  }
}
