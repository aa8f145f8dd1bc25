// Training recipe of the shipped model `numbers-gru`: the recurrent encoder–decoder with
// additive attention (train/seq_gru_model.h) on the number-words task
// (train/seq_numbers.h), exported as config.json ("model_type": "tfp_gru_seq2seq"),
// model.safetensors (layout in model/gru_seq2seq.h) and tokenizer.json.
//
//   numbers-gru [--steps N] [--seed S] [--out DIR] [--batch B] [--embed E] [--hidden H]
//               [--dec-hidden D] [--attn A] [--unidirectional] [--lr X] [--eval N]
//               [--eval-every K] [--f16]
//
// Held-out accuracy: teacher-forced argmax exact match (= greedy decoding, see
// train/trainer.h); after export the runner decodes the held-out set with the inference
// code (model::gru_greedy_decode) from the written files and scores the attention
// alignment against the gold digit→word alignment (train/seq_align.h).
#pragma once
#include <ostream>
#include <string>
#include <vector>

namespace tfp::train {

struct NumbersGruOptions {
  int embed = 32, hidden = 64, dec_hidden = 128, attn = 64;
  bool bidirectional = true;
  int batch = 64;
  int steps = 2000;
  uint64_t seed = 1;
  double lr = 3e-3, min_lr = 1.5e-4;
  int warmup = 100;
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

NumbersGruOptions parse_numbers_gru_args(const std::vector<std::string>& args);
NumbersGruResult run_numbers_gru_training(const NumbersGruOptions& o, std::ostream& log);
int run_numbers_gru_cli(const std::vector<std::string>& args, std::ostream& log);

}  // namespace tfp::train
