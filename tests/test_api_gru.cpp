// The recurrent encoder–decoder (models/numbers-gru) through the C API: tfp_model_load,
// the info JSON, tokenize, forward, translate (greedy and beam) and the refusals.
//
// Oracles:
//   - the native recipe's decoding: model::gru_greedy_decode on the folder loaded with
//     model::load_gru_seq2seq_dir — what `tfp train numbers-gru` scores after export and
//     what test_seq_models.cpp checks — on a fixed held-out slice (NumbersTask(1)
//     .held_out_set, values never trained on). The same ids exactly; the attention rows
//     to 1e-6 (the same float operations in the same order: equal in practice).
//   - the task's answer (the digits of the value) for exact match (>= 96 of 100, the
//     bound test_seq_models.cpp uses; measured 100).
//   - a softmax row sums to 1 (1e-5, float over <= 72 terms).
//   - scores: Σ log p of the output over its length, recomputed here in double from
//     tfp_model_forward's teacher-forced logits; beam 4's score must be at least greedy's
//     (1e-9) — on this slice; beam search is not guaranteed to beat greedy in general.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

#include "api/tfp_api.h"
#include "io/file.h"
#include "model/gru_seq2seq.h"
#include "train/seq_numbers.h"
#include "test_api_params.h"

using namespace tfp;

namespace {

const std::string kGruDir = std::string(TFP_FIXTURES_DIR) + "/../../models/numbers-gru";

struct GruFiles {
  std::string config = io::read_text_file(kGruDir + "/config.json");
  std::vector<uint8_t> weights = io::read_file(kGruDir + "/model.safetensors");
  std::string tokenizer = io::read_text_file(kGruDir + "/tokenizer.json");
};

// Through the staged path the page's worker uses (weights written into the buffer).
tfp_model* load_staged(const GruFiles& f) {
  tfp_model_files* files = nullptr;
  REQUIRE(tfp_model_files_create(f.weights.size(), &files) == TFP_OK);
  std::copy(f.weights.begin(), f.weights.end(), tfp_model_files_weights(files));
  REQUIRE(tfp_model_files_set_config(files, f.config.data(), f.config.size()) == TFP_OK);
  REQUIRE(tfp_model_files_set_tokenizer(files, f.tokenizer.data(), f.tokenizer.size()) == TFP_OK);
  REQUIRE(tfp_model_files_set_name(files, "numbers-gru") == TFP_OK);
  tfp_model* m = nullptr;
  const int rc = tfp_model_load(files, &m);
  tfp_model_files_free(files);
  REQUIRE_MESSAGE(rc == TFP_OK, tfp_last_error());
  return m;
}

std::vector<int32_t> api_tokenize(tfp_model* m, const std::string& text) {
  tfp_encoding* e = nullptr;
  REQUIRE(tfp_model_tokenize(m, text.data(), text.size(), 1, &e) == TFP_OK);
  std::vector<int32_t> ids(tfp_encoding_ids(e), tfp_encoding_ids(e) + tfp_encoding_count(e));
  tfp_encoding_free(e);
  return ids;
}

struct ApiTranslation {
  std::vector<int32_t> ids;
  Tensor alignment, cross;  // (T, S), (1, T, S)
};

Tensor take(tfp_tensors* list, const char* name) {
  const int i = tfp_tensors_find(list, name);
  REQUIRE_MESSAGE(i >= 0, name);
  Shape shape(tfp_tensors_dims(list, i), tfp_tensors_dims(list, i) + tfp_tensors_rank(list, i));
  Tensor t(shape);
  std::copy(tfp_tensors_data(list, i), tfp_tensors_data(list, i) + t.numel(), t.ptr());
  return t;
}

ApiTranslation api_translate(tfp_model* m, const std::vector<int32_t>& src, int beam) {
  int32_t out[64];
  int n = -1;
  tfp_tensors* al = nullptr;
  REQUIRE_MESSAGE(tfp_model_translate(m,
                                      tfp::testing::params(tfp_translate_params{.src_ids = src.data(),
                                                                                .n = static_cast<int>(src.size()),
                                                                                .beam_size = beam,
                                                                                .max_tokens = 0,
                                                                                .start_id = -1,
                                                                                .eos_id = -1}),
                                      out, 64, &n, &al) == TFP_OK,
                  tfp_last_error());
  ApiTranslation r{{out, out + n}, take(al, "alignment"), take(al, "dec.0.cross.probs")};
  CHECK(tfp_tensors_count(al) == 2);
  tfp_tensors_free(al);
  return r;
}

// Σ log p(ids[t]) / T from the teacher-forced logits of tfp_model_forward, in double.
double api_score(tfp_model* m, const std::vector<int32_t>& src, const std::vector<int32_t>& ids) {
  std::vector<int32_t> tgt{train::NumbersTask::kStart};
  tgt.insert(tgt.end(), ids.begin(), ids.end() - 1);
  tfp_tensors* list = nullptr;
  REQUIRE(tfp_model_forward(m,
                            tfp::testing::params(tfp_forward_params{.ids = src.data(),
                                                                    .n = static_cast<int>(src.size()),
                                                                    .tgt_ids = tgt.data(),
                                                                    .n_tgt = static_cast<int>(tgt.size())}),
                            &list) == TFP_OK);
  const Tensor logits = take(list, "logits");  // (T, V)
  tfp_tensors_free(list);
  double sum = 0;
  for (size_t t = 0; t < ids.size(); ++t) {
    const float* z = logits.row(static_cast<int64_t>(t));
    const int64_t V = logits.dim(-1);
    double mx = z[0], s = 0;
    for (int64_t v = 1; v < V; ++v) mx = std::max<double>(mx, z[v]);
    for (int64_t v = 0; v < V; ++v) s += std::exp(z[v] - mx);
    sum += z[ids[t]] - mx - std::log(s);
  }
  return sum / static_cast<double>(ids.size());
}

std::string digits_of(const std::vector<int32_t>& ids) {
  std::string s;
  for (int32_t id : ids)
    if (id != train::NumbersTask::kEnd) s += train::NumbersTask::character(id);
  return s;
}

std::string last_error() { return tfp_last_error(); }

}  // namespace

