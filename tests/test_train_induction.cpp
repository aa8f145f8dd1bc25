// The induction task and attention-only models (issue 33's training preset):
//   * induction prompts are 3..size distinct letters, the answer the same letters; the
//     stream has no separator and is graded from the second repeated letter on; the
//     encoder–decoder is refused by name;
//   * d_ff 0 gives attention-only layers: no MLP tensors, the engine runs the model the
//     trainer trains (same logits), patching's MLP sweep changes nothing and direct logit
//     attribution still adds up;
//   * the preset (2 attention-only layers, 4 heads, d_model 64, rotary positions, 2000
//     steps) grows an induction head in layer 2 that the head finder finds on repeated
//     random letters (its induction score above 0.6, layer 1's below 0.2), with layer 1
//     attending to the previous token more than uniform causal attention would.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "inspect/activation_patching.h"
#include "inspect/head_scores.h"
#include "inspect/logit_attribution.h"
#include "model/model.h"
#include "nn/observer.h"
#include "train/tasks.h"
#include "train/trainer.h"

using namespace tfp;

namespace {

model::LoadedModel engine_model(const train::Trainer& tr) {
  model::ModelFiles f;
  f.config_json = tr.config_json();
  f.safetensors = tr.safetensors();
  f.name = "induction";
  return model::load_model(std::move(f));
}

train::TrainerOptions preset(int steps) {
  train::TrainerOptions o;
  o.task = train::TaskKind::Induction;
  o.n_layers = 2;
  o.n_heads = 4;
  o.d_model = 64;
  o.d_ff = 0;
  o.positional = model::Positional::rope;
  o.steps = steps;
  o.warmup = 50;
  o.eval_examples = 64;
  return o;
}

}  // namespace

TEST_CASE("induction task: distinct letters, no separator, graded from the second repeated letter") {
  const train::Task task(train::TaskKind::Induction, 1);
  CHECK(task.n_tokens() == 29);
  CHECK(task.size() == 12);
  train::Rng rng(5);
  for (int i = 0; i < 200; ++i) {
    const train::Example e = task.sample(rng, i % 2 == 0);
    CHECK(e.answer == e.prompt);
    CHECK(e.prompt.size() >= 3);
    CHECK(e.prompt.size() <= 12);
    CHECK(std::set<char>(e.prompt.begin(), e.prompt.end()).size() == e.prompt.size());
    CHECK(task.is_held_out(e.prompt) == (i % 2 == 0));
  }
  const train::Batch b = task.encode({{"qkc", "qkc"}}, model::Architecture::decoder_only);
  const std::vector<int> q = task.tokenize("qkcqkc");
  for (size_t t = 0; t < q.size(); ++t) CHECK(b.tgt[t] == q[t]);
  // Targets: nothing inside the first copy or for the first repeated letter; then k, c, end.
  CHECK(b.targets[0] == -100);
  CHECK(b.targets[2] == -100);
  CHECK(b.targets[3] == task.id("k"));
  CHECK(b.targets[4] == task.id("c"));
  CHECK(b.targets[5] == train::Task::kEnd);
  CHECK(task.prompt_error("abca").find("distinct") != std::string::npos);
  CHECK(task.prompt_error("ab1").find("not one the induction task reads") != std::string::npos);
  CHECK_THROWS_WITH_AS(task.encode({{"qkc", "qkc"}}, model::Architecture::encoder_decoder),
                       doctest::Contains("decoder-only"), Error);
  train::TrainerOptions encdec = preset(10);
  encdec.architecture = model::Architecture::encoder_decoder;
  CHECK(train::options_error(encdec, [](std::string_view k) { return std::string(k); }).find("decoder") != std::string::npos);
}

TEST_CASE("attention-only layers (d_ff 0): the engine runs what the trainer trains; patching and DLA still hold") {
  train::Trainer tr(preset(30));
  tr.train(-1, {});
  const model::LoadedModel lm = engine_model(tr);
  model::ModelWeights probe = model::ModelWeights::for_config(lm.config());
  for (const model::WeightSlot& s : model::weight_slots(lm.config(), probe)) CHECK(s.role.find("ffn") == std::string::npos);
  const train::Example e{"qkcxv", "qkcxv"};
  tr.inspect(e);
  const std::vector<int> ids = tr.task().tokenize("qkcxvqkcxv");
  const std::vector<int32_t> ids32(ids.begin(), ids.end());
  const model::ForwardResult out = model::forward_decoder_only(lm.config(), lm.weights(), ids32);
  const int V = tr.task().n_tokens();
  const std::vector<float>& want = tr.model().logits();
  for (size_t t = 0; t < ids.size(); ++t)
    for (int v = 0; v < V; ++v) CHECK(out.logits.data[t * V + v] == doctest::Approx(want[t * V + v]).epsilon(1e-4));
  const std::vector<int32_t> corrupted = {ids32[0], ids32[1], ids32[2], ids32[3], ids32[4], ids32[0], ids32[1], ids32[3], ids32[2], ids32[4]};
  const inspect::ActivationPatching p =
      inspect::activation_patching(lm.config(), lm.weights(), ids32, corrupted, 3, 4, inspect::patch_mlp_out);
  for (float v : p.tables[0].logit_diff) CHECK(v == doctest::Approx(p.corrupted_logit_diff));
  const inspect::LogitAttribution d = inspect::logit_attribution(lm.config(), lm.weights(), ids32, 3, 4);
  CHECK(std::abs(d.residual) < 1e-4);
  for (float v : d.mlp) CHECK(v == 0.0f);
}

TEST_CASE("the induction preset grows an induction head that the head finder finds") {
  train::Trainer tr(preset(2000));
  tr.train(-1, {});
  const model::LoadedModel lm = engine_model(tr);
  // Repeated random letters, as the playground's head finder makes them: R letters twice.
  const std::vector<int> once = tr.task().tokenize("pwhdgzsbnlek");
  std::vector<int32_t> ids(once.begin(), once.end());
  ids.insert(ids.end(), once.begin(), once.end());
  nn::RecordingObserver maps({"dec.*.attn.probs"});
  (void)model::forward_decoder_only(lm.config(), lm.weights(), ids, &maps, 1);
  double best[2] = {0, 0}, prev[2] = {0, 0};
  for (int l = 0; l < 2; ++l) {
    const Tensor s = inspect::attention_head_scores(maps.get("dec." + std::to_string(l) + ".attn.probs").view(), ids.data(),
                                                    static_cast<int64_t>(once.size()));
    for (int h = 0; h < 4; ++h) {
      best[l] = std::max(best[l], static_cast<double>(s.data[h * inspect::kHeadScoreCount + inspect::kInduction]));
      prev[l] = std::max(prev[l], static_cast<double>(s.data[h * inspect::kHeadScoreCount + inspect::kPrevious]));
    }
  }
  CAPTURE(best[0]);
  CAPTURE(best[1]);
  CAPTURE(prev[0]);
  CHECK(best[1] > 0.6);   // an induction head in layer 2
  CHECK(best[0] < 0.2);   // none in layer 1: it needs the layer below
  CHECK(prev[0] > 0.15);  // a previous-token head it reads from (uniform causal attention: 0.12)
  CHECK(tr.evaluate().token_accuracy > 0.9);
  CHECK(tr.generate("qkcxvm") == "qkcxvm");  // given its first letter, the repeat continues
}
