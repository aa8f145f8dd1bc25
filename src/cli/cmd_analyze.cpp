// tfp analyze — what causes an output (issue 33), TransformerLens's conventions, as one
// JSON document. Decoder-only token models with an LM head.
//   tfp analyze DIR (--ids … | --text T | --text-file P) --answer ID --foil ID
//               [--corrupted-ids … | --corrupted-text T | --corrupted-text-file P]
//               [--top-k K] [--repeat R] [--ig-steps N] [--precision f32|f16|int8]
// Sections (each table nested as TransformerLens orders it):
//   metric      logit_diff = logit(answer) − logit(foil) and logprob = log p(answer) at the
//               last position of the prompt (and of the corrupted prompt when given)
//   patching    with a corrupted prompt only: resid [layer+1][position], attn_out and mlp_out
//               [layer][position], head_all [layer][head], head_pos [layer][position][head],
//               head_q and head_pattern [layer][head], head_k and head_v [layer][kv head];
//               each {logit_diff, logprob, logit_diff_norm, logprob_norm} (the _norm ones null
//               when clean and corrupted give the same metric)
//   ablation    zero and mean ablation of each head's output: {logit_diff, logprob} [layer][head]
//   dla         direct logit attribution of the prompt (see inspect/logit_attribution.h), or
//               {"error": …} for a model it does not apply to (Gemma 2/3's sandwich norms)
//   gradients   gradient attribution on the token embeddings (inspect/gradient_attribution.h)
//               for each metric: {value, baseline, grad_x_input [position], grad_norm
//               [position], integrated [position] over --ig-steps midpoints (default 64),
//               integrated_sum, completeness_gap}
//   logit_lens  {ids, probs} [layer+1][position][k], the top --top-k (default 5)
//   head_scores [layer][head][6] on the prompt's own maps (previous, duplicate, induction:
//               detect_head's "mul" scores, then the plain definitions) with repeat R
//               (--repeat, default floor(T / 2): a prompt "prefix + R tokens + the same R")
#include <span>
#include <string>
#include <vector>

#include "cli/args.h"
#include "cli/precision_arg.h"
#include "cli/commands.h"
#include "inspect/activation_patching.h"
#include "inspect/gradient_attribution.h"
#include "inspect/head_scores.h"
#include "inspect/logit_attribution.h"
#include "inspect/logit_lens.h"
#include "model/model.h"
#include "nn/observer.h"

