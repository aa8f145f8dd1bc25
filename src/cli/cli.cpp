// Dispatch and error reporting for the tfp tool (see cli.h).
#include "cli/cli.h"

#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "core/error.h"

namespace tfp::cli {

namespace {

const char* const kUsage =
    "usage:\n"
    "  tfp info DIR\n"
    "  tfp tokenize DIR TEXT\n"
    "  tfp forward DIR (--text T | --ids 1,2,3) [--token-type-ids 0,0,1] [--attention-mask 1,1,0]\n"
    "                  [--tgt-ids 1,2 | --tgt-text T] [--attention]\n"
    "  tfp forward DIR --inputs FILE.safetensors [--attention]\n"
    "  tfp generate DIR --prompt TEXT [--max-tokens N] [--temperature T] [--top-k K] [--top-p P] [--seed S]\n"
    "  tfp train TASK|brown-gpt|brown-pos [--out DIR] [--steps N] [--seed S] ...  (progress on stderr)\n"
    "  tfp eval brown-gpt|brown-pos [--model DIR] [--corpus DIR] [--limit N]\n"
    "DIR holds config.json, model.safetensors and (optionally) tokenizer.json.\n"
    "Output is JSON on stdout; errors are {\"error\": \"...\"} on stderr with exit status 1.\n";

void print_error(std::ostream& err, const std::string& message) {
  err << nlohmann::json{{"error", message}}.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
      << '\n';
}

}  // namespace

int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    (args.empty() ? err : out) << kUsage;
    return args.empty() ? 2 : 0;
  }
  // The document is built in memory first, so a failure never leaves half a JSON on stdout.
  std::ostringstream doc;
  JsonWriter w(doc);
  try {
    const std::string& cmd = args[0];
    if (cmd == "info") cmd_info(args, w);
    else if (cmd == "tokenize") cmd_tokenize(args, w);
    else if (cmd == "forward") cmd_forward(args, w);
    else if (cmd == "generate") cmd_generate(args, w);
    else if (cmd == "train") cmd_train(args, w);
    else if (cmd == "eval") cmd_eval(args, w);
    else TFP_FAIL("unknown command '", cmd, "' (info, tokenize, forward, generate; see tfp --help)");
  } catch (const Error& e) {
    print_error(err, e.what());
    return 1;
  } catch (const std::exception& e) {  // bad_alloc and the like: still a JSON error
    print_error(err, std::string("internal error: ") + e.what());
    return 1;
  }
  w.finish();
  out << doc.str();
  return 0;
}

}  // namespace tfp::cli
