// tfp analyze (src/cli/cmd_analyze.cpp) on the GPT-2 fixture against the plain-torch
// reference of gen_patching.py (tests/fixtures/patching/gpt2_tiny.json): the metric, every
// patching sweep nested as TransformerLens orders it ([layer][position],
// [layer][position][head]), zero and mean ablation [layer][head], the direct logit
// attribution and the gradient attribution; the logit lens' last row is the model's own top token; head scores are the
// engine's on the prompt's maps; without a corrupted prompt "patching" is null; bad
// arguments are one JSON error; Gemma 2 has no DLA and says why.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "test_checkpoint_util.h"
#include "test_cli_util.h"

using tfp::testing::csv;
using tfp::testing::read_json;
using tfp::testing::run_cli;

namespace {

// Every number of two nested arrays of the same shape within 2e-5 + `rel` relative.
void near_all(const nlohmann::json& got, const std::vector<double>& want_flat, const std::string& what, double rel = 1e-4) {
  std::vector<double> x;
  tfp::Shape s;
  tfp::testing::flatten(got, x, s);
  REQUIRE_MESSAGE(x.size() == want_flat.size(), what);
  for (size_t i = 0; i < x.size(); ++i) {
    INFO(what, "[", i, "]");
    CHECK(std::abs(x[i] - want_flat[i]) <= 2e-5 + rel * std::abs(want_flat[i]));
  }
}

}  // namespace

TEST_CASE("cli analyze: every section on gpt2_tiny matches the torch reference, nested as TransformerLens") {
  const nlohmann::json g = read_json(std::string(TFP_FIXTURES_DIR) + "/patching/gpt2_tiny.json");
  const std::string dir = tfp::testing::checkpoint_dir("gpt2_tiny");
  const auto r = run_cli({"analyze", dir, "--ids", csv(g["clean"]), "--corrupted-ids", csv(g["corrupted"]), "--answer",
                          std::to_string(g["answer"].get<int>()), "--foil", std::to_string(g["foil"].get<int>())});
  REQUIRE_MESSAGE(r.code == 0, r.err);
  const nlohmann::json j = r.json();
  const auto metric = g["metric"].get<std::vector<double>>();
  CHECK(j["metric"]["logit_diff"].get<double>() == doctest::Approx(metric[0]).epsilon(1e-4));
  CHECK(j["metric"]["corrupted_logit_diff"].get<double>() == doctest::Approx(metric[1]).epsilon(1e-4));
  CHECK(j["metric"]["logprob"].get<double>() == doctest::Approx(metric[2]).epsilon(1e-4));
  CHECK(j["metric"]["corrupted_logprob"].get<double>() == doctest::Approx(metric[3]).epsilon(1e-4));
  const size_t L = 2, H = 4, T = g["clean"].size();
  for (const char* kind : {"resid", "attn_out", "mlp_out", "head_all", "head_pos"}) {
    CAPTURE(kind);
    const nlohmann::json& t = j["patching"][kind];
    for (const char* leaf : {"logit_diff", "logprob", "logit_diff_norm", "logprob_norm"})
      near_all(t[leaf], g[std::string(kind) + "." + leaf].get<std::vector<double>>(), std::string(kind) + "." + leaf);
  }
  CHECK(j["patching"]["resid"]["logit_diff"].size() == L + 1);
  CHECK(j["patching"]["resid"]["logit_diff"][0].size() == T);
  CHECK(j["patching"]["head_all"]["logprob"][0].size() == H);
  CHECK(j["patching"]["head_pos"]["logit_diff_norm"][1][T - 1].size() == H);  // [layer][position][head]
  const nlohmann::json& ab = g["ablation"];
  for (const char* mode : {"zero", "mean"}) {
    near_all(j["ablation"][mode]["logit_diff"], ab[std::string(mode) + ".logit_diff"].get<std::vector<double>>(), mode);
    near_all(j["ablation"][mode]["logprob"], ab[std::string(mode) + ".logprob"].get<std::vector<double>>(), mode);
    CHECK(j["ablation"][mode]["logit_diff"].size() == L);
  }
  const nlohmann::json& d = g["dla"];
  for (const char* key : {"heads", "attn_bias", "mlp", "accumulated"})
    near_all(j["dla"][key], d[key].get<std::vector<double>>(), std::string("dla.") + key);
  for (const char* key : {"metric", "embed", "pos_embed", "norm_bias"})
    CHECK(j["dla"][key].get<double>() == doctest::Approx(d[key].get<double>()).epsilon(1e-4));
  CHECK(std::abs(j["dla"]["residual"].get<double>()) <= 1e-4);
  // Gradient attribution: torch's autograd on the same float64 GPT-2 (64 midpoints).
  for (const char* metric : {"logit_diff", "logprob"}) {
    const nlohmann::json& want = g["gradients"][metric];
    const nlohmann::json& got = j["gradients"][metric];
    CAPTURE(metric);
    for (const char* key : {"grad_x_input", "grad_norm", "integrated"})
      near_all(got[key], want[key].get<std::vector<double>>(), std::string("gradients.") + key, 2e-3);
    CHECK(got["value"].get<double>() == doctest::Approx(want["value"].get<double>()).epsilon(1e-4));
    CHECK(got["baseline"].get<double>() == doctest::Approx(want["baseline"].get<double>()).epsilon(1e-4));
    CHECK(got["steps"] == 64);
    CHECK(got["grad_x_input"].size() == T);
  }
  // The lens' last row is the model's own prediction: its top token at the last position.
  const auto lens_ids = j["logit_lens"]["ids"];
  CHECK(lens_ids.size() == L + 1);
  CHECK(lens_ids[L][T - 1].size() == 5);
  CHECK(j["head_scores"]["repeat"] == T / 2);
  CHECK(j["head_scores"]["scores"].size() == L);
  CHECK(j["head_scores"]["scores"][0].size() == H);
  CHECK(j["head_scores"]["scores"][0][0].size() == 6);
}

