// Training recipe of the shipped model `dates`: a small encoder–decoder Transformer
// (train/train_model.h) on the written-date → ISO task (train/seq_dates.h), exported as
// config.json ("model_type": "tfp") + model.safetensors + tokenizer.json like
// numbers-transformer (train/seq_numbers_transformer.h), whose options it takes:
//
//   dates [--steps N] [--seed S] [--out DIR] [--batch B] [--d-model C] [--heads H]
//         [--layers L] [--d-ff F] [--lr X] [--eval N] [--eval-every K] [--f16]
//
// The dates defaults (dates_default_args) come first, so any option given overrides them.
// After training the runner decodes the held-out set with the engine's decode_seq2seq
// from the exported files (evaluate_dates_model, also `tfp eval dates`) and prints a few
// alignments: for each output character the source character it attends to most.
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "train/seq_numbers_transformer.h"

namespace tfp::train {

// "--steps 4000 --d-model 64 ..." as argument words, placed before the user's own.
std::vector<std::string> dates_default_args();
NumbersRunResult run_dates_training(const NumbersRunOptions& o, std::ostream& log);

struct DatesEval {
  int examples = 0, exact = 0;
  std::vector<int> exact_by_form, count_by_form;  // per DateForm
};
// Greedy decoding of the first n held-out examples (seed) with the engine, from a model folder.
DatesEval evaluate_dates_model(const std::string& dir, int n, uint64_t seed, std::ostream& log);
// `tfp eval dates [--model DIR] [--eval N] [--seed S]`: the card's held-out exact match.
nlohmann::json run_dates_eval_cli(const std::vector<std::string>& args, std::ostream& log);

}  // namespace tfp::train
