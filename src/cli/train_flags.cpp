// See train_flags.h.
#include "cli/train_flags.h"

#include <algorithm>
#include <exception>

#include "core/error.h"
#include "train/trainer_options.h"

namespace tfp::cli {

namespace {

// Rows for a field, by its type.
TrainFlag int_flag(const char* name, const char* value, int& field) {
  return {name, value, [&field](double x) { field = static_cast<int>(x); }, {}, {}};
}
TrainFlag u64_flag(const char* name, const char* value, uint64_t& field) {
  return {name, value, [&field](double x) { field = static_cast<uint64_t>(x); }, {}, {}};
}
TrainFlag text_flag(const char* name, const char* value, std::string& field) {
  return {name, value, {}, [&field](const std::string& v) { field = v; }, {}};
}
TrainFlag switch_flag(const char* name, bool& field, bool to) {
  return {name, nullptr, {}, {}, [&field, to] { field = to; }};
}

// The rows every training recipe shares.
void add_run_flags(std::vector<TrainFlag>& f, int& steps, uint64_t& seed, std::string& out_dir) {
  f.push_back(int_flag("--steps", "N", steps));
  f.push_back(u64_flag("--seed", "S", seed));
  f.push_back(text_flag("--out", "DIR", out_dir));
}
// The Transformer's shape: the toy tasks, numbers-transformer and dates.
void add_shape_flags(std::vector<TrainFlag>& f, int& d_model, int& heads, int& layers, int& d_ff) {
  f.push_back(int_flag("--d-model", "C", d_model));
  f.push_back(int_flag("--heads", "H", heads));
  f.push_back(int_flag("--layers", "L", layers));
  f.push_back(int_flag("--d-ff", "F", d_ff));
}
// --lr X sets the peak; the recipe's floor follows at X / floor_divisor.
TrainFlag lr_flag(double& lr, double& min_lr, double floor_divisor) {
  return {"--lr", "X", [&lr, &min_lr, floor_divisor](double x) { lr = x, min_lr = x / floor_divisor; }, {}, {}};
}

const std::string kToyTasks =
    "copy | reverse | sort | add | numbers (number words -> digits) | "
    "dates-iso (written date -> ISO)";

// A row for one of the toy trainer's enumerated options (train/trainer_options.h: set_*).
TrainFlag word_flag(const char* name, const char* value, train::TrainerOptions& t,
                    bool (*set)(train::TrainerOptions&, std::string_view), const char* words, bool* given = nullptr) {
  return {name,
          value,
          {},
          [=, &t](const std::string& v) {
            TFP_CHECK(set(t, v), "train: ", name, " is ", words, ", got \"", v, "\"");
            if (given) *given = true;
          },
          {}};
}

std::vector<TrainFlag> toy_flags(train::ToyRunOptions& o, train::OptionsGiven& given) {
  train::TrainerOptions& t = o.trainer;
  std::vector<TrainFlag> f;
  add_run_flags(f, t.steps, t.seed, o.out_dir);
  f[0].number = [&t, &given](double x) { t.steps = static_cast<int>(x), given.steps = true; };  // no task default then
  f.push_back(word_flag("--arch", "decoder|encdec|gru", t, train::set_architecture, train::kArchitectureWords,
                        &given.architecture));
  f.push_back(int_flag("--batch", "B", t.batch));
  add_shape_flags(f, t.d_model, t.n_heads, t.n_layers, t.d_ff);
  f.push_back(switch_flag("--post-ln", t.norm_first, false));
  f.push_back(word_flag("--act", "relu|gelu|gelu_new", t, train::set_activation, train::kActivationWords));
  f.push_back({"--lr", "X", [&t](double x) { train::set_peak_lr(t, x); }, {}, {}});
  f.push_back(int_flag("--size", "N", t.task_size));
  f.push_back(int_flag("--eval-every", "K", t.eval_every));
  f.push_back({"--label-smoothing", "E", [&t](double x) { t.label_smoothing = x; }, {}, {}});
  f.push_back(
      {"--warmup", "W", [&t, &given](double x) { t.warmup = static_cast<int>(x), given.warmup = true; }, {}, {}});
  f.push_back({"--clip", "G", [&t](double x) { t.clip = x; }, {}, {}});
  f.push_back(
      word_flag("--positions", "learned|sinusoidal|rope|alibi|none", t, train::set_positions, train::kPositionsWords));
  f.push_back({"--dropout", "P", [&t](double x) { t.dropout = x; }, {}, {}});
  return f;
}

std::vector<TrainFlag> numbers_flags(train::NumbersRunOptions& o) {
  std::vector<TrainFlag> f;
  add_run_flags(f, o.steps, o.seed, o.out_dir);
  f.push_back(int_flag("--batch", "B", o.batch));
  add_shape_flags(f, o.d_model, o.n_heads, o.n_layers, o.d_ff);
  f.push_back(lr_flag(o.lr, o.min_lr, 20));
  f.push_back(int_flag("--eval", "N", o.eval_examples));
  f.push_back(int_flag("--eval-every", "K", o.eval_every));
  f.push_back(switch_flag("--f16", o.f16, true));
  return f;
}

std::vector<TrainFlag> numbers_gru_flags(train::NumbersGruOptions& o) {
  std::vector<TrainFlag> f;
  add_run_flags(f, o.steps, o.seed, o.out_dir);
  f.push_back(int_flag("--batch", "B", o.batch));
  f.push_back(int_flag("--embed", "E", o.embed));
  f.push_back(int_flag("--hidden", "H", o.hidden));
  f.push_back(int_flag("--dec-hidden", "D", o.dec_hidden));
  f.push_back(int_flag("--attn", "A", o.attn));
  f.push_back(switch_flag("--unidirectional", o.bidirectional, false));
  f.push_back(lr_flag(o.lr, o.min_lr, 20));
  f.push_back(int_flag("--eval", "N", o.eval_examples));
  f.push_back(int_flag("--eval-every", "K", o.eval_every));
  f.push_back(switch_flag("--f16", o.f16, true));
  return f;
}

std::vector<TrainFlag> brown_flags(BrownCommand& c, bool eval) {
  train::BrownRunOptions& o = c.run;
  std::vector<TrainFlag> f;
  if (eval) {
    f.push_back(text_flag("--model", "DIR", o.model_dir));
    f.push_back(int_flag("--limit", "N", o.limit));
    f.push_back(text_flag("--precision", "f32|f16|int8", o.precision));
  } else {
    add_run_flags(f, o.steps, o.seed, o.out_dir);
    f.push_back(int_flag("--eval-every", "K", o.eval_every));
  }
  f.push_back(text_flag("--corpus", "DIR", c.corpus_dir));
  return f;
}

std::string brown_usage() {
  BrownCommand c;
  return "  train brown-gpt|brown-pos " + flags_usage(brown_flags(c, false), 28) + "\n  eval  brown-gpt|brown-pos " +
         flags_usage(brown_flags(c, true), 28) + "\n";
}

}  // namespace

void read_train_flags(const std::vector<std::string>& args, size_t first, const std::vector<TrainFlag>& flags,
                      const std::string& what, const std::string& usage) {
  for (size_t i = first; i < args.size(); ++i) {
    const std::string& a = args[i];
    const auto row = std::find_if(flags.begin(), flags.end(), [&](const TrainFlag& f) { return a == f.name; });
    TFP_CHECK(row != flags.end(), what, ": unknown option \"", a, "\"\n", usage);
    if (row->on) {
      row->on();
      continue;
    }
    TFP_CHECK(i + 1 < args.size(), what, ": ", a, " needs a value\n", usage);
    const std::string& v = args[++i];
    if (row->text) {
      row->text(v);
      continue;
    }
    size_t used = 0;
    double x = 0;
    try {
      x = std::stod(v, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    TFP_CHECK(used == v.size() && !v.empty(), what, ": ", a, " expects a number, got \"", v, "\"");
    row->number(x);
  }
}

std::string flags_usage(const std::vector<TrainFlag>& flags, size_t indent) {
  std::string out, line;
  for (const TrainFlag& f : flags) {
    const std::string item = std::string("[") + f.name + (f.value ? std::string(" ") + f.value : "") + "]";
    if (!line.empty() && indent + line.size() + 1 + item.size() > 100) {
      out += line + "\n" + std::string(indent, ' ');
      line.clear();
    }
    line += (line.empty() ? "" : " ") + item;
  }
  return out + line;
}

std::string train_usage() {
  train::ToyRunOptions o;
  train::OptionsGiven given;
  return "usage: tfp train TASK " + flags_usage(toy_flags(o, given), 22) + "\n  TASK: " + kToyTasks +
         "\n  numbers and dates-iso train an encoder-decoder unless --arch says otherwise\n"
         "  --warmup: steps (default min(50, steps/10 + 1)); --clip: global gradient norm (0 = off; default 1);\n"
         "  --dropout: inverted dropout in [0, 1) in training steps (default 0 = off); --eval-every 0: only at the "
         "end\n";
}

train::ToyRunOptions parse_train_args(const std::vector<std::string>& args) {
  TFP_CHECK(!args.empty(), "train: missing TASK\n", train_usage());
  train::ToyRunOptions o;
  train::OptionsGiven given;
  o.trainer.task = train::parse_task(args[0]);
  read_train_flags(args, 1, toy_flags(o, given), "train", train_usage());
  train::apply_defaults(o.trainer, given);
  const std::string why = train::options_error(o.trainer, [](std::string_view key) {
    std::string flag = "--" + std::string(key);
    std::replace(flag.begin(), flag.end(), '_', '-');
    return flag;
  });
  TFP_CHECK(why.empty(), "train: ", why);
  return o;
}

train::NumbersRunOptions parse_numbers_args(const std::vector<std::string>& args,
                                            const train::NumbersRunOptions& defaults, const std::string& recipe) {
  train::NumbersRunOptions o = defaults;
  const std::vector<TrainFlag> flags = numbers_flags(o);
  read_train_flags(args, 0, flags, recipe,
                   "usage: tfp train " + recipe + " " + flags_usage(flags, 18 + recipe.size()) + "\n");
  TFP_CHECK(o.steps > 0 && o.batch > 0 && o.eval_examples > 0, recipe,
            ": --steps, --batch and --eval must be positive");
  return o;
}

train::NumbersGruOptions parse_numbers_gru_args(const std::vector<std::string>& args) {
  train::NumbersGruOptions o;
  const std::vector<TrainFlag> flags = numbers_gru_flags(o);
  read_train_flags(args, 0, flags, "numbers-gru", "usage: tfp train numbers-gru " + flags_usage(flags, 29) + "\n");
  TFP_CHECK(o.steps > 0 && o.batch > 0 && o.eval_examples > 0,
            "numbers-gru: --steps, --batch and --eval must be positive");
  return o;
}

bool is_brown_recipe(const std::string& name) { return name == "brown-gpt" || name == "brown-pos"; }

BrownCommand parse_brown_args(const std::vector<std::string>& args, bool eval) {
  const char* op = eval ? "eval" : "train";
  TFP_CHECK(!args.empty() && is_brown_recipe(args[0]), op, ": expected brown-gpt or brown-pos\n", brown_usage());
  BrownCommand c;
  c.run.recipe = args[0];
  read_train_flags(args, 1, brown_flags(c, eval), std::string(op) + " " + args[0], brown_usage());
  const train::BrownRunOptions& o = c.run;
  TFP_CHECK(o.steps >= 0 && o.eval_every >= 0 && o.limit >= 0, op, " ", o.recipe,
            ": --steps, --eval-every and --limit must be 0 (the recipe's default; all) or more");
  return c;
}

DatesEvalCommand parse_dates_eval_args(const std::vector<std::string>& args) {
  DatesEvalCommand c;
  const std::vector<TrainFlag> flags = {text_flag("--model", "DIR", c.model_dir), int_flag("--eval", "N", c.examples),
                                        int_flag("--limit", "N", c.examples), u64_flag("--seed", "S", c.seed)};
  read_train_flags(args, 0, flags, "eval dates", "usage: tfp eval dates " + flags_usage(flags, 22) + "\n");
  TFP_CHECK(c.examples > 0, "eval dates: --eval must be positive");
  return c;
}

}  // namespace tfp::cli
