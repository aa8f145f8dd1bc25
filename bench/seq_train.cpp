// Native runner of the encoder–decoder recipes (src/train/seq_*):
//   seq_train numbers-transformer [--steps N --seed S --out DIR ...]
//   seq_train numbers-gru         [--steps N --seed S --out DIR ...]
// The flags and the runs of `tfp train numbers-transformer|numbers-gru` (src/cli/train_flags.h),
// with the progress on stdout and a last line of times and held-out exact match.
#include <iomanip>
#include <iostream>

#include "cli/train_flags.h"
#include "core/error.h"
#include "train/seq_numbers_gru.h"
#include "train/seq_numbers_transformer.h"

int main(int argc, char** argv) {
  try {
    const std::vector<std::string> all(argv + 1, argv + argc);
    if (all.empty() || (all[0] != "numbers-transformer" && all[0] != "numbers-gru")) {
      std::cerr << "usage: seq_train numbers-transformer|numbers-gru [options]\n";
      return 2;
    }
    const std::vector<std::string> rest(all.begin() + 1, all.end());
    double seconds = 0, cpu_seconds = 0, exact = 0;
    if (all[0] == "numbers-transformer") {
      const auto r = tfp::train::run_numbers_training(tfp::cli::parse_numbers_args(rest, {}, all[0]), std::cout);
      seconds = r.seconds, cpu_seconds = r.cpu_seconds, exact = r.held_out_exact;
    } else {
      const auto r = tfp::train::run_numbers_gru_training(tfp::cli::parse_numbers_gru_args(rest), std::cout);
      seconds = r.seconds, cpu_seconds = r.cpu_seconds, exact = r.held_out_exact;
    }
    std::cout << "trained in " << std::setprecision(1) << seconds << " s wall, " << cpu_seconds
              << " s cpu; held-out exact match " << std::setprecision(4) << exact << "\n";
    return 0;
  } catch (const tfp::Error& e) {
    std::cerr << e.what() << "\n";
    return 2;
  }
}
