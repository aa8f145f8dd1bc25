// The Brown recipes' pieces:
//  - coarse tag mapping of Brown's compound tags (oracle: the table in train/brown.h);
//  - parsing of word/tag lines (a word may contain '/'), detokenisation, the split rule;
//  - the encoder-only token classifier of TrainModel: every parameter's gradient against
//    central finite differences in double precision, with padding and ignored labels,
//    pre-LN and post-LN (tolerance |analytic − numeric| <= 1e-7 + 1e-6·|numeric|, as in
//    test_train_model.cpp), and its float forward against the inference engine's
//    forward_encoder_only on each unpadded sequence (oracle: the engine; 1e-4 absolute).
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "model/transformer.h"
#include "train/brown.h"
#include "train/rng.h"
#include "train/train_model.h"

using namespace tfp;
using namespace tfp::train;

namespace {

int tag(const char* name) {
  const auto& names = brown::coarse_tags();
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<int>(i);
  return -1;
}

}  // namespace

TEST_CASE("train brown: coarse tags of simple and compound Brown tags") {
  CHECK(brown::num_coarse_tags() == 12);
  CHECK(brown::coarse_tag("nn") == tag("NOUN"));
  CHECK(brown::coarse_tag("nn$-tl") == tag("NOUN"));      // possessive, title
  CHECK(brown::coarse_tag("NNS-HL") == tag("NOUN"));      // upper case, headline
  CHECK(brown::coarse_tag("nn-tl-hl") == tag("NOUN"));    // stacked decorations
  CHECK(brown::coarse_tag("np$") == tag("NOUN"));
  CHECK(brown::coarse_tag("pp$") == tag("PRON"));         // "his": the $ is part of the tag
  CHECK(brown::coarse_tag("pp$$") == tag("PRON"));        // "hers"
  CHECK(brown::coarse_tag("ppss+md") == tag("PRON"));     // "I'd": first part
  CHECK(brown::coarse_tag("md*") == tag("VERB"));         // "can't"
  CHECK(brown::coarse_tag("bedz*") == tag("VERB"));       // "wasn't"
  CHECK(brown::coarse_tag("*") == tag("ADV"));            // "not"
  CHECK(brown::coarse_tag("fw-nn") == tag("X"));          // foreign word
  CHECK(brown::coarse_tag("fw-in+at-tl") == tag("X"));
  CHECK(brown::coarse_tag("at") == tag("DET"));
  CHECK(brown::coarse_tag("in-tl") == tag("ADP"));
  CHECK(brown::coarse_tag("cd") == tag("NUM"));
  CHECK(brown::coarse_tag("cs") == tag("CONJ"));
  CHECK(brown::coarse_tag("to") == tag("PRT"));
  CHECK(brown::coarse_tag("``") == tag("."));
  CHECK(brown::coarse_tag(".-hl") == tag("."));
  CHECK(brown::coarse_tag("---hl") == tag("."));
  CHECK(brown::coarse_tag("jjt") == tag("ADJ"));
  CHECK(brown::coarse_tag("ql") == tag("ADV"));
  CHECK(brown::coarse_tag("nil") == tag("X"));
  CHECK(brown::coarse_tag("zzz") == tag("X"));            // unknown
}

TEST_CASE("train brown: parsing, detokenising, the held-out rule") {
  const brown::Document d = brown::parse_document(
      "ca01", 0,
      "\n\n\tThe/at jury/nn said/vbd ``/`` 1/2/cd ''/'' (/( it/pps was/bedz ,/, n't/* )/) ./.\n\n"
      "\tIt/pps ended/vbd ./.\n");
  REQUIRE(d.sentences.size() == 2);
  const brown::Sentence& s = d.sentences[0];
  REQUIRE(s.words.size() == 13);
  CHECK(s.words[4] == "1/2");  // the tag follows the LAST slash
  CHECK(s.tags[4] == tag("NUM"));
  CHECK(s.tags[10] == tag("ADV"));
  CHECK(brown::detokenize(s) == "The jury said \"1/2\" (it was, n't).");
  CHECK(brown::document_text(d) == "The jury said \"1/2\" (it was, n't). It ended.");
  CHECK_THROWS_AS(brown::parse_document("x", 0, "word-without-tag"), Error);
  int held = 0;
  for (int i = 0; i < 500; ++i) held += brown::is_held_out(i);
  CHECK(held == 50);
  CHECK(brown::is_held_out(9));
  CHECK_FALSE(brown::is_held_out(10));
}

