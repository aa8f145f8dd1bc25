// The encoder–decoder recipes (numbers-transformer, numbers-gru, dates) behind one entry point,
// for `tfp train` (src/cli/cmd_train.cpp) and bench/seq_train.cpp.
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tfp::train {

bool is_seq_recipe(const std::string& name);  // "numbers-transformer", "numbers-gru", "dates"
// args[0] is the recipe name; progress goes to `log`; returns the run's summary
// (held-out exact match, engine decode exact match, times, parameters, out folder).
nlohmann::json run_seq_recipe(const std::vector<std::string>& args, std::ostream& log);

}  // namespace tfp::train
