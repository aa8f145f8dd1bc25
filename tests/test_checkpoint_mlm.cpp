// BERT's masked-LM head (cls.predictions.*) bound from Hugging Face checkpoints, and
// fill-mask top-k on its logits.
//
// Oracles:
//   - golden logits of a plain-torch BertForMaskedLM (tests/fixtures/gen_checkpoints.py,
//     make_bert_mlm: HF's BertLMPredictionHead maths in float64 from the stored weights).
//     Tolerance 1e-5 absolute on logits of size ~5: f32 through two layers plus the head
//     (measured 2.1e-6 natively, F32 and F16 files alike), 1e-4 on hidden states as the
//     BERT tests use;
//   - the golden fill-mask lists (softmax in float64 of the golden logits): ids exact,
//     probabilities within 1e-6;
//   - hand derivations for renamed or edited copies of the fixture file (written here with
//     SafeTensorsWriter): the same tensors without the "bert." prefix give bit-identical
//     logits; an untied decoder 2·E gives 2·logits − bias (logits = t·Eᵀ + b).
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "io/file.h"
#include "io/safetensors.h"
#include "model/fill_mask.h"
#include "model/model.h"
#include "test_checkpoint_util.h"

using namespace tfp;
using namespace tfp::model;
using testing::checkpoint_dir;
using testing::max_abs_diff;
using testing::read_json;

