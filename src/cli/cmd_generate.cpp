// tfp generate DIR --prompt TEXT — decoder-only generation with the KV cache;
// temperature 0 is greedy. Sampling is seeded (PCG32): the same seed gives the same
// tokens natively and in the browser.
#include "cli/args.h"
#include "cli/commands.h"
#include "model/model.h"
#include "model/sampling.h"

namespace tfp::cli {

void cmd_generate(const std::vector<std::string>& argv, JsonWriter& w) {
  const Args a = parse_args(argv, 1, "generate", 1,
                            {"--prompt", "--max-tokens", "--temperature", "--top-k", "--top-p", "--seed"}, {});
  const model::LoadedModel m = model::load_model_dir(a.positional[0]);
  TFP_CHECK(a.has("--prompt"), "generate: --prompt TEXT is required");
  TFP_CHECK(m.tokenizer != nullptr, "generate: '", m.source, "' has no tokenizer.json");
  const std::vector<int32_t> prompt = m.tokenizer->encode(*a.get("--prompt")).ids;

  model::GenerateOptions opt;
  const int64_t max_tokens = a.get_int("--max-tokens", 20);
  TFP_CHECK(max_tokens >= 0 && max_tokens <= 1000000, "generate: --max-tokens must be in [0, 1000000], got ",
            max_tokens);
  opt.max_tokens = static_cast<int>(max_tokens);
  opt.sampling.temperature = a.get_float("--temperature", 1.0f);
  const int64_t top_k = a.get_int("--top-k", 0);
  TFP_CHECK(top_k >= 0 && top_k <= 1 << 30, "generate: --top-k must be >= 0, got ", top_k);
  opt.sampling.top_k = static_cast<int>(top_k);
  opt.sampling.top_p = a.get_float("--top-p", 1.0f);
  opt.seed = a.get_u64("--seed", 0);
  opt.eos_token_id = m.eos_token_id;
  const model::GenerateResult r = model::generate(m.config(), m.weights(), prompt, opt);

  std::vector<int32_t> ids;
  std::vector<std::string> tokens;
  std::vector<double> probs;
  for (const model::GeneratedToken& t : r.tokens) {
    ids.push_back(t.id);
    tokens.push_back(m.tokenizer->id_to_token(t.id));
    probs.push_back(t.prob);
  }
  w.begin_object();
  w.key("prompt_ids").values(prompt);
  w.key("ids").values(ids);
  w.key("tokens").values(tokens);
  w.key("probs").values(probs);
  w.key("text").value(m.tokenizer->decode(ids));
  w.key("stop_reason").value(model::stop_reason_name(r.reason));
  w.end_object();
}

}  // namespace tfp::cli
