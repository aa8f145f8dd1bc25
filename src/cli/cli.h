// The native `tfp` tool: every sub-command prints one JSON document on stdout; an error
// prints {"error": "..."} on stderr and exits with status 1. `tfp --help` lists the
// commands and the shape of each output (cli.cpp kUsage):
//
//   tfp info DIR
//   tfp tokenize DIR (TEXT | --text-file PATH)
//   tfp forward DIR (--ids 1,2,3 | --text T | --text-file PATH) [--attention]
//                   [--decoder-ids 0,5 | --decoder-text T | --decoder-text-file PATH]
//   tfp forward DIR --inputs FILE.safetensors [--attention]      (PyTorch nn.Transformer*)
//   tfp generate DIR (--prompt TEXT | --text-file PATH | --ids 1,2,3) [--max-tokens N]
//                    [--temperature T] [--top-k K] [--top-p P] [--seed S]   (decoder-only)
//                    [--beam N] [--decoder-start-id ID]                     (encoder-decoder)
//
// "--" ends the options; --text-file - reads standard input.
//
// run() is the whole tool minus process concerns, so tests call it directly
// (tests/test_cli*.cpp); main.cpp only forwards argv and the exit code.
#pragma once
#include <istream>
#include <ostream>
#include <string>
#include <vector>

namespace tfp::cli {

// args excludes the program name. Returns the process exit code (0 ok, 1 error, 2 usage).
// Standard input ("-") is read from `in` (std::cin in the first form).
int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err, std::istream& in);

}  // namespace tfp::cli
