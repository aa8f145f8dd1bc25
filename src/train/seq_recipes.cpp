// See seq_recipes.h.
#include "train/seq_recipes.h"

#include "core/error.h"
#include "train/seq_dates_transformer.h"
#include "train/seq_numbers_gru.h"
#include "train/seq_numbers_transformer.h"

namespace tfp::train {

bool is_seq_recipe(const std::string& name) { return name == "numbers-transformer" || name == "numbers-gru" || name == "dates"; }

nlohmann::json run_seq_recipe(const std::vector<std::string>& args, std::ostream& log) {
  TFP_CHECK(!args.empty() && is_seq_recipe(args[0]), "train: expected numbers-transformer, numbers-gru or dates");
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  nlohmann::json j = {{"recipe", args[0]}};
  if (args[0] == "dates") {  // the numbers-transformer options, with the dates defaults first
    std::vector<std::string> with_defaults = dates_default_args();
    with_defaults.insert(with_defaults.end(), rest.begin(), rest.end());
    const NumbersRunOptions o = parse_numbers_args(with_defaults);
    const NumbersRunResult r = run_dates_training(o, log);
    j["steps"] = o.steps, j["parameters"] = r.parameters, j["out"] = o.out_dir;
    j["train_wall_seconds"] = r.seconds, j["train_cpu_seconds"] = r.cpu_seconds;
    j["heldout_exact_match"] = r.held_out_exact;
    if (!o.out_dir.empty()) j["engine_greedy_exact_match"] = r.engine_greedy_exact;
  } else if (args[0] == "numbers-transformer") {
    const NumbersRunOptions o = parse_numbers_args(rest);
    const NumbersRunResult r = run_numbers_training(o, log);
    j["steps"] = o.steps, j["parameters"] = r.parameters, j["out"] = o.out_dir;
    j["train_wall_seconds"] = r.seconds, j["train_cpu_seconds"] = r.cpu_seconds;
    j["heldout_exact_match"] = r.held_out_exact;
    if (!o.out_dir.empty()) j["engine_greedy_exact_match"] = r.engine_greedy_exact;
  } else {
    const NumbersGruOptions o = parse_numbers_gru_args(rest);
    const NumbersGruResult r = run_numbers_gru_training(o, log);
    j["steps"] = o.steps, j["parameters"] = r.parameters, j["out"] = o.out_dir;
    j["train_wall_seconds"] = r.seconds, j["train_cpu_seconds"] = r.cpu_seconds;
    j["heldout_exact_match"] = r.held_out_exact;
    if (!o.out_dir.empty()) j["engine_greedy_exact_match"] = r.engine_greedy_exact, j["alignment"] = r.alignment;
  }
  return j;
}

}  // namespace tfp::train
