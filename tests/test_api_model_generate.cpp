// Step-wise generation (model/generate.h, tfp_generator_*) and encoder–decoder decoding
// (model/beam.h, tfp_model_translate).
// Oracles: model::generate (the loop `tfp generate` runs) — the step-wise generator must
// give the same ids and probabilities exactly; the golden greedy continuation of
// gen_checkpoints.py (Hugging Face, recomputed without a cache); for decoding, a greedy
// loop written here over full teacher-forced passes (no KV cache), and an exhaustive
// enumeration of every output up to length 3 over a 5-token vocabulary, which beam
// search with a beam wider than the number of sequences must find (scores to 1e-9).
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "api/tfp_api.h"
#include "model/beam.h"
#include "model/generate.h"
#include "model/model.h"
#include "model/weights.h"
#include "test_api_params.h"
#include "test_checkpoint_util.h"

using namespace tfp;
using namespace tfp::model;

TEST_CASE("api generate: the step-wise generator equals model::generate, sampled and greedy") {
  const LoadedModel m = load_model_dir(testing::checkpoint_dir("gpt2_tiny"));
  const std::vector<int32_t> prompt = m.tokenizer->encode("Hello world").ids;
  struct Case { float t; int k; float p; uint64_t seed; };
  for (const Case c : {Case{1.0f, 0, 1.0f, 1}, Case{0.7f, 5, 1.0f, 2}, Case{1.3f, 0, 0.9f, 3}, Case{0.0f, 0, 1.0f, 0}}) {
    GenerateOptions g;
    g.max_tokens = 12;
    g.sampling = {c.t, c.k, c.p};
    g.seed = c.seed;
    g.eos_token_ids = m.eos_token_ids;
    const GenerateResult want = generate(m.config(), m.weights(), prompt, g);

    GeneratorOptions o;
    o.max_tokens = 12;
    o.sampling = g.sampling;
    o.seed = c.seed;
    o.stop_ids = {static_cast<int32_t>(m.eos_token_id)};
    Generator gen(m.config(), m.weights(), prompt, o);
    std::vector<GeneratedToken> got;
    while (auto s = gen.next()) {
      got.push_back({s->id, s->prob});
      REQUIRE(!s->top.empty());
      CHECK(s->top[0].second >= s->prob);  // the most probable is at least the chosen one
    }
    REQUIRE(got.size() == want.tokens.size());
    for (size_t i = 0; i < got.size(); ++i) {
      CHECK(got[i].id == want.tokens[i].id);
      CHECK(got[i].prob == want.tokens[i].prob);
    }
    CHECK(gen.reason() == want.reason);
  }
}

