// Dropout in the trainable Transformer (train/train_model.h, Dropout) and the toy trainer
// (TrainerOptions::dropout, `--dropout`, the C API's "dropout").
//
// Oracles:
//  - p = 0 is the forward without dropout: logits and every gradient bit-identical
//    (memcmp), whatever the seed. (The committed trainer fixture
//    tests/fixtures/trainer/copy_losses.json, default dropout 0, is replayed by
//    tests/js/trainer_wasm.test.mjs and regenerated bit for bit natively.)
//  - gradients with dropout on: central finite differences in double with the SAME masks
//    for the perturbed forwards (same Dropout seed), tolerance as test_train_model.cpp:
//    |analytic − numeric| <= 1e-7 + 1e-6·|numeric|.
//  - the mask (train/dropout.h, what the model draws): the kept fraction of n = 200 000
//    draws is within 4 binomial standard deviations √(p(1 − p)/n) of 1 − p; every value
//    is 0 or exactly 1/(1 − p); the same Dropout seed gives the same forward.
//  - evaluation: held-out loss of two trainers with identical weights and different p
//    are equal (dropout is off in evaluate()), and repeated evaluations are equal.
//  - bad p (< 0, >= 1, NaN) refused with a message naming dropout.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "api/tfp_api.h"
#include "core/error.h"
#include "train/dropout.h"
#include "train/rng.h"
#include "cli/train_flags.h"
#include "train/train_model.h"
#include "train/trainer.h"

using namespace tfp;
using namespace tfp::train;
using tfp::cli::parse_train_args;
using model::Architecture;

namespace {

model::ModelConfig tiny(Architecture arch, bool norm_first) {
  model::ModelConfig c;
  c.architecture = arch;
  c.family = "tfp";
  c.d_model = 8;
  c.n_heads = 2;
  c.d_ff = 12;
  c.vocab_size = 7;
  c.max_positions = 8;
  c.n_decoder_layers = 2;
  c.n_encoder_layers = arch == Architecture::encoder_decoder ? 1 : 0;
  c.activation = nn::Activation::gelu_tanh;
  c.norm_first = norm_first;
  c.decoder_final_norm = norm_first;
  c.encoder_final_norm = norm_first && arch == Architecture::encoder_decoder;
  c.tied_lm_head = true;
  return c;
}

Batch tiny_batch(Architecture arch, uint64_t seed) {
  Rng rng(seed);
  Batch b;
  b.B = 2;
  b.T = 5;
  b.S = arch == Architecture::encoder_decoder ? 4 : 0;
  for (int i = 0; i < b.B * b.T; ++i) b.tgt.push_back(rng.below(7));
  for (int i = 0; i < b.B * b.T; ++i) b.targets.push_back(rng.below(7));
  b.targets[1] = -100;
  for (int i = 0; i < b.B * b.S; ++i) b.src.push_back(rng.below(7));
  if (b.S) b.src_pad = {0, 0, 0, 0, 0, 0, 1, 1};
  return b;
}

void check_gradients_with_dropout(const model::ModelConfig& cfg, uint64_t seed, double p) {
  TrainModel<double> m(cfg);
  m.init(seed, 0.5);
  const Batch batch = tiny_batch(cfg.architecture, seed + 1);
  const Dropout drop{p, seed + 2};
  m.params.zero_grad();
  const double with = m.forward(batch, {}, drop).loss;
  m.backward();
  // The masks matter: the loss differs from the forward without dropout.
  const double without = m.forward(batch, {}).loss;
  CHECK(with != without);
  const double h = 1e-5;
  double worst = 0;
  std::string worst_name;
  for (auto& prm : m.params) {
    for (size_t i = 0; i < prm.value.size(); ++i) {
      const double keep = prm.value[i];
      prm.value[i] = keep + h;
      const double lp = m.forward(batch, {}, drop).loss;  // same seed: same masks
      prm.value[i] = keep - h;
      const double lm = m.forward(batch, {}, drop).loss;
      prm.value[i] = keep;
      const double num = (lp - lm) / (2 * h);
      const double r = std::abs(prm.grad[i] - num) / (1e-7 + 1e-6 * std::abs(num));
      if (r > worst) worst = r, worst_name = prm.name + "[" + std::to_string(i) + "]";
    }
  }
  CAPTURE(worst_name);
  CHECK(worst <= 1.0);
}

TrainerOptions small(double dropout) {
  TrainerOptions o;
  o.task = TaskKind::Reverse;
  o.task_size = 5;
  o.d_model = 32;
  o.d_ff = 64;
  o.n_heads = 2;
  o.batch = 16;
  o.steps = 100;
  o.warmup = 10;
  o.seed = 5;
  o.eval_examples = 64;
  o.dropout = dropout;
  return o;
}

}  // namespace

