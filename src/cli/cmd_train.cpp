// tfp train TASK|RECIPE [flags] — trains a model natively and writes its folder. The flags
// fill the recipe's options (cli/train_flags.h); the training is src/train's:
//   toy tasks (copy, reverse, sort, add, numbers, dates-iso): train/toy_runner.h; the
//                                         training page runs the same tasks
//   brown-gpt, brown-pos:                 train/brown_run.h (the shipped Brown models), on the
//                                         corpus read here (cli/brown_corpus.h)
//   numbers-transformer, numbers-gru, dates: train/seq_numbers_transformer.h,
//                                         seq_numbers_gru.h, seq_dates_transformer.h (the
//                                         shipped encoder–decoders)
// Progress goes to stderr; the JSON document on stdout is the run's summary.
#include <iostream>

#include "cli/brown_corpus.h"
#include "cli/commands.h"
#include "cli/train_flags.h"
#include "core/error.h"
#include "train/seq_dates_transformer.h"
#include "train/seq_numbers_gru.h"
#include "train/seq_numbers_transformer.h"
#include "train/toy_runner.h"

namespace tfp::cli {

namespace {

// numbers-transformer, numbers-gru, dates: the run's summary (held-out exact match, engine
// decode exact match when saved, times, parameters, out folder).
nlohmann::json train_seq_recipe(const std::string& recipe, const std::vector<std::string>& flags) {
  nlohmann::json j = {{"recipe", recipe}};
  auto common = [&](int steps, int64_t parameters, const std::string& out, double wall, double cpu, double exact) {
    j["steps"] = steps, j["parameters"] = parameters, j["out"] = out;
    j["train_wall_seconds"] = wall, j["train_cpu_seconds"] = cpu;
    j["heldout_exact_match"] = exact;
  };
  if (recipe == "numbers-gru") {
    const train::NumbersGruOptions o = parse_numbers_gru_args(flags);
    const train::NumbersGruResult r = train::run_numbers_gru_training(o, std::cerr);
    common(o.steps, r.parameters, o.out_dir, r.seconds, r.cpu_seconds, r.held_out_exact);
    if (!o.out_dir.empty()) j["engine_greedy_exact_match"] = r.engine_greedy_exact, j["alignment"] = r.alignment;
    return j;
  }
  const bool dates = recipe == "dates";
  const train::NumbersRunOptions o =
      parse_numbers_args(flags, dates ? train::dates_defaults() : train::NumbersRunOptions{}, recipe);
  const train::NumbersRunResult r =
      dates ? train::run_dates_training(o, std::cerr) : train::run_numbers_training(o, std::cerr);
  common(o.steps, r.parameters, o.out_dir, r.seconds, r.cpu_seconds, r.held_out_exact);
  if (!o.out_dir.empty()) j["engine_greedy_exact_match"] = r.engine_greedy_exact;
  return j;
}

}  // namespace

void cmd_train(const std::vector<std::string>& argv, JsonWriter& w) {
  const std::vector<std::string> args(argv.begin() + 1, argv.end());
  TFP_CHECK(!args.empty(),
            "train: name a toy task (copy, reverse, sort, add, numbers, dates-iso) or a recipe "
            "(brown-gpt, brown-pos, numbers-transformer, numbers-gru, dates)\n",
            train_usage());
  if (args[0] == "numbers-transformer" || args[0] == "numbers-gru" || args[0] == "dates") {
    w.raw(train_seq_recipe(args[0], {args.begin() + 1, args.end()}).dump());
    return;
  }
  if (is_brown_recipe(args[0])) {
    const BrownCommand c = parse_brown_args(args, false);
    const auto docs = brown_corpus(c.corpus_dir);
    const nlohmann::json j = c.run.recipe == "brown-gpt" ? train::train_brown_gpt(c.run, docs, std::cerr)
                                                         : train::train_brown_pos(c.run, docs, std::cerr);
    w.raw(j.dump());
    return;
  }
  const train::ToyRunOptions opt = parse_train_args(args);
  const train::ToyRunResult r = train::run_toy_training(opt, std::cerr);
  w.begin_object();
  w.key("task").value(train::task_name(opt.trainer.task));
  w.key("steps").value(r.steps);
  w.key("train_wall_seconds").value(r.seconds);
  w.key("train_cpu_seconds").value(r.cpu_seconds);
  w.key("tokens_per_second").value(r.tokens_per_second);
  w.key("heldout_loss").value(r.final_eval.loss);
  w.key("heldout_token_accuracy").value(r.final_eval.token_accuracy);
  w.key("heldout_sequence_accuracy").value(r.final_eval.sequence_accuracy);
  w.key("out").value(opt.out_dir);
  w.end_object();
}

}  // namespace tfp::cli