TEST_CASE("api gru: numbers-gru loads through tfp_model_load and describes itself") {
  const GruFiles f;
  tfp_model* m = load_staged(f);
  const nlohmann::json info = nlohmann::json::parse(tfp_model_info_json(m));
  CHECK(info["architecture"] == "encoder_decoder");
  CHECK(info["model_type"] == "tfp_gru_seq2seq");
  CHECK(info["self_attention"] == false);
  CHECK(info["head"] == "lm");  // "logits" are the decoder's next-token logits
  CHECK(info["recurrent"]["cell"] == "gru");
  CHECK(info["recurrent"]["attention"] == "additive");
  CHECK(info["recurrent"]["bidirectional_encoder"] == true);
  // As the inspector sees it: one cross-attention "layer" with one head, no encoder layers.
  CHECK(info["n_heads"] == 1);
  CHECK(info["n_decoder_layers"] == 1);
  CHECK(info["n_encoder_layers"] == 0);
  CHECK(info["parameters"] == 193187);  // the model card's count
  CHECK(info["decoder_start_token_id"] == train::NumbersTask::kStart);
  CHECK(info["eos_token_id"] == train::NumbersTask::kEnd);
  CHECK(info["max_positions"] == train::NumbersTask::kMaxSource);
  CHECK(info["tokenizer"]["vocab_size"] == 67);
  // A Transformer says the opposite.
  tfp_model_free(m);
  // The convenience loader takes it too.
  REQUIRE(tfp_model_load_buffers(f.config.data(), f.config.size(), f.weights.data(), f.weights.size(),
                                 f.tokenizer.data(), f.tokenizer.size(), "numbers-gru", &m) == TFP_OK);
  CHECK(std::string(tfp_model_info_json(m)).find("\"tfp_gru_seq2seq\"") != std::string::npos);
  CHECK(std::string(tfp_model_id_to_token(m, 57)) == "0");
  const int32_t ids[3] = {60, 61, 59};
  CHECK(std::string(tfp_model_decode(m, ids, 3, 1)) == "342");
  tfp_model_free(m);
}

