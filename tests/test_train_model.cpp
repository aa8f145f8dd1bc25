// The trainable model as a whole:
//  - gradient check of every parameter against central finite differences, in double
//    precision, for decoder-only and encoder-decoder, pre-LN and post-LN, each activation,
//    tied and separate heads, label smoothing, ignored targets and source padding.
//    Tolerance as in test_train_grad.cpp: |analytic − numeric| <= 1e-7 + 1e-6·|numeric|.
//  - its float forward equals the inference engine's forward (model::forward_*) on the
//    same weights: oracle = the engine, tolerance 1e-4 absolute on logits of size ~1
//    (both are float; they differ only in summation order and kernels).
//  - its float forward equals its own double forward within 1e-5 (precision check).
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "model/transformer.h"
#include "train/rng.h"
#include "train/train_model.h"

using namespace tfp;
using namespace tfp::train;
using model::Architecture;

namespace {

model::ModelConfig tiny_config(Architecture arch, bool norm_first, nn::Activation act, bool tied) {
  model::ModelConfig c;
  c.architecture = arch;
  c.family = "tfp";
  c.d_model = 8;
  c.n_heads = 2;
  c.d_ff = 12;
  c.vocab_size = 7;
  c.max_positions = 8;
  c.n_decoder_layers = 2;
  c.n_encoder_layers = arch == Architecture::encoder_decoder ? 2 : 0;
  c.activation = act;
  c.norm_first = norm_first;
  c.decoder_final_norm = norm_first;
  c.encoder_final_norm = norm_first && arch == Architecture::encoder_decoder;
  c.tied_lm_head = tied;
  return c;
}

// Gives every bias, beta and gamma a random value so their gradients are exercised
// (a fresh init has them at exactly 0 and 1).
template <class T>
void perturb_norms_and_biases(TrainModel<T>& m, uint64_t seed) {
  Rng rng(seed);
  for (auto& p : m.params)
    if (p.shape.size() == 1)
      for (auto& v : p.value) v += static_cast<T>(rng.uniform(-0.3f, 0.3f));
}

Batch tiny_batch(Architecture arch, uint64_t seed) {
  Rng rng(seed);
  Batch b;
  b.B = 2;
  b.T = 5;
  b.S = arch == Architecture::encoder_decoder ? 4 : 0;
  for (int i = 0; i < b.B * b.T; ++i) b.tgt.push_back(rng.below(7));
  for (int i = 0; i < b.B * b.T; ++i) b.targets.push_back(rng.below(7));
  b.targets[1] = b.targets[7] = -100;  // not graded
  for (int i = 0; i < b.B * b.S; ++i) b.src.push_back(rng.below(7));
  if (b.S) b.src_pad = {0, 0, 0, 0, 0, 0, 1, 1};  // the second source has 2 padding tokens
  return b;
}

void check_model_gradients(const model::ModelConfig& cfg, uint64_t seed) {
  TrainModel<double> m(cfg);
  m.init(seed, 0.5);
  perturb_norms_and_biases(m, seed + 1);
  const Batch batch = tiny_batch(cfg.architecture, seed + 2);
  LossOptions lo;
  lo.label_smoothing = 0.1;
  m.params.zero_grad();
  m.forward(batch, lo);
  m.backward();
  const double h = 1e-5;
  double worst = 0;
  std::string worst_name;
  for (auto& p : m.params) {
    for (size_t i = 0; i < p.value.size(); ++i) {
      const double keep = p.value[i];
      p.value[i] = keep + h;
      const double lp = m.forward(batch, lo).loss;
      p.value[i] = keep - h;
      const double lm = m.forward(batch, lo).loss;
      p.value[i] = keep;
      const double num = (lp - lm) / (2 * h);
      const double r = std::abs(p.grad[i] - num) / (1e-7 + 1e-6 * std::abs(num));
      if (r > worst) worst = r, worst_name = p.name + "[" + std::to_string(i) + "]";
    }
  }
  CAPTURE(worst_name);
  CHECK(worst <= 1.0);
}

}  // namespace

TEST_CASE("train model: gradients, decoder-only pre-LN gelu_new tied head") {
  check_model_gradients(tiny_config(Architecture::decoder_only, true, nn::Activation::gelu_tanh, true), 11);
}

TEST_CASE("train model: gradients, decoder-only post-LN relu separate head") {
  check_model_gradients(tiny_config(Architecture::decoder_only, false, nn::Activation::relu, false), 12);
}

TEST_CASE("train model: gradients, encoder-decoder pre-LN gelu with source padding") {
  check_model_gradients(tiny_config(Architecture::encoder_decoder, true, nn::Activation::gelu_erf, true), 13);
}

TEST_CASE("train model: gradients, encoder-decoder post-LN relu separate head") {
  check_model_gradients(tiny_config(Architecture::encoder_decoder, false, nn::Activation::relu, false), 14);
}

