// The two shipped Brown-corpus models, trained and evaluated from the command line:
//
//   tfp train brown-gpt --out models/brown-gpt   decoder-only LM + its own byte-level BPE
//   tfp train brown-pos --out models/brown-pos   encoder-only part-of-speech tagger
//   tfp eval  brown-gpt [--model DIR]            held-out perplexity of the saved files
//   tfp eval  brown-pos [--model DIR]            held-out tagging accuracy of the saved files
//
// Training options: [--steps N] [--seed S] [--eval-every K] [--corpus DIR]. Evaluation
// options: [--model DIR] (default models/NAME) [--corpus DIR] [--limit N] (first N
// held-out windows / sentences; 0 = all).
//
// Training runs on the trainable model (train/train_model.h); evaluation loads the saved
// folder with model::load_model_dir and runs the inference engine, so the figures are
// those of the committed files, as the page would compute them.
#pragma once
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tfp::train {

struct BrownRunOptions {
  std::string recipe;      // "brown-gpt" | "brown-pos"
  std::string out_dir;     // empty: do not save
  std::string model_dir;   // eval: the folder to load (default models/<recipe>)
  std::string corpus_dir;  // empty: brown::find_corpus_dir()
  int steps = 0;           // 0: the recipe's default
  uint64_t seed = 1;
  int eval_every = 0;      // 0: the recipe's default
  int limit = 0;           // eval: first N held-out windows / sentences (0 = all)
};

bool is_brown_recipe(const std::string& name);
// args: [NAME, options...]; throws tfp::Error with a usage message.
BrownRunOptions parse_brown_args(const std::vector<std::string>& args, bool eval);

// Both return a JSON summary (metrics, sizes, times) and log progress to `log`. Training
// also writes train_report.json (the same summary) into out_dir.
nlohmann::json train_brown_gpt(const BrownRunOptions& opt, std::ostream& log);
nlohmann::json eval_brown_gpt(const BrownRunOptions& opt, std::ostream& log);
nlohmann::json train_brown_pos(const BrownRunOptions& opt, std::ostream& log);
nlohmann::json eval_brown_pos(const BrownRunOptions& opt, std::ostream& log);

nlohmann::json run_brown(const BrownRunOptions& opt, bool eval, std::ostream& log);

}  // namespace tfp::train
