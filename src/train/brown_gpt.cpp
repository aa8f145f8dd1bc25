// brown-gpt: a small GPT-2-shaped language model of the Brown corpus (see brown_run.h).
//
// Recipe. Tokenizer: byte-level BPE trained by our BPE trainer on the training documents
// only (2048 tokens: <|endoftext|>, 256 bytes, 1791 merges). Data: every training
// document as detokenised text (brown::document_text), encoded and concatenated with
// <|endoftext|> after each document; a batch is 16 windows of 129 tokens at random
// offsets (input = first 128, targets = last 128). Model: decoder-only, d_model 128,
// 4 layers, 4 heads, d_ff 512, context 128, pre-LN, gelu_new, tied head. AdamW
// (β 0.9/0.95, weight decay 0.1), peak lr 3e-3 with 100 warm-up steps and cosine decay
// to 3e-4, 800 steps (1.6M tokens, about one pass over the 1.7M training tokens), gradient clipping at 1. Weights are saved as F16.
//
// Held-out perplexity: the held-out documents' token stream cut into consecutive
// windows of 128 predicted tokens (each window starts without earlier context); the
// perplexity is exp(mean negative log-likelihood per predicted token), computed by the
// inference engine on the saved (F16-rounded) weights.
#include <chrono>
#include <cmath>
#include <iomanip>

#include "core/error.h"
#include "io/file.h"
#include "model/config_json.h"
#include "model/model.h"
#include "model/sampling.h"
#include "model/transformer.h"
#include "tokenizer/bpe_trainer.h"
#include "tokenizer/tokenizer_json.h"
#include "train/brown.h"
#include "train/brown_run.h"
#include "train/rng.h"
#include "train/train_loop.h"
#include "train/train_model.h"

