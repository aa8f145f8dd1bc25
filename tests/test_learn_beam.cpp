// Beam search for decoder-only models (model/beam.h beam_generate, the search of
// beam.cpp) and its C API tfp_learn_beam_search (the Learn chapter "Generating text").
// Oracles:
//  - width 1 against greedy generation (model::generate at temperature 0, the same stop
//    ids): the same ids, exactly (both run the prompt once through the cache and then one
//    token per step: the same logits);
//  - every total log-prob the search reports (result and each traced candidate) against a
//    teacher-forced recomputation: forward_decoder_only on prompt + continuation, log
//    softmax in double, summed (tolerance 1e-4: the cached and the full pass differ in
//    summation order, ~1e-6 per logit, summed over <= 8 tokens);
//  - an exhaustive search of every continuation of length L on a random model with V = 5:
//    with width >= V^(L−1) no prefix is ever dropped, so the beam's best equals the
//    exhaustive maximum (1e-4, as above);
//  - a hand-built three-token chain whose greedy path scores 0.5 · 0.25 and whose beam
//    path 0.4 · 0.9 (derivation at the test): width 3 finds the higher total.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "api/tfp_learn_generation_api.h"
#include "model/beam.h"
#include "model/model.h"
#include "model/sampling.h"
#include "model/transformer.h"
#include "model/weights.h"
#include "test_checkpoint_util.h"

using namespace tfp;
using namespace tfp::model;

namespace {

std::string repo_path(const std::string& rel) { return std::string(TFP_FIXTURES_DIR) + "/../../" + rel; }

// log p of each token of `cont` after `prompt`, teacher-forced: one full forward pass,
// log softmax of row (P − 1 + t) in double.
double teacher_forced_log_prob(const ModelConfig& cfg, const ModelWeights& w, const std::vector<int32_t>& prompt,
                               const std::vector<int32_t>& cont) {
  std::vector<int32_t> seq = prompt;
  seq.insert(seq.end(), cont.begin(), cont.end());
  const Tensor logits = forward_decoder_only(cfg, w, seq).logits;  // (P + L, V)
  const int64_t V = logits.dim(-1);
  double total = 0;
  for (size_t t = 0; t < cont.size(); ++t) {
    const float* z = logits.row(static_cast<int64_t>(prompt.size() + t) - 1);
    double mx = z[0];
    for (int64_t i = 1; i < V; ++i) mx = std::max(mx, static_cast<double>(z[i]));
    double s = 0;
    for (int64_t i = 0; i < V; ++i) s += std::exp(z[i] - mx);
    total += z[cont[t]] - mx - std::log(s);
  }
  return total;
}

// Every traced candidate's tokens: its beam's (the previous step's live candidates in rank
// order) plus its own.
std::vector<std::vector<std::vector<int32_t>>> sequences_of(const std::vector<BeamStep>& trace) {
  std::vector<std::vector<std::vector<int32_t>>> out;
  std::vector<std::vector<int32_t>> live{{}};
  for (const BeamStep& st : trace) {
    std::vector<std::vector<int32_t>> seqs, next;
    for (const BeamCandidate& c : st.ranked) {
      REQUIRE(c.beam >= 0);
      REQUIRE(static_cast<size_t>(c.beam) < live.size());
      std::vector<int32_t> s = live[static_cast<size_t>(c.beam)];
      s.push_back(c.token);
      if (c.fate == BeamCandidate::Fate::live) next.push_back(s);
      seqs.push_back(std::move(s));
    }
    out.push_back(std::move(seqs));
    live = std::move(next);
  }
  return out;
}

std::vector<int32_t> greedy_ids(const LoadedModel& m, const std::vector<int32_t>& prompt, int n) {
  GenerateOptions g;
  g.max_tokens = n;
  g.sampling.temperature = 0;
  g.eos_token_ids = {m.eos_token_id};
  std::vector<int32_t> ids;
  for (const GeneratedToken& t : generate(m.config(), m.weights(), prompt, g).tokens) ids.push_back(t.id);
  return ids;
}

// A chain over V = 3 tokens {0, 1, 2} given by next-token probabilities of the last token.
class ChainState final : public DecoderState {
 public:
  explicit ChainState(std::vector<std::vector<double>> table) : table_(std::move(table)) {}
  std::unique_ptr<DecoderState> clone() const override { return std::make_unique<ChainState>(*this); }
  std::vector<float> step(int32_t token) override {
    std::vector<float> z;
    for (double p : table_[static_cast<size_t>(token)]) z.push_back(static_cast<float>(std::log(p)));
    return z;
  }