TEST_CASE("api generate: tfp_generator_* steps, stops, and its text pieces add up to the decoded output") {
  tfp_model* m = testing::open_through_api(testing::checkpoint_dir("gpt2_tiny"), "gpt2_tiny");
  const nlohmann::json want = testing::read_json(testing::checkpoint_dir("gpt2_tiny") + "/expected.json");
  const std::vector<int32_t> prompt = testing::json_list<int32_t>(want["greedy_prompt"]);
  const std::vector<int32_t> cont = testing::json_list<int32_t>(want["greedy_continuation"]);

  // Greedy, no stop ids: the golden continuation.
  tfp_generator* g = nullptr;
  REQUIRE(tfp_generator_create(m,
                               tfp::testing::params(tfp_generator_params{.prompt = prompt.data(),
                                                                         .n = static_cast<int>(prompt.size()),
                                                                         .max_tokens = static_cast<int>(cont.size()),
                                                                         .temperature = 0.0f,
                                                                         .top_k = 0,
                                                                         .top_p = 1.0f,
                                                                         .seed = 0,
                                                                         .stop_ids = nullptr,
                                                                         .n_stop = 0,
                                                                         .top_n = 3}),
                               &g) == TFP_OK);
  tfp_model_free(m);  // the generator keeps the weights alive
  m = nullptr;
  std::vector<int32_t> ids;
  std::string text;
  int done = 0;
  for (;;) {
    int32_t id = -1;
    float p = 0;
    REQUIRE(tfp_generator_next(g, &id, &p, &done) == TFP_OK);
    if (done) break;
    ids.push_back(id);
    text += tfp_generator_text(g);
    int32_t top_ids[3];
    float top_p[3];
    REQUIRE(tfp_generator_top(g, top_ids, top_p, 3) == 3);
    CHECK(top_ids[0] == id);  // greedy takes the most probable
    CHECK(top_p[0] == p);
    CHECK(top_p[1] <= top_p[0]);
  }
  CHECK(ids == cont);
  CHECK(std::string(tfp_generator_stop_reason(g)) == "max_tokens");
  tfp_generator_free(g);

  tfp_model_free(m);  // a fresh handle decodes the generated ids to the same text
  m = testing::open_through_api(testing::checkpoint_dir("gpt2_tiny"), "gpt2_tiny");
  CHECK(text == std::string(tfp_model_decode(m, ids.data(), static_cast<int>(ids.size()), 1)));

  // Bad options are errors with messages; a prompt past the context too.
  CHECK(tfp_generator_create(m,
                             tfp::testing::params(tfp_generator_params{.prompt = prompt.data(),
                                                                       .n = 1,
                                                                       .max_tokens = 5,
                                                                       .temperature = -1.0f,
                                                                       .top_k = 0,
                                                                       .top_p = 1.0f,
                                                                       .seed = 0,
                                                                       .stop_ids = nullptr,
                                                                       .n_stop = -1,
                                                                       .top_n = 0}),
                             &g) == TFP_ERR_ENGINE);
  CHECK(std::string(tfp_last_error()).find("temperature") != std::string::npos);
  const std::vector<int32_t> long_prompt(40, 7);
  CHECK(tfp_generator_create(m,
                             tfp::testing::params(tfp_generator_params{.prompt = long_prompt.data(),
                                                                       .n = 40,
                                                                       .max_tokens = 5,
                                                                       .temperature = 1.0f,
                                                                       .top_k = 0,
                                                                       .top_p = 1.0f,
                                                                       .seed = 0,
                                                                       .stop_ids = nullptr,
                                                                       .n_stop = -1,
                                                                       .top_n = 0}),
                             &g) == TFP_ERR_ENGINE);
  CHECK(std::string(tfp_last_error()).find("context") != std::string::npos);
  CHECK(g == nullptr);
  tfp_model_free(m);
}

namespace {

ModelConfig seq2seq_config(int64_t V) {
  ModelConfig c;
  c.architecture = Architecture::encoder_decoder;
  c.family = "tfp";
  c.d_model = 16;
  c.n_heads = 2;
  c.n_encoder_layers = 1;
  c.n_decoder_layers = 2;
  c.d_ff = 32;
  c.vocab_size = V;
  c.max_positions = 16;
  c.positional = Positional::learned;
  c.decoder_final_norm = true;
  c.encoder_final_norm = true;
  return c;
}

std::vector<double> log_probs_full(const ModelConfig& c, const ModelWeights& w, const std::vector<int32_t>& src,
                                   const std::vector<int32_t>& tgt) {
  const ForwardResult r = forward_encoder_decoder(c, w, src, tgt);
  const int64_t V = r.logits.dim(-1);
  const float* z = r.logits.row(r.logits.dim(0) - 1);
  double mx = z[0], s = 0;
  for (int64_t i = 1; i < V; ++i) mx = std::max(mx, static_cast<double>(z[i]));
  for (int64_t i = 0; i < V; ++i) s += std::exp(z[i] - mx);
  std::vector<double> lp(static_cast<size_t>(V));
  for (int64_t i = 0; i < V; ++i) lp[static_cast<size_t>(i)] = z[i] - mx - std::log(s);
  return lp;
}

}  // namespace

