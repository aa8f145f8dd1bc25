// The toy trainer's options (train/trainer.h) as one plain struct, and what the front ends
// that fill it share, so that the same options mean the same run everywhere: `tfp train
// TASK --flags` (src/cli/train_flags.cpp) and the C API's options JSON (the training
// page; src/api/api_trainer.cpp) each read their own spelling into a TrainerOptions, then
//   apply_defaults   fills what the user left unsaid (some defaults depend on other fields);
//   options_error    names the first value out of range, in the caller's own words;
//   set_* / *_name   spell the enumerated options (architecture, activation, positions).
// Fields are named by their C API key ("d_model", "label_smoothing"); the command line's
// flag is the same word with dashes ("--d-model").
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "model/config.h"
#include "train/lr_schedule.h"
#include "train/tasks.h"

namespace tfp::train {

struct TrainerOptions {
  TaskKind task = TaskKind::Reverse;
  int task_size = 0;  // 0 = the task's default
  model::Architecture architecture = model::Architecture::decoder_only;
  int d_model = 64, n_heads = 4, n_layers = 2, d_ff = 256;
  model::Positional positional = model::Positional::learned;  // learned, sinusoidal, rope, alibi or none
  // A GRU encoder–decoder with additive attention (train/seq_gru_model.h) instead of a
  // Transformer (architecture must be encoder_decoder): embedding and attention width
  // d_model, a bidirectional encoder of d_model per direction, a decoder of 2·d_model.
  // n_heads, n_layers, d_ff, positional, norm_first and activation do not apply.
  bool recurrent = false;
  bool norm_first = true;
  nn::Activation activation = nn::Activation::gelu_tanh;
  int batch = 32;
  int steps = 1000;  // the schedule's length
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
  int eval_every = 200;  // steps between held-out evaluations in Trainer::train (0 = only at the end)
};

// Steps when the user names none: enough for the task to pass 95% held-out accuracy.
int default_steps(TaskKind k);

// Which options the user gave; apply_defaults fills the others:
//   steps         default_steps(task)
//   architecture  an encoder-decoder for the word tasks (numbers, dates-iso), whose prompts
//                 are long and answers short, as the shipped numbers and dates models
//   warmup        the default (50) cut to a tenth of a short schedule: min(50, steps/10 + 1);
//                 a given warm-up is kept
struct OptionsGiven {
  bool steps = false, architecture = false, warmup = false;
};
void apply_defaults(TrainerOptions& o, const OptionsGiven& given);

// The peak learning rate; the floor of the cosine decay follows at a tenth.
void set_peak_lr(TrainerOptions& o, double lr);

// The first value out of range, as "<name(key)> must be positive, got 0"; "" when every
// value is in range. `name` spells a field's key the caller's way ("--d-model",
// "option \"d_model\"").
std::string options_error(const TrainerOptions& o, const std::function<std::string(std::string_view key)>& name);

// The enumerated options as the front ends spell them; false (o unchanged) for another word.
bool set_architecture(TrainerOptions& o, std::string_view v);  // decoder | encdec | gru
bool set_activation(TrainerOptions& o, std::string_view v);    // relu | gelu | gelu_new
bool set_positions(TrainerOptions& o, std::string_view v);     // learned | sinusoidal | rope | alibi | none
inline constexpr const char* kArchitectureWords = "decoder, encdec or gru";
inline constexpr const char* kActivationWords = "relu, gelu or gelu_new";
inline constexpr const char* kPositionsWords = "learned, sinusoidal, rope, alibi or none";
const char* positions_name(model::Positional p);  // the word set_positions takes

}  // namespace tfp::train