TEST_CASE("train dropout: p = 0 is bit-identical to no dropout") {
  for (Architecture arch : {Architecture::decoder_only, Architecture::encoder_decoder}) {
    const model::ModelConfig cfg = tiny(arch, true);
    TrainModel<float> a(cfg), b(cfg);
    a.init(3);
    b.init(3);
    const Batch batch = tiny_batch(arch, 4);
    a.params.zero_grad();
    b.params.zero_grad();
    const double la = a.forward(batch).loss;
    const double lb = b.forward(batch, {}, Dropout{0.0, 12345}).loss;
    CHECK(la == lb);
    REQUIRE(a.logits().size() == b.logits().size());
    CHECK(std::memcmp(a.logits().data(), b.logits().data(), a.logits().size() * sizeof(float)) == 0);
    a.backward();
    b.backward();
    bool same = true;
    for (size_t i = 0; i < a.params.size(); ++i)
      same &= std::memcmp(a.params[i].grad.data(), b.params[i].grad.data(),
                          a.params[i].grad.size() * sizeof(float)) == 0;
    CHECK(same);
  }
  // The trainer: dropout 0 given explicitly equals the default options, step by step.
  Trainer t0(small(0.0));
  TrainerOptions def = small(0.0);
  def.dropout = TrainerOptions{}.dropout;
  CHECK(def.dropout == 0.0);
  Trainer td(def);
  for (int s = 0; s < 3; ++s) CHECK(t0.step().loss == td.step().loss);
}

TEST_CASE("train dropout: gradients with the same masks, decoder-only pre-LN and post-LN") {
  check_gradients_with_dropout(tiny(Architecture::decoder_only, true), 21, 0.3);
  check_gradients_with_dropout(tiny(Architecture::decoder_only, false), 22, 0.3);
}

TEST_CASE("train dropout: gradients with the same masks, encoder-decoder with source padding") {
  check_gradients_with_dropout(tiny(Architecture::encoder_decoder, true), 23, 0.25);
}

TEST_CASE("train dropout: the kept fraction is close to 1 - p, kept values are 1/(1 - p)") {
  for (double p : {0.1, 0.5, 0.9}) {
    Rng rng(99);
    std::vector<float> mask;
    const size_t n = 200000;
    dropout_mask(mask, rng, p, n);
    const float scale = static_cast<float>(1.0 / (1.0 - p));
    size_t kept = 0, other = 0;
    for (float v : mask) kept += v == scale, other += v != scale && v != 0.0f;
    const double frac = double(kept) / n, sd = std::sqrt(p * (1 - p) / n);
    CAPTURE(p);
    CAPTURE(frac);
    CHECK(other == 0);
    CHECK(std::abs(frac - (1 - p)) <= 4 * sd);  // a 4σ binomial bound
  }
  // The model draws its masks from Dropout's seed: same seed, same loss; another seed,
  // another loss.
  const model::ModelConfig cfg = tiny(Architecture::decoder_only, true);
  TrainModel<float> m(cfg);
  m.init(1, 0.5);
  const Batch b = tiny_batch(Architecture::decoder_only, 2);
  const double l1 = m.forward(b, {}, Dropout{0.2, 7}).loss;
  const double l2 = m.forward(b, {}, Dropout{0.2, 7}).loss;
  const double l3 = m.forward(b, {}, Dropout{0.2, 8}).loss;
  CHECK(l1 == l2);
  CHECK(l1 != l3);
}

