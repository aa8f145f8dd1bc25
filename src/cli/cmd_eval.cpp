// tfp eval brown-gpt|brown-pos [--model DIR] [--corpus DIR] [--limit N] — recomputes the
// held-out metric of a saved Brown model from its files (train/brown_run.h).
// tfp eval dates [--model DIR] [--eval N] — the dates model's held-out exact match
// (train/seq_dates_transformer.h).
// Progress goes to stderr; the JSON document on stdout holds the figures.
#include <iostream>

#include "cli/commands.h"
#include "train/brown_run.h"
#include "train/seq_dates_transformer.h"

namespace tfp::cli {

void cmd_eval(const std::vector<std::string>& argv, JsonWriter& w) {
  const std::vector<std::string> args(argv.begin() + 1, argv.end());
  if (!args.empty() && args[0] == "dates") {  // tfp eval dates [--model DIR] [--eval N]
    w.raw(train::run_dates_eval_cli({args.begin() + 1, args.end()}, std::cerr).dump());
    return;
  }
  const nlohmann::json j = train::run_brown(train::parse_brown_args(args, true), true, std::cerr);
  w.raw(j.dump());
}

}  // namespace tfp::cli