 private:
  std::vector<std::vector<double>> table_;
};

}  // namespace

TEST_CASE("beam generate: width 1 is greedy generation, exactly") {
  const LoadedModel m = load_model_dir(repo_path("models/brown-gpt"));
  for (const char* text : {"The jury said", "She opened the door and", "It was", "In the city of"}) {
    CAPTURE(text);
    const Encoding enc = m.tokenizer->encode(text);
    const std::vector<int32_t> prompt(enc.ids.begin(), enc.ids.end());
    DecodeOptions opt;
    opt.beam_size = 1;
    opt.max_tokens = 16;
    opt.eos_id = static_cast<int32_t>(m.eos_token_id);
    const Translation t = beam_generate(m.config(), m.weights(), prompt, opt);
    CHECK(t.ids == greedy_ids(m, prompt, 16));
    CHECK(std::fabs(t.log_prob - teacher_forced_log_prob(m.config(), m.weights(), prompt, t.ids)) <= 1e-4);
    // length_penalty 1: score = log_prob / length.
    CHECK(t.score == doctest::Approx(t.log_prob / static_cast<double>(t.ids.size())).epsilon(1e-12));
  }
}

TEST_CASE("beam generate: every traced total log-prob equals a teacher-forced recomputation") {
  const LoadedModel m = load_model_dir(repo_path("models/brown-gpt"));
  const Encoding enc = m.tokenizer->encode("The jury said");
  const std::vector<int32_t> prompt(enc.ids.begin(), enc.ids.end());
  std::vector<BeamStep> trace;
  DecodeOptions opt;
  opt.beam_size = 3;
  opt.max_tokens = 6;
  opt.eos_id = static_cast<int32_t>(m.eos_token_id);
  opt.trace = &trace;
  const Translation t = beam_generate(m.config(), m.weights(), prompt, opt);
  REQUIRE(!trace.empty());
  CHECK(trace.size() <= 6);
  const auto seqs = sequences_of(trace);
  bool found = false;
  for (size_t s = 0; s < trace.size(); ++s) {
    CHECK(trace[s].ranked.size() == 6);  // 2 · width
    int live = 0, kept = 0;
    for (size_t r = 0; r < trace[s].ranked.size(); ++r) {
      const BeamCandidate& c = trace[s].ranked[r];
      CAPTURE(s);
      CAPTURE(r);
      if (r > 0) CHECK(c.log_prob <= trace[s].ranked[r - 1].log_prob);  // best first
      CHECK(std::fabs(c.log_prob - teacher_forced_log_prob(m.config(), m.weights(), prompt, seqs[s][r])) <= 1e-4);
      live += c.fate == BeamCandidate::Fate::live;
      kept += c.fate != BeamCandidate::Fate::dropped;
      found = found || (seqs[s][r] == t.ids && c.log_prob == t.log_prob);
    }
    CHECK(kept <= 3);
    if (s + 1 < trace.size()) CHECK(live >= 1);
  }
  CHECK(found);  // the result is one of the traced candidates
  CHECK(std::fabs(t.log_prob - teacher_forced_log_prob(m.config(), m.weights(), prompt, t.ids)) <= 1e-4);
}

