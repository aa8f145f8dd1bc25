// tfp_trainer_*: the toy-task trainer (train/trainer.h) behind the C API, for the training
// page's worker. This file only translates: the options JSON to train::TrainerOptions (the
// keys are `tfp train`'s flags with underscores; both front ends share the defaults and the
// range checks of train/trainer_options.h, so the same options mean the same run natively
// and in the browser), trainer results to status codes, attention maps to a tensor list.
// The training itself is train/'s.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/api_edge.h"
#include "api/api_tensors.h"
#include "io/json_depth.h"
#include "io/json_excerpt.h"
#include "train/trainer.h"
#include "train/trainer_options.h"

struct tfp_trainer {
  std::unique_ptr<tfp::train::Trainer> trainer;
  std::string info;                      // tfp_trainer_info_json's text
  std::string config, tokenizer;         // tfp_trainer_export's files
  std::vector<uint8_t> weights;
  std::string tokens_dec, tokens_enc;    // tfp_trainer_attention_tokens
  std::string answer;                    // tfp_trainer_generate
};

namespace {

using tfp::api::argument_error;
using json = nlohmann::json;

// The JSON keys, what each takes and the field it sets. Integers must be whole numbers.
using Opts = tfp::train::TrainerOptions;
using Given = tfp::train::OptionsGiven;
struct OptionKey {
  const char* key;
  enum Kind { Integer, Number, Word, Boolean } kind;
  void (*set_number)(Opts&, double);          // Integer, Number; Boolean (0 or 1)
  bool (*set_word)(Opts&, std::string_view);  // Word: false when it is not one of its words
  const char* words = nullptr;                // Word: the words it takes, for the message
  bool Given::*given = nullptr;               // a default that a given key replaces
};
constexpr OptionKey kOptionKeys[] = {
    {"steps", OptionKey::Integer, [](Opts& o, double x) { o.steps = static_cast<int>(x); }, nullptr, nullptr,
     &Given::steps},
    {"batch", OptionKey::Integer, [](Opts& o, double x) { o.batch = static_cast<int>(x); }, nullptr},
    {"d_model", OptionKey::Integer, [](Opts& o, double x) { o.d_model = static_cast<int>(x); }, nullptr},
    {"heads", OptionKey::Integer, [](Opts& o, double x) { o.n_heads = static_cast<int>(x); }, nullptr},
    {"layers", OptionKey::Integer, [](Opts& o, double x) { o.n_layers = static_cast<int>(x); }, nullptr},
    {"d_ff", OptionKey::Integer, [](Opts& o, double x) { o.d_ff = static_cast<int>(x); }, nullptr},
    {"size", OptionKey::Integer, [](Opts& o, double x) { o.task_size = static_cast<int>(x); }, nullptr},
    {"lr", OptionKey::Number, [](Opts& o, double x) { tfp::train::set_peak_lr(o, x); }, nullptr},
    {"label_smoothing", OptionKey::Number, [](Opts& o, double x) { o.label_smoothing = x; }, nullptr},
    {"arch", OptionKey::Word, nullptr, tfp::train::set_architecture, tfp::train::kArchitectureWords,
     &Given::architecture},
    {"act", OptionKey::Word, nullptr, tfp::train::set_activation, tfp::train::kActivationWords},
    {"post_ln", OptionKey::Boolean, [](Opts& o, double x) { o.norm_first = x == 0; }, nullptr},
    {"warmup", OptionKey::Integer, [](Opts& o, double x) { o.warmup = static_cast<int>(x); }, nullptr, nullptr,
     &Given::warmup},
    {"clip", OptionKey::Number, [](Opts& o, double x) { o.clip = x; }, nullptr},
    {"positions", OptionKey::Word, nullptr, tfp::train::set_positions, tfp::train::kPositionsWords},
    {"dropout", OptionKey::Number, [](Opts& o, double x) { o.dropout = x; }, nullptr},
};

std::string known_keys() {
  std::string s;
  for (const OptionKey& k : kOptionKeys) s += std::string(s.empty() ? "" : ", ") + k.key;
  return s;
}

// The trainer's options for (task, options JSON, seed): each key read into its field, then
// the defaults of what was left out and the range checks (train/trainer_options.h). Every
// message names the key.
tfp::train::TrainerOptions trainer_options(const char* task, const char* text, size_t bytes, uint32_t seed) {
  tfp::train::TrainerOptions o;
  tfp::train::OptionsGiven given;
  try {
    o.task = tfp::train::parse_task(task);
  } catch (const tfp::Error& e) {
    argument_error("tfp_trainer_create: ", e.what());
  }
  o.seed = seed;
  if (text != nullptr && bytes != 0) {
    if (const tfp::io::JsonNesting n = tfp::io::json_nesting(std::string_view(text, bytes)); n.depth > tfp::io::kMaxJsonDepth)
      argument_error("tfp_trainer_create: options nested ", n.depth, " levels deep; at most ", tfp::io::kMaxJsonDepth, " are read");
    const json j = json::parse(text, text + bytes, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) argument_error("tfp_trainer_create: options are not valid JSON");
    if (!j.is_object()) argument_error("tfp_trainer_create: options must be a JSON object, got ", j.type_name());
    for (const auto& [key, value] : j.items()) {
      const OptionKey* k = nullptr;
      for (const OptionKey& row : kOptionKeys) k = key == row.key ? &row : k;
      if (!k) argument_error("tfp_trainer_create: unknown option \"", key, "\" (known: ", known_keys(), ")");
      switch (k->kind) {
        case OptionKey::Integer:
        case OptionKey::Number: {
          if (!value.is_number())
            argument_error("tfp_trainer_create: option \"", key, "\" must be a number, got ", tfp::io::json_excerpt(value));
          const double x = value.get<double>();
          if (k->kind == OptionKey::Integer && !(std::trunc(x) == x && std::abs(x) < 2147483648.0))
            argument_error("tfp_trainer_create: option \"", key, "\" must be a whole number, got ", tfp::io::json_excerpt(value));
          k->set_number(o, x);
          break;
        }
        case OptionKey::Word:
          if (!value.is_string())
            argument_error("tfp_trainer_create: option \"", key, "\" must be a string, got ", tfp::io::json_excerpt(value));
          if (!k->set_word(o, value.get<std::string>()))
            argument_error("tfp_trainer_create: option \"", key, "\" is ", k->words, ", got ", tfp::io::json_excerpt(value));
          break;
        case OptionKey::Boolean:
          if (!value.is_boolean())
            argument_error("tfp_trainer_create: option \"", key, "\" must be true or false, got ", tfp::io::json_excerpt(value));
          k->set_number(o, value.get<bool>() ? 1 : 0);
          break;
      }
      if (k->given) given.*(k->given) = true;
    }
  }
  tfp::train::apply_defaults(o, given);
  const std::string why =
      tfp::train::options_error(o, [](std::string_view key) { return "option \"" + std::string(key) + "\""; });
  if (!why.empty()) argument_error("tfp_trainer_create: ", why);
  return o;
}

tfp::train::Trainer& trainer_of(tfp_trainer* t, const char* where) {
  TFP_API_REQUIRE(t != nullptr && t->trainer, where, ": trainer is NULL");
  return *t->trainer;
}

// A prompt the task accepts (Task::prompt_error): 1 to its longest prompt, in its prompt
// alphabet (digits, '+' for add; number words; a written date), one its answer is defined for.
void check_prompt(tfp::train::Trainer& tr, const char* where, const char* prompt) {
  TFP_API_REQUIRE(prompt != nullptr, where, ": prompt is NULL");
  const std::string why = tr.task().prompt_error(prompt);
  TFP_API_REQUIRE(why.empty(), where, ": ", why);
}

// Clears the exported bytes: they describe the weights before these steps.
void drop_export(tfp_trainer* t) {
  t->config.clear();
  t->tokenizer.clear();
  t->weights.clear();
}

// The real tokens of a row of characters: up to the first padding character, without a
// final end mark (a padded decoder-only row keeps "." as an input whose prediction is not
// graded; the unpadded example's input ends before it).
// Counted in tokens (characters, UTF-8: a dates row may hold '年').
std::vector<std::string> unpadded(const tfp::train::Task& task, const std::string& s) {
  using tfp::train::Task;
  std::vector<std::string> r;
  for (int id : task.tokenize(s)) {
    if (id == Task::kPad) break;
    r.push_back(task.piece(id));
  }
  if (!r.empty() && r.back() == task.piece(Task::kEnd)) r.pop_back();
  return r;
}

std::string joined(const std::vector<std::string>& pieces) {
  std::string s;
  for (const std::string& p : pieces) s += p;
  return s;
}

}  // namespace

