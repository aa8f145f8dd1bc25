// Native runner of the encoder–decoder recipes (src/train/seq_*):
//   seq_train numbers-transformer [--steps N --seed S --out DIR ...]
//   seq_train numbers-gru         [--steps N --seed S --out DIR ...]
// The same functions back `tfp train numbers-transformer|numbers-gru` where the CLI
// dispatches them.
#include <iostream>

#include "core/error.h"
#include "train/seq_numbers_gru.h"
#include "train/seq_numbers_transformer.h"

int main(int argc, char** argv) {
  try {
    const std::vector<std::string> all(argv + 1, argv + argc);
    if (all.empty()) {
      std::cerr << "usage: seq_train numbers-transformer|numbers-gru [options]\n";
      return 2;
    }
    const std::vector<std::string> rest(all.begin() + 1, all.end());
    if (all[0] == "numbers-transformer") return tfp::train::run_numbers_transformer_cli(rest, std::cout);
    if (all[0] == "numbers-gru") return tfp::train::run_numbers_gru_cli(rest, std::cout);
    std::cerr << "seq_train: unknown recipe \"" << all[0] << "\"\n";
    return 2;
  } catch (const tfp::Error& e) {
    std::cerr << e.what() << "\n";
    return 2;
  }
}
