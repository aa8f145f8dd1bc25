// The native `tfp` tool: every sub-command prints one JSON document on stdout; an error
// prints {"error": "..."} on stderr and exits with status 1.
//
//   tfp info DIR
//   tfp tokenize DIR TEXT
//   tfp forward DIR (--text T | --ids 1,2,3) [--token-type-ids 0,0,1] [--attention-mask 1,1,0]
//                   [--tgt-ids 1,2 | --tgt-text T] [--attention]
//   tfp forward DIR --inputs FILE.safetensors [--attention]      (PyTorch nn.Transformer*)
//   tfp generate DIR --prompt TEXT [--max-tokens N] [--temperature T] [--top-k K]
//                    [--top-p P] [--seed S]
//
// run() is the whole tool minus process concerns, so tests call it directly
// (tests/test_cli.cpp); main.cpp only forwards argv and the exit code.
#pragma once
#include <ostream>
#include <string>
#include <vector>

namespace tfp::cli {

// args excludes the program name. Returns the process exit code (0 ok, 1 error, 2 usage).
int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace tfp::cli