extern "C" {

int tfp_trainer_create(const char* task, const char* options_json, size_t options_bytes, uint32_t seed,
                       tfp_trainer** out) {
  if (out) *out = nullptr;
  return tfp::api::guard("tfp_trainer_create", [&] {
    TFP_API_REQUIRE(out != nullptr, "tfp_trainer_create: out is NULL");
    TFP_API_REQUIRE(task != nullptr, "tfp_trainer_create: task is NULL");
    const tfp::train::TrainerOptions opt = trainer_options(task, options_json, options_bytes, seed);
    auto t = std::make_unique<tfp_trainer>();
    t->trainer = std::make_unique<tfp::train::Trainer>(opt);
    *out = t.release();
  });
}

void tfp_trainer_free(tfp_trainer* trainer) { delete trainer; }

int tfp_trainer_step(tfp_trainer* trainer, int n_steps, double* losses) {
  return tfp::api::guard("tfp_trainer_step", [&] {
    tfp::train::Trainer& tr = trainer_of(trainer, "tfp_trainer_step");
    TFP_API_REQUIRE(n_steps > 0, "tfp_trainer_step: n_steps must be positive, got ", n_steps);
    drop_export(trainer);
    for (int i = 0; i < n_steps; ++i) {
      const double loss = tr.step().loss;
      if (losses) losses[i] = loss;
    }
  });
}

int tfp_trainer_step_stats(tfp_trainer* trainer, int n_steps, double* stats) {
  return tfp::api::guard("tfp_trainer_step_stats", [&] {
    tfp::train::Trainer& tr = trainer_of(trainer, "tfp_trainer_step_stats");
    TFP_API_REQUIRE(n_steps > 0, "tfp_trainer_step_stats: n_steps must be positive, got ", n_steps);
    TFP_API_REQUIRE(stats != nullptr, "tfp_trainer_step_stats: stats is NULL");
    drop_export(trainer);
    for (int i = 0; i < n_steps; ++i) {
      const tfp::train::StepStats s = tr.step();
      double* row = stats + 4 * static_cast<size_t>(i);
      row[0] = s.loss;
      row[1] = s.token_accuracy;
      row[2] = s.lr;
      row[3] = s.grad_norm;
    }
  });
}

int tfp_trainer_set_lr(tfp_trainer* trainer, double lr) {
  return tfp::api::guard("tfp_trainer_set_lr", [&] {
    tfp::train::Trainer& tr = trainer_of(trainer, "tfp_trainer_set_lr");
    TFP_API_REQUIRE(std::isfinite(lr) && lr > 0, "tfp_trainer_set_lr: the learning rate must be positive, got ", lr);
    tr.set_lr(lr);
  });
}

int tfp_trainer_evaluate(tfp_trainer* trainer, double* sequence_accuracy, double* token_accuracy,
                         double* loss) {
  return tfp::api::guard("tfp_trainer_evaluate", [&] {
    const tfp::train::EvalStats e = trainer_of(trainer, "tfp_trainer_evaluate").evaluate();
    if (sequence_accuracy) *sequence_accuracy = e.sequence_accuracy;
    if (token_accuracy) *token_accuracy = e.token_accuracy;
    if (loss) *loss = e.loss;
  });
}

const char* tfp_trainer_info_json(tfp_trainer* trainer) {
  const char* result = nullptr;
  tfp::api::guard("tfp_trainer_info_json", [&] {
    tfp::train::Trainer& tr = trainer_of(trainer, "tfp_trainer_info_json");
    const tfp::train::TrainerOptions& o = tr.options();
    const auto arch = tr.config().architecture;
    // Counted as `tfp train` counts them (train/toy_runner.cpp), so tokens/s agree.
    const int per_example = arch == tfp::model::Architecture::encoder_decoder
                                ? tr.task().max_prompt_len() + tr.task().max_answer_len() + 1
                                : tr.task().context_len(arch);
    const json j = {{"task", tfp::train::task_name(o.task)},
                    {"size", tr.task().size()},
                    {"architecture", tr.recurrent() ? "gru_attention" : tfp::model::architecture_name(arch)},
                    {"d_model", o.d_model},
                    {"n_heads", tr.recurrent() ? 1 : o.n_heads},
                    {"n_layers", tr.recurrent() ? 1 : o.n_layers},
                    {"d_ff", tr.recurrent() ? 0 : o.d_ff},
                    {"parameters", tr.params().num_elements()},
                    {"batch", o.batch},
                    {"steps", o.steps},
                    {"steps_done", tr.steps_done()},
                    {"seed", o.seed},
                    {"tokens_per_step", static_cast<int64_t>(o.batch) * per_example},
                    {"lr", o.lr},
                    {"warmup", o.warmup},
                    {"clip", o.clip},
                    {"label_smoothing", o.label_smoothing},
                    {"dropout", o.dropout},
                    {"positions", tfp::train::positions_name(o.positional)},
                    // The task's vocabulary, one character (UTF-8) per token in id order,
                    // its end mark and separator (the decoder's start).
                    {"vocab", tr.task().vocab_text()},
                    {"end_mark", std::string(1, tr.task().end_mark())},
                    {"separator", std::string(1, tr.task().separator())},
                    {"max_prompt", tr.task().max_prompt_len()}};
    trainer->info = j.dump();
    result = trainer->info.c_str();
  });
  return result;
}

int tfp_trainer_attention(tfp_trainer* trainer, const char* prompt, tfp_tensors** out) {
  if (out) *out = nullptr;
  return tfp::api::guard("tfp_trainer_attention", [&] {
    tfp::train::Trainer& tr = trainer_of(trainer, "tfp_trainer_attention");
    TFP_API_REQUIRE(out != nullptr, "tfp_trainer_attention: out is NULL");
    check_prompt(tr, "tfp_trainer_attention", prompt);
    const std::string p = prompt;
    tr.inspect({p, tr.task().solve(p)});

    const tfp::model::ModelConfig& c = tr.config();  // recurrent: 1 decoder layer, 1 head, 0 encoder layers
    const int H = static_cast<int>(c.n_heads);
    auto list = std::make_unique<tfp_tensors>();
    std::string dec, enc;
    // kind 0 decoder self, 1 cross, 2 encoder self (Trainer::attention).
    auto add = [&](int kind, int layer, const std::string& name) {
      std::vector<tfp::train::AttentionMap> heads;
      for (int h = 0; h < H; ++h) heads.push_back(tr.attention(kind, layer, h));
      const std::vector<std::string> q = unpadded(tr.task(), heads[0].queries),
                                     k = unpadded(tr.task(), heads[0].keys);
      const int Tq = static_cast<int>(q.size()), Tk = static_cast<int>(k.size());
      tfp::Tensor t({H, Tq, Tk});
      for (int h = 0; h < H; ++h)
        for (int i = 0; i < Tq; ++i)
          for (int j = 0; j < Tk; ++j)
            t.data[(static_cast<size_t>(h) * Tq + i) * Tk + j] =
                heads[h].probs[static_cast<size_t>(i) * heads[h].Tk + j];
      list->add(name, std::move(t));
      if (kind != 2) dec = joined(q);
      if (kind != 0) enc = joined(k);
    };
    for (int i = 0; i < c.n_encoder_layers; ++i) add(2, i, "enc." + std::to_string(i) + ".attn.probs");
    for (int i = 0; i < c.n_decoder_layers; ++i) {
      if (!tr.recurrent()) add(0, i, "dec." + std::to_string(i) + ".attn.probs");  // the GRU has no self-attention
      if (c.architecture == tfp::model::Architecture::encoder_decoder)
        add(1, i, "dec." + std::to_string(i) + ".cross.probs");
    }
    trainer->tokens_dec = dec;
    trainer->tokens_enc = enc;
    *out = list.release();
  });
}

const char* tfp_trainer_attention_tokens(const tfp_trainer* trainer, int source) {
  if (!trainer) return "";
  return source == 1 ? trainer->tokens_enc.c_str() : trainer->tokens_dec.c_str();
}

int tfp_trainer_generate(tfp_trainer* trainer, const char* prompt, const char** answer) {
  if (answer) *answer = nullptr;
  return tfp::api::guard("tfp_trainer_generate", [&] {
    tfp::train::Trainer& tr = trainer_of(trainer, "tfp_trainer_generate");
    TFP_API_REQUIRE(answer != nullptr, "tfp_trainer_generate: answer is NULL");
    check_prompt(tr, "tfp_trainer_generate", prompt);
    trainer->answer = tr.generate(prompt);
    *answer = trainer->answer.c_str();
  });
}

int tfp_trainer_export(tfp_trainer* trainer, const char** config_json, size_t* config_bytes,
                       const uint8_t** weights, size_t* weights_bytes, const char** tokenizer_json,
                       size_t* tokenizer_bytes) {
  return tfp::api::guard("tfp_trainer_export", [&] {
    tfp::train::Trainer& tr = trainer_of(trainer, "tfp_trainer_export");
    trainer->config = tr.config_json();
    trainer->weights = tr.safetensors();
    trainer->tokenizer = tr.tokenizer_json();
    if (config_json) *config_json = trainer->config.data();
    if (config_bytes) *config_bytes = trainer->config.size();
    if (weights) *weights = trainer->weights.data();
    if (weights_bytes) *weights_bytes = trainer->weights.size();
    if (tokenizer_json) *tokenizer_json = trainer->tokenizer.data();
    if (tokenizer_bytes) *tokenizer_bytes = trainer->tokenizer.size();
  });
}

}  // extern "C"
