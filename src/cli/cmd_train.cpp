// tfp train TASK|RECIPE [options] — trains a model natively and writes its folder.
//   toy tasks (copy, reverse, sort, add, numbers, dates-iso): train/toy_runner.h, options as
//                                         `train_toy`; the training page runs the same tasks
//   brown-gpt, brown-pos:                 train/brown_run.h (the shipped Brown models)
//   numbers-transformer, numbers-gru, dates: train/seq_recipes.h (the shipped encoder–decoders)
// Progress goes to stderr; the JSON document on stdout is the run's summary.
#include <iostream>

#include "cli/commands.h"
#include "core/error.h"
#include "train/brown_run.h"
#include "train/seq_recipes.h"
#include "train/toy_runner.h"

namespace tfp::cli {

void cmd_train(const std::vector<std::string>& argv, JsonWriter& w) {
  const std::vector<std::string> args(argv.begin() + 1, argv.end());
  TFP_CHECK(!args.empty(), "train: name a toy task (copy, reverse, sort, add, numbers, dates-iso) or a recipe "
            "(brown-gpt, brown-pos, numbers-transformer, numbers-gru, dates)\n", train::train_usage());
  if (train::is_seq_recipe(args[0])) {  // numbers-transformer, numbers-gru (train/seq_recipes.h)
    w.raw(train::run_seq_recipe(args, std::cerr).dump());
    return;
  }
  if (train::is_brown_recipe(args[0])) {
    const nlohmann::json j = train::run_brown(train::parse_brown_args(args, false), false, std::cerr);
    w.raw(j.dump());
    return;
  }
  const train::ToyRunOptions opt = train::parse_train_args(args);
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