TEST_CASE("api generate: greedy decoding equals argmax over full passes; beam search finds the best sequence") {
  const int64_t V = 5;
  const ModelConfig c = seq2seq_config(V);
  const ModelWeights w = random_weights(c, 11, 0.6f, true);
  const std::vector<int32_t> src = {1, 3, 2, 4};
  const int32_t start = 0, eos = 1;

  // Greedy: argmax of full teacher-forced passes, no cache.
  std::vector<int32_t> tgt{start}, want;
  for (int step = 0; step < 6; ++step) {
    const std::vector<double> lp = log_probs_full(c, w, src, tgt);
    const int32_t id = static_cast<int32_t>(std::max_element(lp.begin(), lp.end()) - lp.begin());
    want.push_back(id);
    tgt.push_back(id);
    if (id == eos) break;
  }
  DecodeOptions opt;
  opt.start_id = start;
  opt.eos_id = eos;
  opt.max_tokens = 6;
  const Translation greedy = decode_seq2seq(c, w, src, opt);
  CHECK(greedy.ids == want);
  const int64_t T = static_cast<int64_t>(greedy.ids.size());
  CHECK(greedy.alignment.shape == Shape{T, 4});
  REQUIRE(greedy.cross_probs.size() == 2);
  CHECK(greedy.cross_probs[1].shape == Shape{2, T, 4});
  for (int64_t t = 0; t < T; ++t) {
    double s = 0;
    for (int64_t j = 0; j < 4; ++j) s += greedy.alignment.data[static_cast<size_t>(t * 4 + j)];
    CHECK(std::fabs(s - 1) < 1e-5);
  }

  // Exhaustive: every sequence of length <= 3 that ends in eos, or has length 3.
  const int L = 3;
  double best = -INFINITY;
  std::vector<int32_t> best_ids;
  std::function<void(std::vector<int32_t>&, double)> walk = [&](std::vector<int32_t>& out, double lp_sum) {
    std::vector<int32_t> in{start};
    in.insert(in.end(), out.begin(), out.end());
    const std::vector<double> lp = log_probs_full(c, w, src, in);
    for (int32_t id = 0; id < V; ++id) {
      out.push_back(id);
      const double total = lp_sum + lp[static_cast<size_t>(id)];
      if (id == eos || static_cast<int>(out.size()) == L) {
        const double score = total / static_cast<double>(out.size());
        if (score > best) { best = score; best_ids = out; }
      } else {
        walk(out, total);
      }
      out.pop_back();
    }
  };
  std::vector<int32_t> scratch;
  walk(scratch, 0.0);
  opt.max_tokens = L;
  opt.beam_size = 200;  // > 5^3 sequences: nothing is pruned
  const Translation beam = decode_seq2seq(c, w, src, opt);
  CHECK(beam.ids == best_ids);
  // The beams run one-row decode steps, the exhaustive walk full passes: different kernels,
  // whose float sums may round differently (a few 1e-8 here), never by 1e-6.
  CHECK(std::fabs(beam.score - best) < 1e-6);
  // A beam of 1 is greedy.
  opt.beam_size = 1;
  opt.max_tokens = 6;
  CHECK(decode_seq2seq(c, w, src, opt).ids == want);
  // Bad options name themselves.
  opt.beam_size = 0;
  CHECK_THROWS_WITH_AS(decode_seq2seq(c, w, src, opt), doctest::Contains("beam_size"), Error);
}

TEST_CASE("api generate: tfp_model_translate on a random encoder-decoder model") {
  const std::string config = config_to_json(seq2seq_config(264));
  const std::string tok = io::read_text_file(testing::checkpoint_dir("gpt2_tiny") + "/tokenizer.json");
  tfp_model* m = nullptr;
  REQUIRE(tfp_model_create_random(config.data(), config.size(), tok.data(), tok.size(), 5, &m) == TFP_OK);
  const nlohmann::json info = nlohmann::json::parse(tfp_model_info_json(m));
  CHECK(info["architecture"] == "encoder_decoder");
  const int32_t src[3] = {10, 20, 30};
  int32_t out[32];
  int n = -1;
  tfp_tensors* al = nullptr;
  REQUIRE(
      tfp_model_translate(m,
                          tfp::testing::params(tfp_translate_params{
                              .src_ids = src, .n = 3, .beam_size = 3, .max_tokens = 5, .start_id = 263, .eos_id = 263}),
                          out, 32, &n, &al) == TFP_OK);
  CHECK(n >= 1);
  CHECK(n <= 5);
  const int i = tfp_tensors_find(al, "alignment");
  REQUIRE(i >= 0);
  CHECK(tfp_tensors_dims(al, i)[0] == n);
  CHECK(tfp_tensors_dims(al, i)[1] == 3);
  CHECK(tfp_tensors_find(al, "dec.1.cross.probs") >= 0);
  tfp_tensors_free(al);
  al = nullptr;
  CHECK(
      tfp_model_translate(m,
                          tfp::testing::params(tfp_translate_params{
                              .src_ids = src, .n = 3, .beam_size = 3, .max_tokens = 5, .start_id = 263, .eos_id = 263}),
                          out, 0, &n, &al) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(tfp_last_error()).find("capacity") != std::string::npos);
  // Defaults: start from the tokenizer's bos; this config names no eos, so no stop: 5 tokens.
  REQUIRE(
      tfp_model_translate(m,
                          tfp::testing::params(tfp_translate_params{
                              .src_ids = src, .n = 3, .beam_size = 1, .max_tokens = 5, .start_id = -1, .eos_id = -1}),
                          out, 32, &n, &al) == TFP_OK);
  CHECK(n == 5);
  tfp_tensors_free(al);
  tfp_model_free(m);
}