TEST_CASE("train model: role names come from the engine's table") {
  TrainModel<float> m(tiny_config(Architecture::encoder_decoder, true, nn::Activation::relu, true));
  CHECK(m.params.find("embed.token") != nullptr);
  CHECK(m.params.find("enc.1.attn.qkv.weight")->shape == Shape{24, 8});
  CHECK(m.params.find("dec.0.cross.out.bias")->shape == Shape{8});
  CHECK(m.params.find("dec.norm.gamma") != nullptr);
  CHECK(m.params.find("lm_head.weight") == nullptr);  // tied
  model::ModelConfig bad = tiny_config(Architecture::decoder_only, true, nn::Activation::relu, true);
  bad.architecture = Architecture::encoder_only;
  bad.n_encoder_layers = 1;
  CHECK_THROWS_AS(TrainModel<float>{bad}, Error);
}

namespace {

void check_matches_engine(const model::ModelConfig& cfg, uint64_t seed) {
  TrainModel<float> m(cfg);
  m.init(seed, 0.5);
  perturb_norms_and_biases(m, seed + 1);
  Batch batch = tiny_batch(cfg.architecture, seed + 2);
  m.forward(batch);
  const std::vector<float> logits = m.logits();
  const model::ModelWeights w = m.weights();
  model::validate_weights(cfg, w);
  const int V = static_cast<int>(cfg.vocab_size);
  for (int b = 0; b < batch.B; ++b) {
    std::vector<int32_t> tgt(batch.tgt.begin() + b * batch.T, batch.tgt.begin() + (b + 1) * batch.T);
    model::ForwardResult r;
    if (cfg.architecture == Architecture::decoder_only) {
      r = model::forward_decoder_only(cfg, w, tgt);
    } else {
      std::vector<int32_t> src(batch.src.begin() + b * batch.S, batch.src.begin() + (b + 1) * batch.S);
      std::vector<uint8_t> pad(batch.src_pad.begin() + b * batch.S,
                               batch.src_pad.begin() + (b + 1) * batch.S);
      r = model::forward_encoder_decoder(cfg, w, src, tgt, pad);
    }
    REQUIRE(r.logits.shape == Shape{batch.T, V});
    double worst = 0;
    for (int i = 0; i < batch.T * V; ++i)
      worst = std::max(worst, double(std::abs(r.logits.data[i] - logits[b * batch.T * V + i])));
    CHECK(worst <= 1e-4);
  }
  // The same weights in double: the float forward is accurate to ~1e-6.
  TrainModel<double> md(cfg);
  md.params.copy_values_from(m.params);
  md.forward(batch);
  double worst = 0;
  for (size_t i = 0; i < logits.size(); ++i)
    worst = std::max(worst, std::abs(md.logits()[i] - double(logits[i])));
  CHECK(worst <= 1e-5);
}

}  // namespace

TEST_CASE("train model: forward equals the inference engine, decoder-only") {
  check_matches_engine(tiny_config(Architecture::decoder_only, true, nn::Activation::gelu_tanh, true), 21);
  check_matches_engine(tiny_config(Architecture::decoder_only, false, nn::Activation::relu, false), 22);
}

TEST_CASE("train model: forward equals the inference engine, encoder-decoder") {
  check_matches_engine(tiny_config(Architecture::encoder_decoder, true, nn::Activation::gelu_erf, true), 23);
  check_matches_engine(tiny_config(Architecture::encoder_decoder, false, nn::Activation::relu, false), 24);
}

TEST_CASE("train model: RoPE and ALiBi train (gradients) and equal the inference engine") {
  // RoPE rotates q and k inside every self-attention; ALiBi adds its distance penalty:
  // the trainer's forward must be the builder's, and its backward the exact gradient.
  for (const model::Positional pos : {model::Positional::rope, model::Positional::alibi}) {
    CAPTURE(static_cast<int>(pos));
    for (const Architecture arch : {Architecture::decoder_only, Architecture::encoder_decoder}) {
      model::ModelConfig c = tiny_config(arch, true, nn::Activation::gelu_tanh, arch == Architecture::decoder_only);
      c.positional = pos;
      c.rope.base = 100.0;  // fast-turning pairs: positions 0..7 differ clearly
      check_model_gradients(c, 31);
      check_matches_engine(c, 32);
    }
  }
  // What the trainer cannot do is refused by name.
  model::ModelConfig rms = tiny_config(Architecture::decoder_only, true, nn::Activation::relu, true);
  rms.norm = model::NormKind::rms_norm;
  CHECK_THROWS_WITH_AS(TrainModel<float>{rms}, doctest::Contains("only LayerNorm layers"), Error);
  model::ModelConfig rel = tiny_config(Architecture::encoder_decoder, true, nn::Activation::relu, true);
  rel.positional = model::Positional::relative;
  CHECK_THROWS_WITH_AS(TrainModel<float>{rel}, doctest::Contains("relative position buckets"), Error);
}
