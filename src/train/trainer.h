// The training loop as an object that is stepped: the training page's worker calls
// step() repeatedly (reading the loss and, now and then, attention maps) and can stop
// at any step; the native runner (bench/train_toy.cpp) calls it in a loop.
//
// One step: draw a batch from the task's training split → forward → cross-entropy →
// backward → clip the global gradient norm → AdamW with the scheduled learning rate.
// Everything random comes from the seed, so two runs with the same options produce
// bit-identical weights (on the same build).
//
// Evaluation uses a fixed held-out set and teacher forcing: a sequence counts as correct
// when the argmax prediction is right at every graded position. For a task with one
// right answer that is exactly "greedy decoding produces the right answer": if every
// teacher-forced argmax is right, greedy decoding feeds itself the true tokens and so
// reproduces them one by one; at the first wrong argmax it goes wrong too. (generate()
// does the token-by-token decoding; the test checks the two agree.)
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/config.h"
#include "model/gru_seq2seq.h"
#include "train/lr_schedule.h"
#include "train/optimizer.h"
#include "train/seq_gru_model.h"
#include "train/tasks.h"
#include "train/train_model.h"

namespace tfp::train {

struct TrainerOptions {
  TaskKind task = TaskKind::Reverse;
  int task_size = 0;  // 0 = the task's default
  model::Architecture architecture = model::Architecture::decoder_only;
  int d_model = 64, n_heads = 4, n_layers = 2, d_ff = 256;
  model::Positional positional = model::Positional::learned;  // learned, sinusoidal or none
  // A GRU encoder–decoder with additive attention (train/seq_gru_model.h) instead of a
  // Transformer (architecture must be encoder_decoder): embedding and attention width
  // d_model, a bidirectional encoder of d_model per direction, a decoder of 2·d_model.
  // n_heads, n_layers, d_ff, positional, norm_first and activation do not apply.
  bool recurrent = false;
  bool norm_first = true;
  nn::Activation activation = nn::Activation::gelu_tanh;
  int batch = 32;
  int steps = 1000;        // the schedule's length
  uint64_t seed = 1;
  double lr = 3e-3, min_lr = 3e-4;
  int warmup = 50;
  Decay decay = Decay::Cosine;
  double weight_decay = 0.01;
  double clip = 1.0;
  double label_smoothing = 0.0;
  // Inverted dropout in [0, 1) on the embeddings and every residual branch of the
  // Transformer, training steps only (train_model.h, Dropout); 0 = off. The masks come
  // from the seed (a stream of their own), so a run is still fixed by its options and seed.
  // The GRU has none: dropout > 0 with recurrent is refused.
  double dropout = 0.0;
  int eval_examples = 512;
};

struct StepStats {
  int step = 0;            // steps done, including this one
  double loss = 0;         // mean cross-entropy over the batch's graded tokens
  double token_accuracy = 0;
  double lr = 0;
  double grad_norm = 0;    // before clipping
  int tokens = 0;          // graded tokens in the batch
};

struct EvalStats {
  double loss = 0;
  double token_accuracy = 0;
  double sequence_accuracy = 0;  // exact match of the whole answer (greedy-equivalent)
  int examples = 0;
};

// An attention map from the last forward: probs (Tq, Tk) row-major with the tokens.
struct AttentionMap {
  int Tq = 0, Tk = 0;
  std::vector<float> probs;
  std::string queries, keys;  // one character (UTF-8) per token
};

class Trainer {
 public:
  explicit Trainer(const TrainerOptions& opt);

  StepStats step();
  EvalStats evaluate();  // on the fixed held-out set (opt.eval_examples)
  int steps_done() const { return steps_done_; }
  // A new peak learning rate from the next step on (floor = lr/10, as `--lr` sets it);
  // the schedule keeps its position (warm-up, then the decay towards the floor).
  void set_lr(double lr);

  // Greedy decoding of one prompt, token by token (stops at the end mark or the length
  // limit); returns the answer without the end mark.
  std::string generate(const std::string& prompt);

  // Runs the forward pass on one example so that attention() shows it.
  void inspect(const Example& e);
  // kind 0 decoder self, 1 cross, 2 encoder self; example b of the last forward.
  AttentionMap attention(int kind, int layer, int head, int b = 0) const;

  const Task& task() const { return task_; }
  const TrainerOptions& options() const { return opt_; }
  bool recurrent() const { return gru_ != nullptr; }
  ParamStore<float>& params() { return gru_ ? gru_->params : tf_->params; }
  // The Transformer being trained (a recurrent trainer has none: an error).
  TrainModel<float>& model();
  // The Transformer's config; for a recurrent trainer, a description with what the
  // callers read: architecture encoder_decoder, one decoder "layer" whose one "head" is
  // the additive attention, no encoder self-attention.
  const model::ModelConfig& config() const { return config_; }
  const model::GruSeq2SeqConfig& gru_config() const { return gru_config_; }

  // The trained model as files the engine loads: config.json ("model_type": "tfp", or
  // "tfp_gru_seq2seq" for the recurrent model), model.safetensors (tensors named by role,
  // or the GRU layout of model/gru_seq2seq.h) and tokenizer.json (Char model).
  std::string config_json() const;
  std::vector<uint8_t> safetensors() const;
  std::string tokenizer_json() const;

 private:
  TrainerOptions opt_;
  Task task_;
  // The model being trained: one of the two.
  std::unique_ptr<TrainModel<float>> tf_;
  std::unique_ptr<GruSeq2Seq<float>> gru_;
  model::ModelConfig config_;
  model::GruSeq2SeqConfig gru_config_;
  AdamW adamw_;
  LrSchedule schedule_;
  Rng data_rng_;
  Rng dropout_rng_;  // one mask seed per training step when opt.dropout > 0
  std::vector<Example> held_out_;
  int steps_done_ = 0;
  Batch last_;  // the batch of the last forward (for attention())

  CrossEntropyResult forward(const Batch& b, const LossOptions& lo, const Dropout& dropout = {});
  const std::vector<float>& logits() const { return gru_ ? gru_->logits() : tf_->logits(); }
};

model::ModelConfig toy_model_config(const TrainerOptions& opt, const Task& task);
model::GruSeq2SeqConfig toy_gru_config(const TrainerOptions& opt, const Task& task);

}  // namespace tfp::train