namespace tfp::cli {

namespace {

namespace m = model;

// `data` of shape dims written as nested arrays; a float vector through a Tensor view.
void table(JsonWriter& w, const std::vector<float>& data, Shape dims) {
  w.tensor(TensorView(data.data(), std::move(dims)));
}

void write_patching(JsonWriter& w, const inspect::ActivationPatching& r) {
  w.begin_object();
  for (const inspect::PatchTable& t : r.tables) {
    w.key(t.kind).begin_object();
    const Shape dims(t.dims.begin(), t.dims.end());
    table(w.key("logit_diff"), t.logit_diff, dims);
    table(w.key("logprob"), t.logprob, dims);
    if (t.logit_diff_norm.empty()) w.key("logit_diff_norm").null();
    else table(w.key("logit_diff_norm"), t.logit_diff_norm, dims);
    if (t.logprob_norm.empty()) w.key("logprob_norm").null();
    else table(w.key("logprob_norm"), t.logprob_norm, dims);
    w.end_object();
  }
  w.end_object();
}

void write_dla(JsonWriter& w, const m::ModelConfig& c, const m::ModelWeights& wt, const std::vector<int32_t>& ids,
               int32_t answer, int32_t foil) {
  const std::string why = inspect::logit_attribution_refusal(c, ids, answer, foil);
  w.begin_object();
  if (!why.empty()) {
    w.key("error").value("logit_attribution: " + why);
    w.end_object();
    return;
  }
  const inspect::LogitAttribution r = inspect::logit_attribution(c, wt, ids, answer, foil);
  w.key("metric").value(r.metric);
  w.key("embed").value(r.embed);
  w.key("pos_embed");
  if (r.has_pos_embed) w.value(r.pos_embed);
  else w.null();
  table(w.key("heads"), r.heads, {r.L, r.H});
  table(w.key("attn_bias"), r.attn_bias, {r.L});
  table(w.key("mlp"), r.mlp, {r.L});
  w.key("norm_bias").value(r.norm_bias);
  table(w.key("accumulated"), r.accumulated, {r.L + 1});
  w.key("residual").value(r.residual);
  w.end_object();
}

void write_gradients(JsonWriter& w, const m::ModelConfig& c, const m::ModelWeights& wt, const std::vector<int32_t>& ids,
                     int32_t answer, int32_t foil, int steps) {
  w.begin_object();
  for (const auto metric : {inspect::GradMetric::logit_diff, inspect::GradMetric::logprob}) {
    const inspect::GradientAttribution r = inspect::gradient_attribution(c, wt, ids, answer, foil, metric, steps);
    const auto T = static_cast<int64_t>(ids.size());
    w.key(metric == inspect::GradMetric::logit_diff ? "logit_diff" : "logprob").begin_object();
    w.key("value").value(r.value);
    w.key("baseline").value(r.baseline_value);
    table(w.key("grad_x_input"), r.grad_x_input, {T});
    table(w.key("grad_norm"), r.grad_norm, {T});
    w.key("steps").value(static_cast<int64_t>(steps));
    table(w.key("integrated"), r.integrated, {T});
    w.key("integrated_sum").value(r.completeness_gap + (r.value - r.baseline_value));
    w.key("completeness_gap").value(r.completeness_gap);
    w.end_object();
  }
  w.end_object();
}

}  // namespace

void cmd_analyze(const std::vector<std::string>& argv, JsonWriter& w, TextInput& input) {
  const Args a = parse_args(argv, 1, "analyze", 1,
                            {"--ids", "--text", "--text-file", "--corrupted-ids", "--corrupted-text",
                             "--corrupted-text-file", "--answer", "--foil", "--top-k", "--repeat", "--ig-steps", "--precision"},
                            {});
  const m::LoadedModel lm = m::load_model_dir(a.positional[0], precision_arg(a));
  const m::ModelConfig& c = lm.config();
  const Tokenizer* tok = lm.tokenizer.get();
  const auto ids_opt = token_ids_option(a, "analyze", tok, lm.source, "--ids", "--text", "--text-file", input);
  TFP_CHECK(ids_opt.has_value(), "analyze: give the prompt as --ids 1,2,3, --text TEXT or --text-file PATH");
  const std::vector<int32_t>& ids = *ids_opt;
  const auto corrupted =
      token_ids_option(a, "analyze", tok, lm.source, "--corrupted-ids", "--corrupted-text", "--corrupted-text-file", input);
  TFP_CHECK(a.has("--answer") && a.has("--foil"), "analyze: give the metric's tokens as --answer ID --foil ID");
  const int64_t answer = a.get_int("--answer", -1), foil = a.get_int("--foil", -1);
  TFP_CHECK(answer >= INT32_MIN && answer <= INT32_MAX && foil >= INT32_MIN && foil <= INT32_MAX,
            "analyze: --answer and --foil must be token ids");
  const auto ans = static_cast<int32_t>(answer), fo = static_cast<int32_t>(foil);
  const std::string why = inspect::metric_input_refusal(c, ids, "prompt", ans, fo);
  TFP_CHECK(why.empty(), "analyze: '", lm.source, "': ", why);
  const int64_t top_k = a.get_int("--top-k", 5);
  TFP_CHECK(top_k >= 1 && top_k <= 1000, "analyze: --top-k must be in 1 .. 1000, got ", top_k);
  const auto T = static_cast<int64_t>(ids.size());
  const int64_t ig_steps = a.get_int("--ig-steps", 64);
  TFP_CHECK(ig_steps >= 1 && ig_steps <= 4096, "analyze: --ig-steps must be in 1 .. 4096, got ", ig_steps);

  w.begin_object();
  w.key("ids").values(ids);
  write_tokens(w, "tokens", tok, ids);
  w.key("answer").value(answer);
  w.key("foil").value(foil);

  // The prompt's metric, its maps and head ablation.
  const inspect::HeadAblation zero = inspect::head_ablation(c, lm.weights(), ids, ans, fo, inspect::AblationMode::zero);
  const inspect::HeadAblation mean = inspect::head_ablation(c, lm.weights(), ids, ans, fo, inspect::AblationMode::mean);
  w.key("metric").begin_object();
  w.key("logit_diff").value(zero.logit_diff);
  w.key("logprob").value(zero.logprob);
  if (corrupted) {
    const inspect::ActivationPatching p =
        inspect::activation_patching(c, lm.weights(), ids, *corrupted, ans, fo, inspect::patch_all);
    w.key("corrupted_logit_diff").value(p.corrupted_logit_diff);
    w.key("corrupted_logprob").value(p.corrupted_logprob);
    w.end_object();
    w.key("corrupted_ids").values(*corrupted);
    write_patching(w.key("patching"), p);
  } else {
    w.end_object();
    w.key("patching").null();
  }
  w.key("ablation").begin_object();
  for (const auto* r : {&zero, &mean}) {
    w.key(r == &zero ? "zero" : "mean").begin_object();
    table(w.key("logit_diff"), r->ablated_logit_diff, {r->L, r->H});
    table(w.key("logprob"), r->ablated_logprob, {r->L, r->H});
    w.end_object();
  }
  w.end_object();
  write_dla(w.key("dla"), c, lm.weights(), ids, ans, fo);
  write_gradients(w.key("gradients"), c, lm.weights(), ids, ans, fo, static_cast<int>(ig_steps));

  const inspect::LogitLens lens = inspect::logit_lens(c, lm.weights(), ids, {}, static_cast<int>(top_k));
  const int64_t rows = static_cast<int64_t>(lens.rows.size());
  w.key("logit_lens").begin_object();
  w.key("ids").begin_array();
  for (int64_t r = 0; r < rows; ++r) {
    w.begin_array();
    for (int64_t t = 0; t < lens.T; ++t) {
      w.begin_array();
      for (int64_t k = 0; k < lens.K; ++k) w.value(static_cast<int64_t>(lens.ids[(r * lens.T + t) * lens.K + k]));
      w.end_array();
    }
    w.end_array();
  }
  w.end_array();
  table(w.key("probs"), lens.probs, {rows, lens.T, lens.K});
  w.end_object();

  const int64_t repeat = a.get_int("--repeat", T / 2);
  w.key("head_scores");
  if (repeat < 1 || 2 * repeat > T) {
    w.begin_object();
    w.key("error").value("head scores need a repeat R with 1 <= R and 2R <= T = " + std::to_string(T));
    w.end_object();
  } else {
    nn::RecordingObserver maps({"dec.*.attn.probs"});
    (void)m::forward_decoder_only(c, lm.weights(), ids, &maps, 1);
    w.begin_object();
    w.key("repeat").value(repeat);
    w.key("columns").begin_array();
    for (const char* col : {"previous_tl", "duplicate_tl", "induction_tl", "previous", "duplicate", "induction"})
      w.value(col);
    w.end_array();
    w.key("scores").begin_array();
    for (int64_t l = 0; l < c.n_decoder_layers; ++l)
      w.tensor(inspect::attention_head_scores(maps.get("dec." + std::to_string(l) + ".attn.probs").view(), ids.data(),
                                              repeat));
    w.end_array();
    w.end_object();
  }
  w.end_object();
}

}  // namespace tfp::cli