namespace {

constexpr double kLogitTol = 1e-5;

ForwardResult run(const LoadedModel& m, const nlohmann::json& want) {
  const auto ids = want["input_ids"].get<std::vector<int32_t>>();
  const auto types = want["token_type_ids"].get<std::vector<int32_t>>();
  return forward_encoder_only(m.config(), m.weights(), ids, types, {});
}

// The fixture's model.safetensors rewritten tensor by tensor: edit(name, entry, writer)
// adds what it wants in place of each tensor (return false to keep it as is); extra()
// may add more. Loaded with the fixture's config and tokenizer.
LoadedModel load_edited(const std::string& fixture,
                        const std::function<bool(const io::SafeTensors&, const io::TensorEntry&,
                                                 io::SafeTensorsWriter&)>& edit,
                        const std::function<void(const io::SafeTensors&, io::SafeTensorsWriter&)>& extra = {}) {
  const std::string dir = checkpoint_dir(fixture);
  const io::SafeTensors st = io::SafeTensors::parse(io::read_file(dir + "/model.safetensors"), "orig");
  io::SafeTensorsWriter w;
  for (const io::TensorEntry& e : st.entries()) {
    if (edit(st, e, w)) continue;
    const auto b = st.bytes(e);
    w.add_raw(e.name, e.dtype, e.shape, b.data(), b.size());
  }
  if (extra) extra(st, w);
  ModelFiles f;
  f.name = fixture + "-edited";
  f.config_json = io::read_text_file(dir + "/config.json");
  f.tokenizer_json = io::read_text_file(dir + "/tokenizer.json");
  f.safetensors = w.finish();
  return load_model(std::move(f));
}

std::string load_error(const std::string& fixture,
                       const std::function<bool(const io::SafeTensors&, const io::TensorEntry&,
                                                io::SafeTensorsWriter&)>& edit,
                       const std::function<void(const io::SafeTensors&, io::SafeTensorsWriter&)>& extra = {}) {
  try {
    (void)load_edited(fixture, edit, extra);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// The f32 values of a tensor, as a fresh Tensor.
Tensor copy_f32(const io::SafeTensors& st, const io::TensorEntry& e) {
  const TensorView v = st.f32(e);
  return Tensor(v.shape, std::vector<float>(v.data, v.data + v.numel()));
}

}  // namespace

TEST_CASE("checkpoint mlm: BertForMaskedLM file (F32, bert. prefix, tied decoder) gives the reference logits") {
  const LoadedModel m = load_model_dir(checkpoint_dir("bert_mlm_tiny"));
  CHECK(m.family == CheckpointFamily::bert);
  CHECK(m.config().encoder_head == EncoderHead::masked_lm);
  CHECK(m.weights().mlm_decoder.empty());  // tied: the decoder is the word embeddings
  CHECK(m.report.unused_allowed.empty());   // every cls.predictions.* tensor is bound
  CHECK(m.report.ignored == std::vector<std::string>{"bert.embeddings.position_ids"});

  const nlohmann::json want = read_json(checkpoint_dir("bert_mlm_tiny") + "/expected.json");
  const ForwardResult r = run(m, want);
  CHECK(max_abs_diff(r.hidden, want["hidden"]) < 1e-4);
  const double d = max_abs_diff(r.logits, want["logits"]);
  MESSAGE("BERT MLM logits vs the torch reference, max abs diff: ", d);
  CHECK(d < kLogitTol);
}

TEST_CASE("checkpoint mlm: fill_mask top 10 at each [MASK] equals the reference softmax") {
  const LoadedModel m = load_model_dir(checkpoint_dir("bert_mlm_tiny"));
  const nlohmann::json want = read_json(checkpoint_dir("bert_mlm_tiny") + "/expected.json");
  const auto ids = want["input_ids"].get<std::vector<int32_t>>();
  // The tokenizer keeps "[MASK]" whole (an added special token) in the fixture's text.
  REQUIRE(m.tokenizer);
  const int32_t mask = static_cast<int32_t>(m.tokenizer->special_ids().mask);
  CHECK(mask == want["mask_token_id"].get<int32_t>());
  const auto found = fill_mask_forward(m.config(), m.weights(), ids, {}, {}, mask, 10);
  const nlohmann::json& gold = want["fill_mask"];
  REQUIRE(found.size() == gold.size());
  REQUIRE(found.size() == 2);
  for (size_t i = 0; i < found.size(); ++i) {
    CHECK(found[i].position == gold[i]["position"].get<int64_t>());
    CHECK(found[i].ids == gold[i]["ids"].get<std::vector<int32_t>>());
    const auto probs = gold[i]["probs"].get<std::vector<double>>();
    REQUIRE(found[i].probs.size() == probs.size());
    for (size_t k = 0; k < probs.size(); ++k) CHECK(std::fabs(found[i].probs[k] - probs[k]) < 1e-6);
  }
}

TEST_CASE("checkpoint mlm: fill_mask on hand-made logits (softmax, order, ties, clipping)") {
  // Row 1 is the only mask: logits [0, ln 3, ln 3, 0] → probs [1, 3, 3, 1] / 8. The tie
  // between ids 1 and 2 keeps the smaller id first; top_k 9 is clipped to V = 4.
  const float l3 = static_cast<float>(std::log(3.0));
  const Tensor logits({2, 4}, {9, 9, 9, 9, 0, l3, l3, 0});
  const std::vector<int32_t> ids{5, 7};
  const auto got = fill_mask(logits.view(), ids, 7, 9);
  REQUIRE(got.size() == 1);
  CHECK(got[0].position == 1);
  CHECK(got[0].ids == std::vector<int32_t>{1, 2, 0, 3});
  CHECK(got[0].probs[0] == doctest::Approx(3.0 / 8).epsilon(1e-6));
  CHECK(got[0].probs[3] == doctest::Approx(1.0 / 8).epsilon(1e-6));
  // Logits of 1000 do not overflow (max subtracted): probs [1/2, 1/2].
  const Tensor big({1, 2}, {1000, 1000});
  const std::vector<int32_t> one{7};
  CHECK(fill_mask(big.view(), one, 7, 2)[0].probs[1] == doctest::Approx(0.5));
  CHECK(fill_mask(logits.view(), std::vector<int32_t>{5, 5}, 7, 3).empty());  // no mask: nothing
  CHECK_THROWS_WITH_AS(fill_mask(logits.view(), one, 7, 3), doctest::Contains("fill_mask: logits [2, 4] for 1 tokens"),
                       Error);
  CHECK_THROWS_WITH_AS(fill_mask(logits.view(), ids, 7, 0), doctest::Contains("top_k must be at least 1"), Error);
}

TEST_CASE("checkpoint mlm: BertForPreTraining-style file (F16, gamma/beta, decoder copies, NSP head)") {
  // Like bert-base-uncased's: cls.predictions.decoder.{weight,bias} stored beside the
  // embeddings and cls.predictions.bias, plus the pooler and cls.seq_relationship.
  const LoadedModel m = load_model_dir(checkpoint_dir("bert_mlm_tiny_f16"));
  CHECK(m.config().encoder_head == EncoderHead::masked_lm);
  CHECK_FALSE(m.weights().mlm_decoder.empty());  // the stored decoder.weight is used
  std::vector<std::string> unused = m.report.unused_allowed;
  std::sort(unused.begin(), unused.end());
  CHECK(unused == std::vector<std::string>{"bert.pooler.dense.bias", "bert.pooler.dense.weight",
                                           "cls.predictions.decoder.bias", "cls.seq_relationship.bias",
                                           "cls.seq_relationship.weight"});
  const nlohmann::json want = read_json(checkpoint_dir("bert_mlm_tiny_f16") + "/expected.json");
  const ForwardResult r = run(m, want);
  // The reference ran on the F16-rounded weights: the same f32 tolerance applies.
  const double d = max_abs_diff(r.logits, want["logits"]);
  MESSAGE("BERT MLM F16 logits vs the reference on F16 weights, max abs diff: ", d);
  CHECK(d < kLogitTol);
  // Against the F32 golden: F16 weights move logits of size ~5 by ~1e-2.
  const nlohmann::json f32 = read_json(checkpoint_dir("bert_mlm_tiny") + "/expected.json");
  const double d32 = max_abs_diff(r.logits, f32["logits"]);
  MESSAGE("BERT MLM F16 vs F32 golden logits, max abs diff: ", d32);
  CHECK(d32 < 5e-2);
  CHECK(d32 > 0.0);
}

TEST_CASE("checkpoint mlm: names without the bert. prefix bind the same (bit-identical logits)") {
  const LoadedModel a = load_model_dir(checkpoint_dir("bert_mlm_tiny"));
  const LoadedModel b = load_edited("bert_mlm_tiny", [](const io::SafeTensors& st, const io::TensorEntry& e,
                                                        io::SafeTensorsWriter& w) {
    if (!e.name.starts_with("bert.")) return false;
    const auto bytes = st.bytes(e);
    w.add_raw(e.name.substr(5), e.dtype, e.shape, bytes.data(), bytes.size());
    return true;
  });
  CHECK(b.config().encoder_head == EncoderHead::masked_lm);
  const nlohmann::json want = read_json(checkpoint_dir("bert_mlm_tiny") + "/expected.json");
  const ForwardResult ra = run(a, want), rb = run(b, want);
  REQUIRE(ra.logits.shape == rb.logits.shape);
  CHECK(ra.logits.data == rb.logits.data);
}

TEST_CASE("checkpoint mlm: an untied cls.predictions.decoder.weight is used") {
  // decoder.weight = 2·E: logits' = t·(2E)ᵀ + b = 2·(t·Eᵀ + b) − b = 2·logits − b.
  const LoadedModel m = load_edited("bert_mlm_tiny", [](const io::SafeTensors&, const io::TensorEntry&,
                                                        io::SafeTensorsWriter&) { return false; },
                                    [](const io::SafeTensors& st, io::SafeTensorsWriter& w) {
                                      Tensor e = copy_f32(st, *st.find("bert.embeddings.word_embeddings.weight"));
                                      for (float& x : e.data) x *= 2.0f;
                                      w.add_f32("cls.predictions.decoder.weight", e);
                                    });
  CHECK_FALSE(m.weights().mlm_decoder.empty());
  const nlohmann::json want = read_json(checkpoint_dir("bert_mlm_tiny") + "/expected.json");
  const ForwardResult r = run(m, want);
  const io::SafeTensors st =
      io::SafeTensors::parse(io::read_file(checkpoint_dir("bert_mlm_tiny") + "/model.safetensors"));
  const TensorView bias = st.f32("cls.predictions.bias");
  std::vector<double> gold;
  Shape shape;
  testing::flatten(want["logits"], gold, shape);
  const int64_t V = shape[1];
  double worst = 0;
  for (size_t i = 0; i < gold.size(); ++i)
    worst = std::max(worst, std::fabs(r.logits.data[i] - (2 * gold[i] - bias.data[i % V])));
  CHECK(worst < 2 * kLogitTol);
}

TEST_CASE("checkpoint mlm: a BertModel file (no cls.*) still gives hidden states only") {
  const LoadedModel m = load_edited("bert_mlm_tiny", [](const io::SafeTensors&, const io::TensorEntry& e,
                                                        io::SafeTensorsWriter&) { return e.name.starts_with("cls."); });
  CHECK(m.config().encoder_head == EncoderHead::none);
  const nlohmann::json want = read_json(checkpoint_dir("bert_mlm_tiny") + "/expected.json");
  const ForwardResult r = run(m, want);
  CHECK(r.logits.empty());
  CHECK(max_abs_diff(r.hidden, want["hidden"]) < 1e-4);
  const std::vector<int32_t> ids = want["input_ids"].get<std::vector<int32_t>>();
  CHECK_THROWS_WITH_AS(fill_mask_forward(m.config(), m.weights(), ids, {}, {}, 4, 5),
                       doctest::Contains("an encoder without a head"), Error);
}

TEST_CASE("checkpoint mlm: a broken head is an error naming the tensor") {
  using Entry = io::TensorEntry;
  // Wrong shape: transform.dense.weight (C, C+1) instead of (C, C).
  std::string e = load_error("bert_mlm_tiny", [](const io::SafeTensors&, const Entry& t, io::SafeTensorsWriter& w) {
    if (t.name != "cls.predictions.transform.dense.weight") return false;
    w.add_f32(t.name, Tensor({16, 17}));
    return true;
  });
  CHECK(e.find("tensor 'cls.predictions.transform.dense.weight' (role mlm.transform.weight) has shape [16, 17], "
               "expected [16, 16]") != std::string::npos);
  // Wrong vocabulary size for the bias.
  e = load_error("bert_mlm_tiny", [](const io::SafeTensors&, const Entry& t, io::SafeTensorsWriter& w) {
    if (t.name != "cls.predictions.bias") return false;
    w.add_f32(t.name, Tensor({39}));
    return true;
  });
  CHECK(e.find("tensor 'cls.predictions.bias' (role mlm.bias) has shape [39], expected [40]") != std::string::npos);
  // A head with a part missing.
  e = load_error("bert_mlm_tiny", [](const io::SafeTensors&, const Entry& t, io::SafeTensorsWriter&) {
    return t.name == "cls.predictions.transform.LayerNorm.weight";
  });
  CHECK(e.find("missing tensor 'cls.predictions.transform.LayerNorm.weight' (role mlm.norm.gamma)") !=
        std::string::npos);
  // An untied decoder of the wrong shape.
  e = load_error("bert_mlm_tiny", [](const io::SafeTensors&, const Entry&, io::SafeTensorsWriter&) { return false; },
                 [](const io::SafeTensors&, io::SafeTensorsWriter& w) {
                   w.add_f32("cls.predictions.decoder.weight", Tensor({40, 8}));
                 });
  CHECK(e.find("tensor 'cls.predictions.decoder.weight' (role mlm.decoder.weight) has shape [40, 8], expected "
               "[40, 16]") != std::string::npos);
  // decoder.bias beside cls.predictions.bias but different: ambiguous, refused by name.
  e = load_error("bert_mlm_tiny", [](const io::SafeTensors&, const Entry&, io::SafeTensorsWriter&) { return false; },
                 [](const io::SafeTensors&, io::SafeTensorsWriter& w) {
                   w.add_f32("cls.predictions.decoder.bias", Tensor({40}));
                 });
  CHECK(e.find("tensor 'cls.predictions.decoder.bias' [40] differs from cls.predictions.bias") != std::string::npos);
  // The same copy but equal is fine (HF saves both names for one tied vector).
  const LoadedModel ok = load_edited("bert_mlm_tiny",
                                     [](const io::SafeTensors&, const Entry&, io::SafeTensorsWriter&) { return false; },
                                     [](const io::SafeTensors& st, io::SafeTensorsWriter& w) {
                                       w.add_f32("cls.predictions.decoder.bias",
                                                 copy_f32(st, *st.find("cls.predictions.bias")));
                                     });
  CHECK(ok.report.unused_allowed == std::vector<std::string>{"cls.predictions.decoder.bias"});
}

TEST_CASE("checkpoint mlm: the WordPiece tokenizer keeps [MASK] whole (added special token)") {
  // tokenizer.json lists [MASK] in added_tokens (special, not normalised): it is matched
  // in the raw text before lowercasing and splitting, even glued to words; "[mask]" is
  // not it (HF the same: the added token is case-sensitive) and splits as punctuation.
  const LoadedModel m = load_model_dir(checkpoint_dir("bert_mlm_tiny"));
  REQUIRE(m.tokenizer);
  const Encoding a = m.tokenizer->encode("the[MASK]cat");
  CHECK(a.tokens == std::vector<std::string>{"[CLS]", "the", "[MASK]", "cat", "[SEP]"});
  CHECK(a.special_mask == std::vector<uint8_t>{1, 0, 1, 0, 1});
  const Encoding b = m.tokenizer->encode("the [mask] cat");
  CHECK(b.ids == std::vector<int32_t>{2, 5, 1, 1, 1, 6, 3});  // [ mask ] → [UNK] × 3
}

TEST_CASE("checkpoint mlm: bert-base-uncased's config.json parses (fields HF writes that we do not use are ignored)") {
  // The published file, verbatim (transformers 4.6 era).
  const std::string text = R"({"architectures": ["BertForMaskedLM"], "attention_probs_dropout_prob": 0.1,
    "gradient_checkpointing": false, "hidden_act": "gelu", "hidden_dropout_prob": 0.1, "hidden_size": 768,
    "initializer_range": 0.02, "intermediate_size": 3072, "layer_norm_eps": 1e-12, "max_position_embeddings": 512,
    "model_type": "bert", "num_attention_heads": 12, "num_hidden_layers": 12, "pad_token_id": 0,
    "position_embedding_type": "absolute", "transformers_version": "4.6.0.dev0", "type_vocab_size": 2,
    "use_cache": true, "vocab_size": 30522})";
  const ParsedConfig p = parse_config_json(text);
  CHECK(p.family == CheckpointFamily::bert);
  const ModelConfig& c = p.config;
  CHECK(c.d_model == 768);
  CHECK(c.n_heads == 12);
  CHECK(c.n_encoder_layers == 12);
  CHECK(c.d_ff == 3072);
  CHECK(c.vocab_size == 30522);
  CHECK(c.max_positions == 512);
  CHECK(c.activation == nn::Activation::gelu_erf);  // HF "gelu" is the exact (erf) GELU
  CHECK(c.layer_norm_eps == 1e-12f);
  // The head is decided by the weights file, not by "architectures".
  CHECK(c.encoder_head == EncoderHead::none);
}