TEST_CASE("train dropout: evaluation is deterministic and unaffected by p") {
  // Same seed and options but p: the initial weights are the same (dropout draws from a
  // stream of its own), so held-out results before training must be equal.
  Trainer a(small(0.0)), b(small(0.3));
  const EvalStats ea = a.evaluate(), eb = b.evaluate(), eb2 = b.evaluate();
  CHECK(ea.loss == eb.loss);
  CHECK(ea.token_accuracy == eb.token_accuracy);
  CHECK(eb.loss == eb2.loss);
  // Training with dropout differs from training without, but its data are the same.
  const StepStats sa = a.step(), sb = b.step();
  CHECK(sa.tokens == sb.tokens);
  CHECK(sa.loss != sb.loss);
  // After training, evaluation stays deterministic, and generation does not draw masks.
  const EvalStats e1 = b.evaluate(), e2 = b.evaluate();
  CHECK(e1.loss == e2.loss);
  CHECK(b.generate("12345") == b.generate("12345"));
  // The same seed and p give the same run.
  Trainer c(small(0.3));
  c.step();
  CHECK(c.evaluate().loss == e1.loss);
}

TEST_CASE("train dropout: p outside [0, 1) is refused by name") {
  for (double p : {-0.1, 1.0, 1.5, std::numeric_limits<double>::quiet_NaN()}) {
    CAPTURE(p);
    CHECK_THROWS_WITH_AS(Trainer(small(p)), doctest::Contains("dropout must be in [0, 1)"), tfp::Error);
    TrainModel<float> m(tiny(Architecture::decoder_only, true));
    CHECK_THROWS_WITH_AS(m.forward(tiny_batch(Architecture::decoder_only, 1), {}, Dropout{p, 0}),
                         doctest::Contains("dropout must be in [0, 1)"), tfp::Error);
  }
  CHECK_THROWS_WITH_AS(parse_train_args({"copy", "--dropout", "1"}),
                       doctest::Contains("--dropout must be in [0, 1)"), tfp::Error);
  CHECK_THROWS_WITH_AS(parse_train_args({"copy", "--arch", "gru", "--dropout", "0.1"}),
                       doctest::Contains("--dropout"), tfp::Error);
  CHECK(parse_train_args({"copy", "--dropout", "0.1"}).trainer.dropout == 0.1);
  // The C API: the option by its JSON name, the error naming it, info_json reporting it.
  tfp_trainer* t = nullptr;
  const std::string bad = R"({"dropout": -0.5})";
  CHECK(tfp_trainer_create("copy", bad.data(), bad.size(), 1, &t) != TFP_OK);
  CHECK(std::string(tfp_last_error()).find("option \"dropout\" must be in [0, 1)") != std::string::npos);
  const std::string good = R"({"steps": 10, "batch": 4, "d_model": 16, "heads": 2, "layers": 1, "d_ff": 32, "size": 4, "dropout": 0.25})";
  REQUIRE(tfp_trainer_create("copy", good.data(), good.size(), 1, &t) == TFP_OK);
  CHECK(std::string(tfp_trainer_info_json(t)).find("\"dropout\":0.25") != std::string::npos);
  // The API's losses equal the C++ Trainer built from the same CLI options.
  Trainer ref(parse_train_args({"copy", "--seed", "1", "--steps", "10", "--batch", "4", "--d-model", "16",
                                "--heads", "2", "--layers", "1", "--d-ff", "32", "--size", "4",
                                "--dropout", "0.25"}).trainer);
  double losses[3];
  REQUIRE(tfp_trainer_step(t, 3, losses) == TFP_OK);
  for (double l : losses) CHECK(l == ref.step().loss);
  tfp_trainer_free(t);
}