TEST_CASE("api gru: translate equals the native recipe's decoding on held-out examples") {
  const GruFiles f;
  tfp_model* m = load_staged(f);
  const model::GruSeq2SeqModel native = model::load_gru_seq2seq_dir(kGruDir);
  const std::vector<train::NumberExample> set = train::NumbersTask(1).held_out_set(100);
  int exact = 0, beam_exact = 0;
  double worst_alignment = 0;
  for (const train::NumberExample& e : set) {
    const std::vector<int32_t> src = api_tokenize(m, e.source);
    REQUIRE(src == native.tokenizer->encode(e.source).ids);
    const model::GruDecodeResult want = model::gru_greedy_decode(native, src);
    const ApiTranslation g = api_translate(m, src, 1);
    REQUIRE(g.ids == want.ids);
    exact += digits_of(g.ids) == e.target;
    const int64_t T = static_cast<int64_t>(g.ids.size()), S = static_cast<int64_t>(src.size());
    REQUIRE(g.alignment.shape == Shape{T, S});
    REQUIRE(g.cross.shape == Shape{1, T, S});
    for (int64_t i = 0; i < T * S; ++i) {
      worst_alignment = std::max<double>(worst_alignment, std::fabs(g.alignment.data[i] - want.attention.data[i]));
      CHECK(g.cross.data[i] == g.alignment.data[i]);  // one head: the same map
    }
    for (int64_t t = 0; t < T; ++t) {
      double sum = 0;
      for (int64_t j = 0; j < S; ++j) sum += g.alignment.row(t)[j];
      CHECK(sum == doctest::Approx(1.0).epsilon(1e-5));
    }
    // Beam search (the Transformer's search, model/beam.h) finds an output at least as
    // probable per token as greedy's.
    const ApiTranslation b = api_translate(m, src, 4);
    beam_exact += digits_of(b.ids) == e.target;
    const double gs = api_score(m, src, g.ids), bs = api_score(m, src, b.ids);
    CHECK(bs >= gs - 1e-9);
    // ... and the search's own score is that same number (float logits, double sums).
    const model::Translation bt = model::gru_translate(native, src, {.beam_size = 4});
    CHECK(bt.ids == b.ids);
    CHECK(bt.score == doctest::Approx(bs).epsilon(1e-5));
  }
  MESSAGE("numbers-gru via the C API on 100 held-out: greedy ", exact, ", beam-4 ", beam_exact,
          ", worst alignment difference vs gru_greedy_decode ", worst_alignment);
  CHECK(worst_alignment <= 1e-6);
  CHECK(exact >= 96);  // measured 100
  CHECK(beam_exact >= 96);
  tfp_model_free(m);
}

TEST_CASE("api gru: forward is teacher forcing with the alignment as dec.0.cross.probs") {
  const GruFiles f;
  tfp_model* m = load_staged(f);
  const model::GruSeq2SeqModel native = model::load_gru_seq2seq_dir(kGruDir);
  const std::vector<int32_t> src = api_tokenize(m, "three hundred and forty-two");
  const ApiTranslation g = api_translate(m, src, 1);
  CHECK(digits_of(g.ids) == "342");
  std::vector<int32_t> tgt{train::NumbersTask::kStart};
  tgt.insert(tgt.end(), g.ids.begin(), g.ids.end() - 1);
  tfp_tensors* list = nullptr;
  REQUIRE(tfp_model_forward(m,
                            tfp::testing::params(tfp_forward_params{.ids = src.data(),
                                                                    .n = static_cast<int>(src.size()),
                                                                    .tgt_ids = tgt.data(),
                                                                    .n_tgt = static_cast<int>(tgt.size()),
                                                                    .want_attention = 1}),
                            &list) == TFP_OK);
  // logits, hidden, their summaries, dec.0.cross.probs: no self-attention maps
  CHECK(tfp_tensors_count(list) == 5);
  const Tensor logits = take(list, "logits"), hidden = take(list, "hidden"), cross = take(list, "dec.0.cross.probs");
  const Tensor argmax = take(list, "argmax");
  tfp_tensors_free(list);
  const int64_t T = static_cast<int64_t>(tgt.size()), S = static_cast<int64_t>(src.size());
  CHECK(logits.shape == Shape{T, 67});
  CHECK(hidden.shape == Shape{T, 128});
  REQUIRE(cross.shape == Shape{1, T, S});
  // The argmax of each row is the greedy output; the map is translate's alignment.
  for (int64_t t = 0; t < T; ++t) {
    const float* z = logits.row(t);
    CHECK(std::max_element(z, z + 67) - z == g.ids[static_cast<size_t>(t)]);
    CHECK(argmax.data[static_cast<size_t>(t)] == float(g.ids[static_cast<size_t>(t)]));
  }
  for (int64_t i = 0; i < T * S; ++i) CHECK(cross.data[i] == doctest::Approx(g.alignment.data[i]).epsilon(1e-6));
  const model::GruForwardResult want = model::gru_forward(native, src, tgt);
  CHECK(hidden.data == want.states.data);
  // Without want_attention: no map.
  REQUIRE(tfp_model_forward(m,
                            tfp::testing::params(tfp_forward_params{.ids = src.data(),
                                                                    .n = static_cast<int>(src.size()),
                                                                    .tgt_ids = tgt.data(),
                                                                    .n_tgt = static_cast<int>(tgt.size())}),
                            &list) == TFP_OK);
  CHECK(tfp_tensors_find(list, "dec.0.cross.probs") < 0);
  tfp_tensors_free(list);
  tfp_model_free(m);
}

