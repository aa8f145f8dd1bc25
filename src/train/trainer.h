// The toy trainer as an object that is stepped: the training page's worker calls step()
// repeatedly (reading the loss and, now and then, attention maps) and can stop at any
// step; the native runner (train/toy_runner.h: `tfp train TASK`, bench/train_toy.cpp)
// calls train(), which runs the same steps with periodic held-out evaluation. Both go
// through the one training loop (train/train_loop.h).
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
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "model/config.h"
#include "model/gru_seq2seq.h"
#include "train/seq_gru_model.h"
#include "train/tasks.h"
#include "train/train_loop.h"
#include "train/train_model.h"
#include "train/trainer_options.h"

namespace tfp::train {

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
  Trainer(const Trainer&) = delete;  // the loop's hooks hold `this`
  Trainer& operator=(const Trainer&) = delete;

  StepStats step();
  // Steps until `until` steps are done (-1: opt.steps), calling on_eval every
  // opt.eval_every steps and after the last (the caller evaluates and logs there).
  const LoopState& train(int until, const std::function<void(const LoopState&)>& on_eval);
  EvalStats evaluate();  // on the fixed held-out set (opt.eval_examples)
  int steps_done() const { return loop_->steps_done(); }
  const LoopState& loop_state() const { return loop_->state(); }
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
  std::unique_ptr<TrainLoop> loop_;  // over params(), made once the model is
  LoopHooks hooks_;                  // the step's forward (a batch of the task) and backward
  Rng data_rng_;
  Rng dropout_rng_;  // one mask seed per training step when opt.dropout > 0
  std::vector<Example> held_out_;
  Batch last_;  // the batch of the last forward (for attention())

  CrossEntropyResult forward(const Batch& b, const LossOptions& lo, const Dropout& dropout = {});
  const std::vector<float>& logits() const { return gru_ ? gru_->logits() : tf_->logits(); }
};

model::ModelConfig toy_model_config(const TrainerOptions& opt, const Task& task);
model::GruSeq2SeqConfig toy_gru_config(const TrainerOptions& opt, const Task& task);

}  // namespace tfp::train
