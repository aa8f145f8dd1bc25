// Training recipe of the shipped model `dates`: a small encoder–decoder Transformer
// (train/train_model.h) on the written-date → ISO task (train/seq_dates.h), exported as
// config.json ("model_type": "tfp") + model.safetensors + tokenizer.json like
// numbers-transformer (train/seq_numbers_transformer.h), whose options it takes, starting
// from its own defaults (dates_defaults; `tfp train dates` flags override them).
// After training the runner decodes the held-out set with the engine's decode_seq2seq
// from the exported files (evaluate_dates_model, also `tfp eval dates`) and prints a few
// alignments: for each output character the source character it attends to most.
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "train/seq_numbers_transformer.h"

namespace tfp::train {

// The recipe's defaults: 4000 steps, d_model 64, 2+2 layers, 4 heads, d_ff 256, batch 64,
// 1000 held-out examples evaluated every 250 steps, F16 weights.
NumbersRunOptions dates_defaults();
NumbersRunResult run_dates_training(const NumbersRunOptions& o, std::ostream& log);

struct DatesEval {
  int examples = 0, exact = 0;
  std::vector<int> exact_by_form, count_by_form;  // per DateForm
};
// Greedy decoding of the first n held-out examples (seed) with the engine, from a model
// folder (also `tfp eval dates`: the card's held-out exact match).
DatesEval evaluate_dates_model(const std::string& dir, int n, uint64_t seed, std::ostream& log);

}  // namespace tfp::train