namespace {

model::ModelConfig tagger_config(bool norm_first) {
  model::ModelConfig c;
  c.architecture = model::Architecture::encoder_only;
  c.family = "tfp";
  c.d_model = 8;
  c.n_heads = 2;
  c.d_ff = 12;
  c.vocab_size = 7;
  c.max_positions = 8;
  c.n_encoder_layers = 2;
  c.activation = norm_first ? nn::Activation::gelu_erf : nn::Activation::relu;
  c.norm_first = norm_first;
  c.encoder_final_norm = norm_first;
  c.lm_head = false;
  c.encoder_head = model::EncoderHead::token_classifier;
  c.n_labels = 5;
  return c;
}

Batch tagger_batch(uint64_t seed) {
  Rng rng(seed);
  Batch b;
  b.B = 2;
  b.S = 5;
  for (int i = 0; i < b.B * b.S; ++i) b.src.push_back(rng.below(7));
  for (int i = 0; i < b.B * b.S; ++i) b.targets.push_back(rng.below(5));
  b.src_pad = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1};  // the second sentence has 3 tokens
  b.targets[8] = b.targets[9] = -100;           // padding is not graded
  b.targets[2] = -100;                          // nor a word's second token
  return b;
}

template <class T>
void perturb(TrainModel<T>& m, uint64_t seed) {
  Rng rng(seed);
  for (auto& p : m.params)
    if (p.shape.size() == 1)
      for (auto& v : p.value) v += static_cast<T>(rng.uniform(-0.3f, 0.3f));
}

void check_tagger_gradients(bool norm_first, uint64_t seed) {
  const model::ModelConfig cfg = tagger_config(norm_first);
  TrainModel<double> m(cfg);
  m.init(seed, 0.5);
  perturb(m, seed + 1);
  const Batch batch = tagger_batch(seed + 2);
  LossOptions lo;
  lo.label_smoothing = 0.1;
  m.params.zero_grad();
  m.forward(batch, lo);
  m.backward();
  const double h = 1e-5;
  double worst = 0;
  std::string worst_name;
  for (auto& p : m.params)
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
  CAPTURE(worst_name);
  CHECK(worst <= 1.0);
  // The classifier and every encoder layer were reached.
  CHECK(m.params.find("classifier.weight") != nullptr);
  double g = 0;
  for (double v : m.params.get("enc.0.attn.qkv.weight").grad) g += std::abs(v);
  CHECK(g > 0);
}

void check_tagger_matches_engine(bool norm_first, uint64_t seed) {
  const model::ModelConfig cfg = tagger_config(norm_first);
  TrainModel<float> m(cfg);
  m.init(seed, 0.5);
  perturb(m, seed + 1);
  const Batch batch = tagger_batch(seed + 2);
  m.forward(batch);
  REQUIRE(m.output_size() == 5);
  const std::vector<float> logits = m.logits();
  const model::ModelWeights w = m.weights();
  model::validate_weights(cfg, w);
  for (int b = 0; b < batch.B; ++b) {
    int n = 0;
    while (n < batch.S && batch.src_pad[b * batch.S + n] == 0) ++n;
    std::vector<int32_t> ids(batch.src.begin() + b * batch.S, batch.src.begin() + b * batch.S + n);
    const model::ForwardResult r = model::forward_encoder_only(cfg, w, ids);
    REQUIRE(r.logits.shape == Shape{n, 5});
    double worst = 0;
    for (int i = 0; i < n * 5; ++i)
      worst = std::max(worst, double(std::abs(r.logits.data[i] - logits[b * batch.S * 5 + i])));
    CHECK(worst <= 1e-4);
  }
}

}  // namespace

TEST_CASE("train brown: token classifier gradients, pre-LN with padding") {
  check_tagger_gradients(true, 31);
}

TEST_CASE("train brown: token classifier gradients, post-LN relu") {
  check_tagger_gradients(false, 32);
}

TEST_CASE("train brown: token classifier forward equals the engine's encoder-only forward") {
  check_tagger_matches_engine(true, 33);
  check_tagger_matches_engine(false, 34);
}

TEST_CASE("train brown: encoder-only needs a token classifier head") {
  model::ModelConfig c = tagger_config(true);
  c.encoder_head = model::EncoderHead::none;
  CHECK_THROWS_AS(TrainModel<float>{c}, Error);
  TrainModel<float> m(tagger_config(true));
  Batch bad = tagger_batch(1);
  bad.targets.pop_back();
  CHECK_THROWS_AS(m.forward(bad), Error);
}
