// Training recipe of the shipped model `numbers-transformer`: a small encoder–decoder
// Transformer (train/train_model.h) on the number-words task (train/seq_numbers.h),
// exported as config.json ("model_type": "tfp") + model.safetensors + tokenizer.json so
// the engine (model::load_model_dir, model::decode_seq2seq), `tfp forward` and the JS API
// load it unchanged. `tfp train numbers-transformer` fills the options from its flags
// (src/cli/train_flags.h); the steps run in the one training loop (train/train_loop.h).
//
// Held-out accuracy is exact match of the teacher-forced argmax over every digit and the
// end mark, which for a one-answer task is exactly greedy decoding (see train/trainer.h);
// after training the runner also decodes held-out examples with the engine's
// decode_seq2seq from the exported files and reports its exact match, and prints for a
// few examples the source word each output digit attends to most (cross-attention,
// last decoder layer, mean over heads).
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "model/config.h"
#include "train/train_loop.h"

namespace tfp::train {

struct NumbersRunOptions {
  int d_model = 64, n_heads = 4, n_layers = 2, d_ff = 256;
  int batch = 64;
  int steps = 2000;
  uint64_t seed = 1;
  double lr = 2e-3, min_lr = 1e-4;  // `--lr X` sets both: the floor is X/20
  int warmup = 100;                  // cut to o.steps/10 + 1 for a short run
  int eval_examples = 1000;
  int eval_every = 250;  // 0 = only at the end
  bool f16 = false;      // store weights as F16 in model.safetensors
  std::string out_dir;   // empty = do not save
};

struct NumbersRunResult {
  double held_out_exact = 0;  // teacher-forced argmax exact match (= greedy)
  double engine_greedy_exact = 0;  // decode_seq2seq on the exported files (when saved)
  double seconds = 0, cpu_seconds = 0;
  int64_t parameters = 0;
};

model::ModelConfig numbers_transformer_config(const NumbersRunOptions& o);
// The recipe's loop: warm-up to o.lr over o.warmup steps (at most a tenth of the run plus
// one), cosine decay to o.min_lr over o.steps, clipping at 1, AdamW (0.9, 0.98, 1e-9, 0.01).
LoopOptions numbers_loop_options(const NumbersRunOptions& o);
// Throws tfp::Error, naming `recipe`, unless steps, batch and eval_examples are positive.
void check_numbers_options(const NumbersRunOptions& o, const char* recipe);
NumbersRunResult run_numbers_training(const NumbersRunOptions& o, std::ostream& log);

}  // namespace tfp::train
