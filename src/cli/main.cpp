// The native tfp tool: argv in, JSON out. Everything but the process lives in cli.cpp.
#include <iostream>
#include <string>
#include <vector>

#include "cli/cli.h"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  return tfp::cli::run(args, std::cout, std::cerr);
}
