// Native (and Node) runner of the toy trainer: `train_toy TASK [--steps N --seed S --out DIR ...]`.
// The same code backs `tfp train` (src/cli/cmd_train.cpp, when the CLI has a dispatch for it).
#include <iostream>

#include "core/error.h"
#include "train/toy_runner.h"

int main(int argc, char** argv) {
  try {
    std::vector<std::string> args(argv + 1, argv + argc);
    tfp::train::run_toy_training(tfp::train::parse_train_args(args), std::cout);
    return 0;
  } catch (const tfp::Error& e) {
    std::cerr << e.what() << "\n";
    return 2;
  }
}