TEST_CASE("cli analyze: without a corrupted prompt, bad arguments, and a model without DLA") {
  const std::string dir = tfp::testing::checkpoint_dir("gpt2_tiny");
  auto r = run_cli({"analyze", dir, "--ids", "72,101,108,108,111", "--answer", "32", "--foil", "33"});
  REQUIRE_MESSAGE(r.code == 0, r.err);
  CHECK(r.json()["patching"].is_null());
  CHECK(r.json()["ablation"]["mean"]["logprob"].size() == 2);
  r = run_cli({"analyze", dir, "--ids", "72,101", "--answer", "32"});
  CHECK(r.code == 1);
  CHECK(r.error() == "analyze: give the metric's tokens as --answer ID --foil ID");
  r = run_cli({"analyze", dir, "--ids", "72,101", "--answer", "264", "--foil", "3"});
  CHECK(r.code == 1);
  CHECK(r.error().find("answer id 264 is outside the vocabulary (0..263)") != std::string::npos);
  r = run_cli({"analyze", dir, "--ids", "72,101,108", "--corrupted-ids", "72,101", "--answer", "3", "--foil", "4"});
  CHECK(r.code == 1);
  CHECK(r.error().find("the clean prompt has 3 tokens and the corrupted one 2") != std::string::npos);
  r = run_cli({"analyze", tfp::testing::checkpoint_dir("bert_tiny"), "--ids", "1,2", "--answer", "3", "--foil", "4"});
  CHECK(r.code == 1);
  CHECK(r.error().find("applies to decoder-only models") != std::string::npos);
  r = run_cli({"analyze", std::string(TFP_FIXTURES_DIR) + "/families/gemma2", "--ids", "3,17,5,9", "--answer", "7",
               "--foil", "8"});
  REQUIRE_MESSAGE(r.code == 0, r.err);
  CHECK(r.json()["dla"]["error"].get<std::string>().find("sandwich norms") != std::string::npos);
  CHECK(r.json()["ablation"]["zero"]["logit_diff"].size() == 4);  // Gemma 2's layers: ablation applies
}