namespace tfp::train {

namespace {

constexpr int kContext = 128, kBatch = 16, kVocab = 2048, kDefaultSteps = 800;

model::ModelConfig gpt_config(int64_t vocab) {
  model::ModelConfig c;
  c.architecture = model::Architecture::decoder_only;
  c.family = "tfp";
  c.d_model = 128;
  c.n_heads = 4;
  c.n_decoder_layers = 4;
  c.d_ff = 512;
  c.vocab_size = vocab;
  c.max_positions = kContext;
  c.activation = nn::Activation::gelu_tanh;
  c.norm_first = true;
  c.decoder_final_norm = true;
  c.tied_lm_head = true;
  return c;
}

// The documents of one split as one token stream, <|endoftext|> after each document.
std::vector<int32_t> lm_stream(const Tokenizer& tok, const std::vector<brown::Document>& docs,
                               bool held_out, int32_t eos, long* words = nullptr) {
  std::vector<int32_t> ids;
  for (const brown::Document& d : docs) {
    if (brown::is_held_out(d.index) != held_out) continue;
    const Encoding e = tok.encode(brown::document_text(d), false);
    ids.insert(ids.end(), e.ids.begin(), e.ids.end());
    ids.push_back(eos);
    if (words)
      for (const brown::Sentence& s : d.sentences) *words += static_cast<long>(s.words.size());
  }
  return ids;
}

struct LmEval {
  double nll = 0;  // summed over predicted tokens
  long tokens = 0;
  int windows = 0;
  double perplexity() const { return tokens ? std::exp(nll / tokens) : 0; }
};

// Consecutive windows of kContext predicted tokens, run by the inference engine.
LmEval engine_eval(const model::ModelConfig& cfg, const model::ModelWeights& w,
                   const std::vector<int32_t>& stream, int limit) {
  LmEval r;
  const size_t T = static_cast<size_t>(cfg.max_positions);
  for (size_t start = 0; start + T + 1 <= stream.size(); start += T) {
    if (limit > 0 && r.windows >= limit) break;
    const std::span<const int32_t> ids(stream.data() + start, T);
    const model::ForwardResult f = model::forward_decoder_only(cfg, w, ids);
    const int64_t V = f.logits.dim(1);
    for (size_t t = 0; t < T; ++t) {
      const float* z = f.logits.data.data() + t * V;
      double m = z[0];
      for (int64_t v = 1; v < V; ++v) m = std::max(m, double(z[v]));
      double s = 0;
      for (int64_t v = 0; v < V; ++v) s += std::exp(double(z[v]) - m);
      // −log softmax(z)[y] = log Σ exp(z − m) + m − z[y]  (the max keeps exp in range)
      r.nll += std::log(s) + m - double(z[stream[start + t + 1]]);
    }
    r.tokens += static_cast<long>(T);
    ++r.windows;
  }
  return r;
}

std::string continue_text(const model::LoadedModel& lm, const std::string& prompt, float temperature,
                          uint64_t seed) {
  const Encoding e = lm.tokenizer->encode(prompt, false);
  model::GenerateOptions g;
  g.max_tokens = 24;
  g.sampling.temperature = temperature;
  g.sampling.top_k = temperature > 0 ? 40 : 0;
  g.seed = seed;
  g.eos_token_ids = lm.eos_token_ids;
  const model::GenerateResult r = model::generate(lm.config(), lm.weights(), e.ids, g);
  std::vector<int32_t> out;
  for (const model::GeneratedToken& t : r.tokens) out.push_back(t.id);
  return prompt + lm.tokenizer->decode(out);
}

nlohmann::json samples(const model::LoadedModel& lm) {
  nlohmann::json j = nlohmann::json::array();
  for (const char* p : {"The jury said that", "In the morning, the", "It is important to"}) {
    j.push_back({{"prompt", p},
                 {"greedy", continue_text(lm, p, 0.0f, 0)},
                 {"sampled_t0.8_top40_seed1", continue_text(lm, p, 0.8f, 1)}});
  }
  return j;
}

}  // namespace

nlohmann::json train_brown_gpt(const BrownRunOptions& opt, const std::vector<brown::Document>& docs,
                               std::ostream& log) {
  using clock = std::chrono::steady_clock;
  std::vector<std::string> train_texts;
  for (const brown::Document& d : docs)
    if (!brown::is_held_out(d.index)) train_texts.push_back(brown::document_text(d));
  log << "brown-gpt: " << train_texts.size() << " training documents, "
      << docs.size() - train_texts.size() << " held out; training the BPE tokenizer\n";
  const auto t_bpe = clock::now();
  BpeTrainerOptions bo;
  bo.vocab_size = kVocab;
  const Tokenizer tok = train_bpe(train_texts, bo);
  const int32_t eos = *tok.token_to_id("<|endoftext|>");
  long held_words = 0;
  const std::vector<int32_t> train_ids = lm_stream(tok, docs, false, eos);
  const std::vector<int32_t> held_ids = lm_stream(tok, docs, true, eos, &held_words);
  const double bpe_s = std::chrono::duration<double>(clock::now() - t_bpe).count();
  log << "tokenizer: " << tok.vocab_size() << " tokens (" << std::fixed << std::setprecision(1)
      << bpe_s << " s incl. encoding); " << train_ids.size() << " training tokens, "
      << held_ids.size() << " held-out tokens (" << std::setprecision(3)
      << double(held_ids.size()) / held_words << " per Brown word)\n";

  const model::ModelConfig cfg = gpt_config(static_cast<int64_t>(tok.vocab_size()));
  TrainModel<float> m(cfg);
  m.init(opt.seed, 0.02);
  const int steps = opt.steps > 0 ? opt.steps : kDefaultSteps;
  const int eval_every = opt.eval_every > 0 ? opt.eval_every : 100;
  LoopOptions lo;
  lo.steps = steps;
  lo.schedule.peak = 3e-3;
  lo.schedule.floor = 3e-4;
  lo.schedule.warmup = std::min(100, steps / 10 + 1);
  lo.clip = 1.0;
  lo.adamw = AdamWConfig{0.9, 0.95, 1e-8, 0.1};
  lo.eval_every = eval_every;
  lo.loss_weight = 0.02;
  TrainLoop loop(m.params, lo);
  Rng rng = Rng::stream(opt.seed, /*label "train windows"*/ 2);
  log << "model: " << m.params.num_elements() << " parameters; " << steps << " steps of "
      << kBatch << " x " << kContext << " tokens\n";

  Batch b;
  LoopHooks h;
  h.forward = [&] {  // kBatch windows of kContext + 1 tokens at random offsets
    b = Batch{};
    b.B = kBatch;
    b.T = kContext;
    for (int i = 0; i < kBatch; ++i) {
      const int start = rng.below(static_cast<int>(train_ids.size()) - kContext - 1);
      b.tgt.insert(b.tgt.end(), train_ids.begin() + start, train_ids.begin() + start + kContext);
      b.targets.insert(b.targets.end(), train_ids.begin() + start + 1, train_ids.begin() + start + kContext + 1);
    }
    return m.forward(b);
  };
  h.backward = [&] { m.backward(); };
  h.evaluate = [&](const LoopState& st) {
    const LmEval e = engine_eval(cfg, m.weights(), held_ids, 32);
    log << "step " << std::setw(5) << st.step << "  train loss " << std::setprecision(3) << st.smoothed_loss
        << "  held-out ppl (32 windows) " << std::setprecision(1) << e.perplexity() << "  (" << st.wall_seconds
        << " s, cpu " << st.cpu_seconds << " s)\n"
        << std::flush;
  };
  const LoopState& done = loop.run(h);
  const double wall = done.wall_seconds, cpu = done.cpu_seconds;

  nlohmann::json j;
  j["recipe"] = "brown-gpt";
  j["parameters"] = m.params.num_elements();
  j["vocab_size"] = tok.vocab_size();
  j["steps"] = steps;
  j["batch"] = kBatch;
  j["context"] = kContext;
  j["seed"] = opt.seed;
  j["training_tokens"] = train_ids.size();
  j["tokens_seen"] = static_cast<long>(steps) * kBatch * kContext;
  j["train_wall_seconds"] = wall;
  j["train_cpu_seconds"] = cpu;
  j["tokenizer_seconds"] = bpe_s;
  j["heldout_tokens"] = held_ids.size();
  j["heldout_words"] = held_words;
  if (!opt.out_dir.empty()) {
    nlohmann::json c = nlohmann::json::parse(model::config_to_json(cfg));
    c["eos_token_id"] = eos;
    model::save_model_dir(opt.out_dir, c.dump(2),
                          model::save_weights_by_role(cfg, m.weights(), io::DType::F16),
                          to_tokenizer_json(tok));
    // The final figures come from the saved files (F16 weights), as `tfp eval` computes them.
    const model::LoadedModel lm = model::load_model_dir(opt.out_dir);
    const LmEval e = engine_eval(lm.config(), lm.weights(), held_ids, 0);
    j["heldout_perplexity"] = e.perplexity();
    j["heldout_windows"] = e.windows;
    j["samples"] = samples(lm);
    const std::string rep = j.dump(2);
    io::write_file(io::join_path(opt.out_dir, "train_report.json"), rep.data(), rep.size());
    log << "wrote " << opt.out_dir << "/{config.json,model.safetensors,tokenizer.json,train_report.json}\n";
  } else {
    const LmEval e = engine_eval(cfg, m.weights(), held_ids, 0);
    j["heldout_perplexity"] = e.perplexity();
    j["heldout_windows"] = e.windows;
  }
  log << "held-out perplexity " << std::setprecision(2) << j["heldout_perplexity"].get<double>()
      << " per token over " << j["heldout_windows"].get<int>() << " windows\n";
  return j;
}

nlohmann::json eval_brown_gpt(const BrownRunOptions& opt, const std::vector<brown::Document>& docs,
                              std::ostream& log) {
  const std::string dir = opt.model_dir.empty() ? "models/brown-gpt" : opt.model_dir;
  model::Precision precision = model::Precision::stored;
  TFP_CHECK(model::precision_from_name(opt.precision, &precision), "eval brown-gpt: --precision '", opt.precision,
            "' is not one of f32, f16, int8");
  const model::LoadedModel lm = model::load_model_dir(dir, precision);
  TFP_CHECK(lm.tokenizer != nullptr, "eval brown-gpt: ", dir, " has no tokenizer.json");
  TFP_CHECK(lm.config().architecture == model::Architecture::decoder_only,
            "eval brown-gpt: ", dir, " is not a decoder-only model");
  const auto eos = lm.tokenizer->token_to_id("<|endoftext|>");
  TFP_CHECK(eos.has_value(), "eval brown-gpt: the tokenizer has no <|endoftext|>");
  long words = 0;
  const std::vector<int32_t> held = lm_stream(*lm.tokenizer, docs, true, *eos, &words);
  const LmEval e = engine_eval(lm.config(), lm.weights(), held, opt.limit);
  log << "brown-gpt held-out perplexity " << std::fixed << std::setprecision(2) << e.perplexity()
      << " over " << e.windows << " windows (" << e.tokens << " tokens)\n";
  return {{"model", dir},
          {"precision", model::weights_precision_held(lm.config(), lm.weights())},
          {"heldout_perplexity", e.perplexity()},
          {"windows", e.windows},
          {"tokens", e.tokens},
          {"samples", samples(lm)}};
}

}  // namespace tfp::train