TEST_CASE("beam generate: width V^(L-1) finds the exhaustive best continuation of length L") {
  ModelConfig cfg;
  cfg.architecture = Architecture::decoder_only;
  cfg.d_model = 16; cfg.n_heads = 2; cfg.d_ff = 32; cfg.vocab_size = 5; cfg.max_positions = 12;
  cfg.n_decoder_layers = 2;
  cfg.norm_first = true;
  cfg.decoder_final_norm = true;
  const ModelWeights w = random_weights(cfg, 7, 0.8f, true);
  const int64_t V = cfg.vocab_size;
  constexpr int L = 3;
  for (const std::vector<int32_t>& prompt : {std::vector<int32_t>{1}, std::vector<int32_t>{4, 2, 0}}) {
    // Exhaustive: all V^L continuations.
    double best = -1e300;
    std::vector<int32_t> arg;
    for (int64_t code = 0; code < V * V * V; ++code) {
      const std::vector<int32_t> c{static_cast<int32_t>(code / (V * V)), static_cast<int32_t>(code / V % V),
                                   static_cast<int32_t>(code % V)};
      const double lp = teacher_forced_log_prob(cfg, w, prompt, c);
      if (lp > best) best = lp, arg = c;
    }
    DecodeOptions opt;
    opt.beam_size = 25;  // V^(L−1)
    opt.max_tokens = L;
    opt.eos_id = -1;
    opt.length_penalty = 0;  // score = log_prob
    const Translation t = beam_generate(cfg, w, prompt, opt);
    CHECK(t.ids == arg);
    CHECK(std::fabs(t.log_prob - best) <= 1e-4);
    // Greedy never beats the exhaustive best.
    opt.beam_size = 1;
    CHECK(beam_generate(cfg, w, prompt, opt).log_prob <= best + 1e-4);
  }
}

TEST_CASE("beam search: width 3 finds a sequence greedy misses (a low first step, a higher total)") {
  // Token 0 starts. After 0: p(1) = 0.5, p(2) = 0.4, p(0) = 0.1. After 1 the model is
  // unsure, (0.25, 0.5, 0.25); after 2 it is nearly sure, p(2 | 2) = 0.9. Two steps:
  //   greedy: 1 (0.5), then 1 (0.5)   → 0.25, log = −1.386
  //   beam 3: 2 (0.4), then 2 (0.9)   → 0.36, log = −1.022 (and 1,1 = 0.25 ranks below it)
  const ChainState chain({{0.1, 0.5, 0.4}, {0.25, 0.5, 0.25}, {0.05, 0.05, 0.9}});
  DecodeOptions opt;
  opt.start_id = 0;
  opt.eos_id = -1;
  opt.length_penalty = 1;
  opt.beam_size = 1;
  const Translation g = beam_search(chain, opt, 2, 3);
  CHECK(g.ids == std::vector<int32_t>{1, 1});
  CHECK(g.log_prob == doctest::Approx(std::log(0.25)).epsilon(1e-6));
  opt.beam_size = 3;
  std::vector<BeamStep> trace;
  opt.trace = &trace;
  const Translation b = beam_search(chain, opt, 2, 3);
  CHECK(b.ids == std::vector<int32_t>{2, 2});
  CHECK(b.log_prob == doctest::Approx(std::log(0.36)).epsilon(1e-6));
  CHECK(b.score == doctest::Approx(std::log(0.36) / 2).epsilon(1e-6));
  // Step 1: all three tokens live (width 3, V = 3), best first: 1, 2, 0.
  REQUIRE(trace.size() == 2);
  REQUIRE(trace[0].ranked.size() == 3);
  CHECK(trace[0].ranked[0].token == 1);
  CHECK(trace[0].ranked[1].token == 2);
  CHECK(trace[0].ranked[0].fate == BeamCandidate::Fate::live);
  // Step 2: 9 candidates (3 beams × 3), the best 6 traced; 2→2 first (0.36), kept at the limit.
  REQUIRE(trace[1].ranked.size() == 6);
  CHECK(trace[1].ranked[0].beam == 1);
  CHECK(trace[1].ranked[0].token == 2);
  CHECK(trace[1].ranked[0].token_log_prob == doctest::Approx(std::log(0.9)).epsilon(1e-6));
  CHECK(trace[1].ranked[0].fate == BeamCandidate::Fate::length);
  CHECK(trace[1].ranked[3].fate == BeamCandidate::Fate::dropped);
}

