// tfp generate DIR (--prompt TEXT | --text-file PATH | --ids 1,2,3) — continues a prompt.
//   decoder-only:    generation with the KV cache (model::generate); temperature 0 is
//                    greedy, otherwise seeded sampling (PCG32): the same seed gives the
//                    same tokens natively and in the browser.
//   encoder–decoder: the prompt is the encoder's input; the decoder starts from the
//                    config's decoder_start_token_id and extends through its KV cache —
//                    the translate path of the C API (model::decode_seq2seq, the start
//                    token chosen as api/api_decode.h does, or --decoder-start-id): greedy
//                    (beam size 1, the default) or --beam N. Sampling is not offered for
//                    these models: their decoding loop is the beam search.
//   recurrent (numbers-gru): the same search over its GRU state (model::gru_translate).
// Every path stops at eos (which is then the last id) or after --max-tokens. Without a
// tokenizer (--ids) only ids and probabilities are printed.
#include "api/api_decode.h"
#include "cli/precision_arg.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/gru.h"
#include "model/beam.h"
#include "model/gru_seq2seq.h"
#include "model/model.h"
#include "model/sampling.h"

namespace tfp::cli {

namespace {

struct Output {
  std::vector<int32_t> ids;
  std::vector<double> probs;  // each token's probability under the model (temperature 1)
  model::StopReason reason = model::StopReason::max_tokens;
};

// Row t of logits (T, V): the probability of ids[t] (softmax at temperature 1).
std::vector<double> chosen_probs(const Tensor& logits, const std::vector<int32_t>& ids) {
  std::vector<double> out;
  const int64_t V = logits.dim(1);
  for (size_t t = 0; t < ids.size(); ++t) {
    const std::vector<double> p = model::token_probabilities(
        std::span<const float>(logits.ptr() + static_cast<int64_t>(t) * V, static_cast<size_t>(V)));
    out.push_back(p[static_cast<size_t>(ids[t])]);
  }
  return out;
}

// The decoder inputs that produced `ids`: the start token, then every output but the last.
std::vector<int32_t> teacher_inputs(int32_t start, const std::vector<int32_t>& ids) {
  std::vector<int32_t> tgt{start};
  if (!ids.empty()) tgt.insert(tgt.end(), ids.begin(), ids.end() - 1);
  return tgt;
}

// Encoder–decoder options: greedy or beam only.
void check_seq2seq_options(const Args& a, const std::string& dir) {
  const bool sampling =
      a.get_float("--temperature", 0.0f) != 0.0f || a.has("--top-k") || a.has("--top-p") || a.has("--seed");
  TFP_CHECK(!sampling, "generate: '", dir,
            "' is an encoder-decoder model: it decodes greedily (--temperature 0, the default for it) or by beam "
            "search (--beam N); --temperature > 0, --top-k, --top-p and --seed are for decoder-only models");
}

int beam_size(const Args& a) {
  const int64_t beam = a.get_int("--beam", 1);
  TFP_CHECK(beam >= 1 && beam <= 1024, "generate: --beam must be in [1, 1024], got ", beam);
  return static_cast<int>(beam);
}

// --decoder-start-id N, or -1 for the model's own (config.json's decoder_start_token_id).
int32_t start_option(const Args& a) {
  const int64_t id = a.get_int("--decoder-start-id", -1);
  TFP_CHECK(id >= -1 && id <= (int64_t{1} << 30), "generate: --decoder-start-id must be a token id, got ", id);
  return static_cast<int32_t>(id);
}

int max_tokens(const Args& a, int64_t fallback) {
  const int64_t n = a.get_int("--max-tokens", fallback);
  TFP_CHECK(n >= 0 && n <= 1000000, "generate: --max-tokens must be in [0, 1000000], got ", n);
  return static_cast<int>(n);
}

std::vector<int32_t> prompt_ids(const Args& a, const Tokenizer* tok, const std::string& dir, TextInput& input) {
  std::optional<std::vector<int32_t>> ids =
      token_ids_option(a, "generate", tok, dir, "--ids", "--prompt", "--text-file", input);
  TFP_CHECK(ids.has_value(), "generate: give the prompt as --prompt TEXT, --text-file PATH or --ids 1,2,3");
  TFP_CHECK(!ids->empty(), "generate: the prompt is empty (no tokens)");
  return std::move(*ids);
}

Output decoder_only(const model::LoadedModel& m, const Args& a, const std::vector<int32_t>& prompt) {
  for (const char* opt : {"--beam", "--decoder-start-id"})
    TFP_CHECK(!a.has(opt), "generate: ", opt, " applies to encoder-decoder models; '", m.source, "' is decoder-only",
              std::string(opt) == "--beam" ? " (use --temperature 0 for greedy)" : "");
  model::GenerateOptions opt;
  opt.max_tokens = max_tokens(a, 20);
  opt.sampling.temperature = a.get_float("--temperature", 1.0f);
  const int64_t top_k = a.get_int("--top-k", 0);
  TFP_CHECK(top_k >= 0 && top_k <= 1 << 30, "generate: --top-k must be >= 0, got ", top_k);
  opt.sampling.top_k = static_cast<int>(top_k);
  opt.sampling.top_p = a.get_float("--top-p", 1.0f);
  opt.seed = a.get_u64("--seed", 0);
  opt.eos_token_ids = m.eos_token_ids;
  const model::GenerateResult r = model::generate(m.config(), m.weights(), prompt, opt);
  Output out;
  for (const model::GeneratedToken& t : r.tokens) {
    out.ids.push_back(t.id);
    out.probs.push_back(t.prob);
  }
  out.reason = r.reason;
  return out;
}

Output encoder_decoder(const model::LoadedModel& m, const Args& a, const std::vector<int32_t>& src, int32_t& start) {
  check_seq2seq_options(a, m.source);
  const int n = max_tokens(a, 20);
  model::DecodeOptions opt;
  const int beam = beam_size(a);
  try {  // the C API's choice of start and eos tokens (api/api_decode.h)
    opt = api::decode_options(m, beam, n, start_option(a), -1, "generate");
  } catch (const api::ArgumentError&) {  // it names no start token
    TFP_FAIL("generate: '", m.source,
             "' names no decoder_start_token_id (config.json) and no bos or eos token: give --decoder-start-id N");
  }
  start = opt.start_id;
  Output out;
  if (n == 0) return out;  // decode_seq2seq reads 0 as "the model's whole context"
  const model::Translation t = model::decode_seq2seq(m.config(), m.weights(), src, opt);
  out.ids = t.ids;
  out.reason = t.reason;
  out.probs = chosen_probs(
      model::forward_encoder_decoder(m.config(), m.weights(), src, teacher_inputs(start, t.ids)).logits, t.ids);
  return out;
}

Output recurrent(const model::GruSeq2SeqModel& g, const Args& a, const std::vector<int32_t>& src,
                 const std::string& dir, int32_t& start) {
  check_seq2seq_options(a, dir);
  model::DecodeOptions opt;
  opt.beam_size = beam_size(a);
  opt.max_tokens = max_tokens(a, g.config.max_target_tokens);  // its trained output length by default
  opt.start_id = start_option(a) >= 0 ? start_option(a) : g.config.decoder_start_token_id;
  opt.eos_id = g.config.eos_token_id;
  start = opt.start_id;
  Output out;
  if (opt.max_tokens == 0) return out;  // 0 would mean the config's limit
  const model::Translation t = model::gru_translate(g, src, opt);
  out.ids = t.ids;
  out.reason = t.reason;
  out.probs = chosen_probs(model::gru_forward(g, src, teacher_inputs(start, t.ids)).logits, t.ids);
  return out;
}

void write_output(JsonWriter& w, const std::vector<int32_t>& prompt, const Output& out, const Tokenizer* tok,
                  int32_t start) {
  w.begin_object();
  w.key("prompt_ids").values(prompt);
  if (start >= 0) w.key("decoder_start_token_id").value(int64_t{start});
  w.key("ids").values(out.ids);
  write_tokens(w, "tokens", tok, out.ids);
  w.key("probs").values(out.probs);
  if (tok) w.key("text").value(tok->decode(out.ids));
  w.key("stop_reason").value(model::stop_reason_name(out.reason));
  w.end_object();
}

}  // namespace

void cmd_generate(const std::vector<std::string>& argv, JsonWriter& w, TextInput& input) {
  const Args a = parse_args(argv, 1, "generate", 1,
                            {"--prompt", "--text-file", "--ids", "--max-tokens", "--temperature", "--top-k", "--top-p",
                             "--seed", "--beam", "--decoder-start-id", "--precision"},
                            {});
  const std::string& dir = a.positional[0];
  int32_t start = -1;  // the decoder start token of an encoder–decoder
  if (is_gru_dir(dir)) {
    const model::GruSeq2SeqModel g = model::load_gru_seq2seq_dir(dir);
    const std::vector<int32_t> prompt = prompt_ids(a, g.tokenizer.get(), dir, input);
    const Output out = recurrent(g, a, prompt, dir, start);
    write_output(w, prompt, out, g.tokenizer.get(), start);
    return;
  }
  const model::LoadedModel m = model::load_model_dir(dir, precision_arg(a));
  const std::vector<int32_t> prompt = prompt_ids(a, m.tokenizer.get(), dir, input);
  const Output out = m.config().architecture == model::Architecture::encoder_decoder
                         ? encoder_decoder(m, a, prompt, start)
                         : decoder_only(m, a, prompt);
  write_output(w, prompt, out, m.tokenizer.get(), start);
}

}  // namespace tfp::cli
