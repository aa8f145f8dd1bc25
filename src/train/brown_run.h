// The two shipped Brown-corpus models, trained and evaluated:
//
//   brown-gpt   decoder-only LM + its own byte-level BPE        (held-out perplexity)
//   brown-pos   encoder-only part-of-speech tagger              (held-out tagging accuracy)
//
// `tfp train|eval brown-gpt|brown-pos` (src/cli/cmd_train.cpp, cmd_eval.cpp) fill the
// options from their flags and read the corpus (src/cli/brown_corpus.h); these functions
// take the documents already read (train/brown.h).
//
// Training runs on the trainable model (train/train_model.h) in the one training loop
// (train/train_loop.h); evaluation loads the saved folder with model::load_model_dir and
// runs the inference engine, so the figures are those of the committed files, as the page
// would compute them.
#pragma once
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "train/brown.h"

namespace tfp::train {

struct BrownRunOptions {
  std::string recipe;      // "brown-gpt" | "brown-pos"
  std::string out_dir;     // empty: do not save
  std::string model_dir;   // eval: the folder to load (default models/<recipe>)
  int steps = 0;           // 0: the recipe's default
  uint64_t seed = 1;
  int eval_every = 0;      // 0: the recipe's default
  int limit = 0;           // eval: first N held-out windows / sentences (0 = all)
  std::string precision;   // eval brown-gpt: matrices as stored (""), f32, f16 or int8 (model/precision.h)
};

// All four take the corpus's documents, return a JSON summary (metrics, sizes, times) and
// log progress to `log`. Training also writes train_report.json (the same summary) into
// out_dir.
nlohmann::json train_brown_gpt(const BrownRunOptions& opt, const std::vector<brown::Document>& docs, std::ostream& log);
nlohmann::json eval_brown_gpt(const BrownRunOptions& opt, const std::vector<brown::Document>& docs, std::ostream& log);
nlohmann::json train_brown_pos(const BrownRunOptions& opt, const std::vector<brown::Document>& docs, std::ostream& log);
nlohmann::json eval_brown_pos(const BrownRunOptions& opt, const std::vector<brown::Document>& docs, std::ostream& log);

}  // namespace tfp::train