TEST_CASE("beam generate: on brown-gpt, width 3 beats greedy on the chapter's preset") {
  // The Learn chapter's preset ("The jury said", 5 new tokens, its eos): greedy starts with
  // the likeliest token and ends lower than width 3, which starts with another token.
  const LoadedModel m = load_model_dir(repo_path("models/brown-gpt"));
  const Encoding enc = m.tokenizer->encode("The jury said");
  const std::vector<int32_t> prompt(enc.ids.begin(), enc.ids.end());
  DecodeOptions opt;
  opt.max_tokens = 5;
  opt.eos_id = static_cast<int32_t>(m.eos_token_id);
  opt.beam_size = 1;
  const Translation g = beam_generate(m.config(), m.weights(), prompt, opt);
  opt.beam_size = 3;
  const Translation b = beam_generate(m.config(), m.weights(), prompt, opt);
  CAPTURE(g.log_prob);
  CAPTURE(b.log_prob);
  CHECK(b.log_prob > g.log_prob + 1.0);
  CHECK(b.ids.front() != g.ids.front());
  CHECK(std::fabs(b.log_prob - teacher_forced_log_prob(m.config(), m.weights(), prompt, b.ids)) <= 1e-4);
}

TEST_CASE("tfp_learn_beam_search: the result and the trace of beam_generate; errors") {
  tfp_model* m = tfp::testing::open_through_api(repo_path("models/brown-gpt"), "brown-gpt");
  REQUIRE(m != nullptr);
  const LoadedModel lm = load_model_dir(repo_path("models/brown-gpt"));
  const Encoding enc = lm.tokenizer->encode("The jury said");
  const std::vector<int32_t> prompt(enc.ids.begin(), enc.ids.end());
  const int n = static_cast<int>(prompt.size());
  constexpr int K = 3, L = 5;
  std::vector<int32_t> ids(L, -7);
  std::vector<double> result(5), trace(static_cast<size_t>(L * 2 * K * 5), 99.0);
  REQUIRE(tfp_learn_beam_search(m, prompt.data(), n, K, L, 1.0f, -1, ids.data(), result.data(), trace.data()) == TFP_OK);
  std::vector<BeamStep> want_trace;
  DecodeOptions opt;
  opt.beam_size = K;
  opt.max_tokens = L;
  opt.eos_id = static_cast<int32_t>(lm.eos_token_id);
  opt.trace = &want_trace;
  const Translation want = beam_generate(lm.config(), lm.weights(), prompt, opt);
  REQUIRE(result[0] == static_cast<double>(want.ids.size()));
  CHECK(std::vector<int32_t>(ids.begin(), ids.begin() + static_cast<long>(want.ids.size())) == want.ids);
  CHECK(result[1] == want.log_prob);
  CHECK(result[2] == want.score);
  CHECK(result[3] == (want.reason == StopReason::eos ? 1.0 : 0.0));
  CHECK(result[4] == static_cast<double>(want_trace.size()));
  for (size_t s = 0; s < static_cast<size_t>(L); ++s)
    for (size_t r = 0; r < 2 * K; ++r) {
      const double* row = trace.data() + 5 * (s * 2 * K + r);
      if (s < want_trace.size() && r < want_trace[s].ranked.size()) {
        const BeamCandidate& c = want_trace[s].ranked[r];
        CHECK(row[0] == c.beam);
        CHECK(row[1] == c.token);
        CHECK(row[2] == c.log_prob);
        CHECK(row[3] == c.token_log_prob);
        CHECK(row[4] == static_cast<double>(static_cast<int>(c.fate)));
      } else {
        CHECK(row[0] == -1);
      }
    }
  // Width 1 through the API: greedy.
  REQUIRE(tfp_learn_beam_search(m, prompt.data(), n, 1, L, 1.0f, -1, ids.data(), result.data(), nullptr) == TFP_OK);
  const std::vector<int32_t> greedy = greedy_ids(lm, prompt, L);
  CHECK(std::vector<int32_t>(ids.begin(), ids.begin() + static_cast<long>(result[0])) == greedy);

  CHECK(tfp_learn_beam_search(m, prompt.data(), n, 17, L, 1.0f, -1, ids.data(), result.data(), nullptr) != TFP_OK);
  CHECK(std::string(tfp_last_error()) == "tfp_learn_beam_search: beam_size must be 1 .. 16, got 17");
  CHECK(tfp_learn_beam_search(m, prompt.data(), 0, 3, L, 1.0f, -1, ids.data(), result.data(), nullptr) != TFP_OK);
  const int32_t bad[1] = {5000};
  CHECK(tfp_learn_beam_search(m, bad, 1, 3, L, 1.0f, -1, ids.data(), result.data(), nullptr) != TFP_OK);
  CHECK(std::string(tfp_last_error()).find("outside the vocabulary") != std::string::npos);
  tfp_model_free(m);
}
