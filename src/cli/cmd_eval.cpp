// tfp eval brown-gpt|brown-pos [--model DIR] [--corpus DIR] [--limit N] — recomputes the
// held-out metric of a saved Brown model from its files (train/brown_run.h).
// tfp eval dates [--model DIR] [--eval N] [--seed S] — the dates model's held-out exact match
// (train/seq_dates_transformer.h).
// Flags: cli/train_flags.h. Progress goes to stderr; the JSON document on stdout holds the figures.
#include <iostream>

#include "cli/brown_corpus.h"
#include "cli/commands.h"
#include "cli/train_flags.h"
#include "train/brown_run.h"
#include "train/seq_dates.h"
#include "train/seq_dates_transformer.h"

namespace tfp::cli {

namespace {

nlohmann::json eval_dates(const std::vector<std::string>& flags) {
  const DatesEvalCommand c = parse_dates_eval_args(flags);
  const train::DatesEval ev = train::evaluate_dates_model(c.model_dir, c.examples, c.seed, std::cerr);
  nlohmann::json by_form = nlohmann::json::object();
  for (int f = 0; f < train::kDateForms; ++f)
    by_form[train::date_form_name(static_cast<train::DateForm>(f))] = {ev.exact_by_form[f], ev.count_by_form[f]};
  return {{"model", c.model_dir},
          {"heldout_examples", ev.examples},
          {"heldout_exact", ev.exact},
          {"heldout_exact_match", double(ev.exact) / ev.examples},
          {"by_form", by_form}};
}

}  // namespace

void cmd_eval(const std::vector<std::string>& argv, JsonWriter& w) {
  const std::vector<std::string> args(argv.begin() + 1, argv.end());
  if (!args.empty() && args[0] == "dates") {
    w.raw(eval_dates({args.begin() + 1, args.end()}).dump());
    return;
  }
  const BrownCommand c = parse_brown_args(args, true);
  const auto docs = brown_corpus(c.corpus_dir);
  const nlohmann::json j = c.run.recipe == "brown-gpt" ? train::eval_brown_gpt(c.run, docs, std::cerr)
                                                       : train::eval_brown_pos(c.run, docs, std::cerr);
  w.raw(j.dump());
}

}  // namespace tfp::cli
