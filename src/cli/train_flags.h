// The flags of `tfp train` and `tfp eval` (and of the bench runners bench/train_toy.cpp,
// bench/seq_train.cpp): one table per recipe, flag → field of the recipe's plain options
// struct in src/train, with the rows the recipes share written once (--steps, --seed,
// --out, --batch, --eval-every; the Transformer's --d-model, --heads, --layers, --d-ff).
// One reader turns an argument list into those fields; the usage text is made from the
// same table, so the two cannot disagree.
//
//   tfp train TASK [flags]               toy tasks: train/toy_runner.h, train/trainer_options.h
//   tfp train numbers-transformer|dates  train/seq_numbers_transformer.h, seq_dates_transformer.h
//   tfp train numbers-gru                train/seq_numbers_gru.h
//   tfp train|eval brown-gpt|brown-pos   train/brown_run.h (+ the corpus folder: brown_corpus.h)
//   tfp eval dates                       train/seq_dates_transformer.h
//
// Every reader throws tfp::Error naming the flag: an unknown flag or a missing value (with
// the usage), a value that is not a number or not one of the words the flag takes, a value
// out of range.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "train/brown_run.h"
#include "train/seq_numbers_gru.h"
#include "train/seq_numbers_transformer.h"
#include "train/toy_runner.h"

namespace tfp::cli {

// One flag: its name, the placeholder of its value in the usage (nullptr: a switch that
// takes none) and what it sets. Exactly one of the setters is given.
struct TrainFlag {
  const char* name;
  const char* value = nullptr;
  std::function<void(double)> number;            // "--steps 300": a number
  std::function<void(const std::string&)> text;  // "--out DIR", "--arch gru": a word
  std::function<void()> on;                      // "--f16": a switch
};

// Reads args[first..] against `flags`; messages start with "<what>: ".
void read_train_flags(const std::vector<std::string>& args, size_t first, const std::vector<TrainFlag>& flags,
                      const std::string& what, const std::string& usage);
// "[--steps N] [--seed S] ..." of a table, wrapped at 100 columns, each line after the
// first indented by `indent` spaces.
std::string flags_usage(const std::vector<TrainFlag>& flags, size_t indent);

// `tfp train TASK [flags]`: args[0] is the task. The toy trainer's flags, its defaults
// (train/trainer_options.h: apply_defaults) and its range checks (options_error, flags by
// name: "train: --lr must be positive, got -1").
train::ToyRunOptions parse_train_args(const std::vector<std::string>& args);
std::string train_usage();

// `tfp train numbers-transformer|dates [flags]` (args without the recipe's name), starting
// from `defaults` (train::dates_defaults() for dates).
train::NumbersRunOptions parse_numbers_args(const std::vector<std::string>& args,
                                            const train::NumbersRunOptions& defaults, const std::string& recipe);
// `tfp train numbers-gru [flags]` (args without the recipe's name).
train::NumbersGruOptions parse_numbers_gru_args(const std::vector<std::string>& args);

// `tfp train|eval brown-gpt|brown-pos [flags]`: args[0] is the recipe.
struct BrownCommand {
  train::BrownRunOptions run;
  std::string corpus_dir;  // --corpus DIR; empty: find_brown_corpus_dir()
};
bool is_brown_recipe(const std::string& name);
BrownCommand parse_brown_args(const std::vector<std::string>& args, bool eval);

// `tfp eval dates [--model DIR] [--eval N] [--seed S]` (args without "dates").
struct DatesEvalCommand {
  std::string model_dir = "models/dates";
  int examples = 1000;  // --eval N (or --limit N): the first N held-out examples
  uint64_t seed = 1;
};
DatesEvalCommand parse_dates_eval_args(const std::vector<std::string>& args);

}  // namespace tfp::cli
