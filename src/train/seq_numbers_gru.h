// Training recipe of the shipped model `numbers-gru`: the recurrent encoder–decoder with
// additive attention (train/seq_gru_model.h) on the number-words task
// (train/seq_numbers.h), exported as config.json ("model_type": "tfp_gru_seq2seq"),
// model.safetensors (layout in model/gru_seq2seq.h) and tokenizer.json. `tfp train
// numbers-gru` fills the options from its flags (src/cli/train_flags.h); the steps run in
// the one training loop (train/train_loop.h).
//
// Held-out accuracy: teacher-forced argmax exact match (= greedy decoding, see
// train/trainer.h); after export the runner decodes the held-out set with the inference
// code (model::gru_greedy_decode) from the written files and scores the attention
// alignment against the gold digit→word alignment (train/seq_align.h).
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "train/train_loop.h"

namespace tfp::train {

struct NumbersGruOptions {
  int embed = 32, hidden = 64, dec_hidden = 128, attn = 64;
  bool bidirectional = true;
  int batch = 64;
  int steps = 2000;
  uint64_t seed = 1;
  double lr = 3e-3, min_lr = 1.5e-4;  // `--lr X` sets both: the floor is X/20
  int warmup = 100;                    // cut to o.steps/10 + 1 for a short run
  int eval_examples = 1000;
  int eval_every = 250;
  bool f16 = false;
  std::string out_dir;
};

struct NumbersGruResult {
  double held_out_exact = 0, engine_greedy_exact = 0, alignment = 0;
  double seconds = 0, cpu_seconds = 0;
  int64_t parameters = 0;
};

// The recipe's loop: warm-up to o.lr over o.warmup steps (at most a tenth of the run plus
// one), cosine decay to o.min_lr, clipping at 1, AdamW (0.9, 0.999, 1e-8, no weight decay).
LoopOptions numbers_gru_loop_options(const NumbersGruOptions& o);
NumbersGruResult run_numbers_gru_training(const NumbersGruOptions& o, std::ostream& log);

}  // namespace tfp::train