TEST_CASE("api gru: operations that do not apply, and bad inputs, give statuses and messages") {
  const GruFiles f;
  tfp_model* m = load_staged(f);
  const std::vector<int32_t> src = api_tokenize(m, "seven");
  const int S = static_cast<int>(src.size());
  const int32_t start[1] = {train::NumbersTask::kStart};

  // Decoder-only generation: refused by name, the model stays usable.
  tfp_generator* gen = nullptr;
  CHECK(tfp_generator_create(m,
                             tfp::testing::params(tfp_generator_params{.prompt = src.data(),
                                                                       .n = S,
                                                                       .max_tokens = 5,
                                                                       .temperature = 0,
                                                                       .top_k = 0,
                                                                       .top_p = 1,
                                                                       .seed = 0,
                                                                       .stop_ids = nullptr,
                                                                       .n_stop = -1,
                                                                       .top_n = 0}),
                             &gen) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(gen == nullptr);
  CHECK(last_error().find("tfp_generator_create") != std::string::npos);
  CHECK(last_error().find("GRU") != std::string::npos);

  tfp_tensors* list = nullptr;
  // Forward needs decoder input; token types / masks are for encoders.
  CHECK(tfp_model_forward(m, tfp::testing::params(tfp_forward_params{.ids = src.data(), .n = S, .want_attention = 1}),
                          &list) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(last_error().find("tgt_ids") != std::string::npos);
  const std::vector<int32_t> ones(src.size(), 1);
  CHECK(tfp_model_forward(m,
                          tfp::testing::params(tfp_forward_params{.ids = src.data(),
                                                                  .n = S,
                                                                  .attention_mask = ones.data(),
                                                                  .tgt_ids = start,
                                                                  .n_tgt = 1,
                                                                  .want_attention = 1}),
                          &list) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(last_error().find("encoder-only") != std::string::npos);
  // Ids outside the vocabulary, in the source and in the decoder input.
  const int32_t bad[2] = {5, 67};
  CHECK(tfp_model_forward(m,
                          tfp::testing::params(tfp_forward_params{
                              .ids = bad, .n = 2, .tgt_ids = start, .n_tgt = 1, .want_attention = 1}),
                          &list) == TFP_ERR_ENGINE);
  CHECK(last_error().find("position 1") != std::string::npos);
  CHECK(tfp_model_forward(m,
                          tfp::testing::params(tfp_forward_params{
                              .ids = src.data(), .n = S, .tgt_ids = bad, .n_tgt = 2, .want_attention = 1}),
                          &list) == TFP_ERR_ENGINE);
  CHECK(last_error().find("67") != std::string::npos);
  CHECK(list == nullptr);
  // A source longer than the model's 72 characters.
  const std::vector<int32_t> longer(73, 5);
  int32_t out[16];
  int n = -1;
  tfp_tensors* al = nullptr;
  CHECK(tfp_model_translate(
            m,
            tfp::testing::params(tfp_translate_params{
                .src_ids = longer.data(), .n = 73, .beam_size = 1, .max_tokens = 0, .start_id = -1, .eos_id = -1}),
            out, 16, &n, &al) == TFP_ERR_ENGINE);
  CHECK(last_error().find("73") != std::string::npos);
  // Bad options and buffers.
  CHECK(tfp_model_translate(
            m,
            tfp::testing::params(tfp_translate_params{
                .src_ids = src.data(), .n = S, .beam_size = 0, .max_tokens = 0, .start_id = -1, .eos_id = -1}),
            out, 16, &n, &al) == TFP_ERR_ENGINE);
  CHECK(last_error().find("beam_size") != std::string::npos);
  CHECK(tfp_model_translate(
            m,
            tfp::testing::params(tfp_translate_params{
                .src_ids = src.data(), .n = S, .beam_size = 1, .max_tokens = 0, .start_id = 500, .eos_id = -1}),
            out, 16, &n, &al) == TFP_ERR_ENGINE);
  CHECK(last_error().find("start token") != std::string::npos);
  CHECK(tfp_model_translate(
            m,
            tfp::testing::params(tfp_translate_params{
                .src_ids = src.data(), .n = S, .beam_size = 1, .max_tokens = -2, .start_id = -1, .eos_id = -1}),
            out, 16, &n, &al) == TFP_ERR_ENGINE);
  CHECK(last_error().find("max_tokens") != std::string::npos);
  CHECK(tfp_model_translate(
            m,
            tfp::testing::params(tfp_translate_params{
                .src_ids = src.data(), .n = S, .beam_size = 1, .max_tokens = 0, .start_id = -1, .eos_id = -1}),
            out, 0, &n, &al) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(last_error().find("capacity") != std::string::npos);
  CHECK(tfp_model_translate(
            m,
            tfp::testing::params(tfp_translate_params{
                .src_ids = src.data(), .n = 0, .beam_size = 1, .max_tokens = 0, .start_id = -1, .eos_id = -1}),
            out, 16, &n, &al) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(al == nullptr);
  // Invalid UTF-8 names the byte.
  tfp_encoding* e = nullptr;
  CHECK(tfp_model_tokenize(m, "seven \xff", 7, 1, &e) == TFP_ERR_ENGINE);
  CHECK(last_error().find("6") != std::string::npos);
  // Still usable: a max_tokens limit stops it early.
  REQUIRE(tfp_model_translate(
              m,
              tfp::testing::params(tfp_translate_params{
                  .src_ids = src.data(), .n = S, .beam_size = 2, .max_tokens = 1, .start_id = -1, .eos_id = -1}),
              out, 16, &n, &al) == TFP_OK);
  CHECK(n == 1);
  CHECK(out[0] == 57 + 7);  // "7"
  tfp_tensors_free(al);
  tfp_model_free(m);

  // Files that do not fit the layout name the tensor; random weights are refused by name.
  GruFiles broken;
  broken.config.replace(broken.config.find("\"embed_dim\": 32"), 15, "\"embed_dim\": 16");
  CHECK(tfp_model_load_buffers(broken.config.data(), broken.config.size(), broken.weights.data(),
                               broken.weights.size(), nullptr, 0, "broken", &m) == TFP_ERR_ENGINE);
  CHECK(m == nullptr);
  CHECK(last_error().find("embed.weight") != std::string::npos);
  CHECK(tfp_model_create_random(f.config.data(), f.config.size(), nullptr, 0, 1, &m) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(last_error().find("tfp_gru_seq2seq") != std::string::npos);
}

TEST_CASE("api gru: a Transformer's info says it has self-attention") {
  const std::string config = "{\"model_type\": \"gpt2\", \"vocab_size\": 10, \"n_embd\": 8, \"n_head\": 2, "
                             "\"n_layer\": 1, \"n_positions\": 8}";
  tfp_model* m = nullptr;
  REQUIRE_MESSAGE(tfp_model_create_random(config.data(), config.size(), nullptr, 0, 1, &m) == TFP_OK, tfp_last_error());
  const nlohmann::json info = nlohmann::json::parse(tfp_model_info_json(m));
  CHECK(info["self_attention"] == true);
  CHECK(!info.contains("recurrent"));
  tfp_model_free(m);
}
