// Greedy and beam-search decoding for encoder–decoder models (see beam.h).
#include "model/beam.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "nn/observer.h"
#include "model/kv_cache.h"

namespace tfp::model {

namespace {

struct Beam {
  std::vector<int32_t> ids;             // output tokens so far (the start token excluded)
  double log_prob = 0;
  std::unique_ptr<DecoderState> state;  // has seen start + ids
  std::vector<double> log_p;            // (V) log-probabilities of the next token
};

struct Candidate {
  size_t beam;
  int32_t token;
  double log_prob;        // the beam's total plus this token's
  double token_log_prob;  // this token's
};

// log softmax in double precision; the max is subtracted before exp (no overflow).
std::vector<double> log_softmax(const std::vector<float>& z) {
  const double mx = *std::max_element(z.begin(), z.end());
  double sum = 0;
  for (float v : z) sum += std::exp(v - mx);
  const double log_z = mx + std::log(sum);
  std::vector<double> out(z.size());
  for (size_t i = 0; i < z.size(); ++i) out[i] = z[i] - log_z;
  return out;
}

double score_of(double log_prob, size_t length, float length_penalty) {
  return log_prob / std::pow(static_cast<double>(std::max<size_t>(length, 1)), length_penalty);
}

// Feeds `token` to the beam's state and stores the next-token log-probabilities.
void advance(Beam& b, int32_t token, int64_t vocab_size) {
  const std::vector<float> logits = b.state->step(token);  // (V)
  TFP_CHECK(static_cast<int64_t>(logits.size()) == vocab_size, "translate: the decoder gave ", logits.size(),
            " logits for a vocabulary of ", vocab_size);
  b.log_p = log_softmax(logits);
}

// The Transformer's decoder memory: a KV cache over the encoded source.
class TransformerState final : public DecoderState {
 public:
  TransformerState(const ModelConfig& cfg, const ModelWeights& w, const Tensor& memory,
                   const std::vector<uint8_t>& src_padding, int64_t context, nn::Observer* obs)
      : cfg_(cfg), w_(w), memory_(memory), src_padding_(src_padding), cache_(cfg, context), obs_(obs) {}
  std::unique_ptr<DecoderState> clone() const override { return std::make_unique<TransformerState>(*this); }
  std::vector<float> step(int32_t token) override {
    const int32_t ids[1] = {token};
    const ForwardResult r = encoder_decoder_step(cfg_, w_, cache_, memory_, src_padding_, ids, obs_);  // (1, V)
    return std::vector<float>(r.logits.row(0), r.logits.row(0) + r.logits.dim(-1));
  }

 private:
  const ModelConfig& cfg_;
  const ModelWeights& w_;
  const Tensor& memory_;  // (S, C)
  const std::vector<uint8_t>& src_padding_;
  KVCache cache_;  // each beam owns its past: clone() copies it
  nn::Observer* obs_;  // DecodeOptions::observer (borrowed), may be null
};

}  // namespace

Translation beam_search(const DecoderState& root, const DecodeOptions& opt, int max_tokens, int64_t vocab_size) {
  TFP_CHECK(opt.start_id >= 0 && opt.start_id < vocab_size, "translate: start token id ", opt.start_id,
            " is outside the vocabulary [0, ", vocab_size, ")");
  std::unique_ptr<DecoderState> started = root.clone();
  std::vector<float> first = started->step(opt.start_id);
  return beam_search(*started, std::move(first), opt, max_tokens, vocab_size);
}

Translation beam_search(const DecoderState& root, std::vector<float> first_logits, const DecodeOptions& opt,
                        int max_tokens, int64_t vocab_size) {
  TFP_CHECK(opt.beam_size >= 1 && opt.beam_size <= 1024, "translate: beam_size must be in [1, 1024], got ",
            opt.beam_size);
  TFP_CHECK(opt.eos_id >= -1 && opt.eos_id < vocab_size, "translate: eos id ", opt.eos_id,
            " is outside the vocabulary [0, ", vocab_size, ")");
  TFP_CHECK(std::isfinite(opt.length_penalty), "translate: length_penalty must be finite");
  TFP_CHECK(max_tokens >= 1, "translate: max_tokens must be >= 1, got ", max_tokens);
  TFP_CHECK(static_cast<int64_t>(first_logits.size()) == vocab_size, "translate: the decoder gave ",
            first_logits.size(), " logits for a vocabulary of ", vocab_size);

  std::vector<Beam> beams(1);
  beams[0].state = root.clone();
  beams[0].log_p = log_softmax(first_logits);
  if (opt.trace) opt.trace->clear();

  struct Finished {
    std::vector<int32_t> ids;
    double log_prob, score;
    StopReason reason;
  };
  std::vector<Finished> finished;
  const size_t K = static_cast<size_t>(opt.beam_size);

  for (int step = 0; step < max_tokens && !beams.empty(); ++step) {
    // The best 2K continuations of every beam, then all of them ranked together.
    std::vector<Candidate> cand;
    for (size_t b = 0; b < beams.size(); ++b) {
      const std::vector<double>& lp = beams[b].log_p;
      std::vector<int32_t> order(lp.size());
      std::iota(order.begin(), order.end(), 0);
      const size_t n = std::min(order.size(), 2 * K);
      std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(n), order.end(),
                        [&](int32_t x, int32_t y) { return lp[x] > lp[y] || (lp[x] == lp[y] && x < y); });
      for (size_t i = 0; i < n; ++i) cand.push_back({b, order[i], beams[b].log_prob + lp[order[i]], lp[order[i]]});
    }
    std::stable_sort(cand.begin(), cand.end(),
                     [](const Candidate& x, const Candidate& y) { return x.log_prob > y.log_prob; });
    std::vector<BeamCandidate::Fate> fate(cand.size(), BeamCandidate::Fate::dropped);

    const bool last = step + 1 == max_tokens;
    std::vector<Beam> next;
    for (size_t rank = 0; rank < cand.size() && next.size() < K; ++rank) {
      const Candidate& c = cand[rank];
      std::vector<int32_t> ids = beams[c.beam].ids;
      ids.push_back(c.token);
      if (c.token == opt.eos_id) {
        if (rank < K) {
          finished.push_back({ids, c.log_prob, score_of(c.log_prob, ids.size(), opt.length_penalty), StopReason::eos});
          fate[rank] = BeamCandidate::Fate::eos;
        }
        continue;
      }
      if (last) {  // out of room: a live beam is a hypothesis as it stands
        finished.push_back({ids, c.log_prob, score_of(c.log_prob, ids.size(), opt.length_penalty),
                            StopReason::max_tokens});
        fate[rank] = BeamCandidate::Fate::length;
        next.emplace_back();  // counts towards K, never advanced
        continue;
      }
      fate[rank] = BeamCandidate::Fate::live;
      Beam b;
      b.ids = std::move(ids);
      b.log_prob = c.log_prob;
      b.state = beams[c.beam].state->clone();  // each beam owns its past
      advance(b, c.token, vocab_size);
      next.push_back(std::move(b));
    }
    if (opt.trace) {
      BeamStep st;
      for (size_t rank = 0; rank < std::min(cand.size(), 2 * K); ++rank) {
        const Candidate& c = cand[rank];
        st.ranked.push_back({static_cast<int32_t>(c.beam), c.token, c.log_prob, c.token_log_prob, fate[rank]});
      }
      opt.trace->push_back(std::move(st));
    }
    if (last || finished.size() >= K) break;
    beams = std::move(next);
  }
  TFP_CHECK(!finished.empty(), "translate: internal: no hypothesis finished");

  const auto best = std::max_element(finished.begin(), finished.end(), [](const Finished& a, const Finished& b) {
    return a.score < b.score;  // first of equal scores wins (max_element keeps the first)
  });
  Translation t;
  t.ids = best->ids;
  t.log_prob = best->log_prob;
  t.score = best->score;
  t.reason = best->reason;
  return t;
}

Translation decode_seq2seq(const ModelConfig& cfg, const ModelWeights& w, std::span<const int32_t> src_ids,
                           const DecodeOptions& opt, const std::vector<uint8_t>& src_padding) {
  TFP_CHECK(cfg.architecture == Architecture::encoder_decoder && cfg.has_embeddings && cfg.lm_head,
            "translate: needs an encoder-decoder model with token embeddings and an LM head, this one is ",
            architecture_name(cfg.architecture), cfg.has_embeddings ? "" : " on embeddings",
            cfg.lm_head ? "" : " without an LM head");
  TFP_CHECK(!src_ids.empty(), "translate: the source is empty (no tokens)");
  TFP_CHECK(opt.beam_size >= 1 && opt.beam_size <= 1024, "translate: beam_size must be in [1, 1024], got ",
            opt.beam_size);
  TFP_CHECK(opt.start_id >= 0 && opt.start_id < cfg.vocab_size, "translate: start token id ", opt.start_id,
            " is outside the vocabulary [0, ", cfg.vocab_size, ")");
  const int64_t context = cfg.max_positions > 0 ? cfg.max_positions : 1024;
  TFP_CHECK(cfg.positional != Positional::learned || static_cast<int64_t>(src_ids.size()) <= context,
            "translate: the source has ", src_ids.size(), " tokens, more than the model's context of ", context);
  TFP_CHECK(opt.max_tokens >= 0, "translate: max_tokens must be >= 0, got ", opt.max_tokens);
  const int max_tokens = static_cast<int>(std::min<int64_t>(opt.max_tokens > 0 ? opt.max_tokens : context - 1,
                                                            context - 1));
  TFP_CHECK(max_tokens >= 1, "translate: the model's context (", context, ") leaves no room for output");

  const Tensor memory = encode_source(cfg, w, src_ids, src_padding, opt.observer);  // (S, C)
  Translation t = beam_search(TransformerState(cfg, w, memory, src_padding, context, opt.observer), opt, max_tokens,
                              cfg.vocab_size);

  // Alignment: the decoder input is start + every output token but the last, so row t
  // is the step that chose ids[t].
  std::vector<int32_t> tgt{opt.start_id};
  tgt.insert(tgt.end(), t.ids.begin(), t.ids.end() - 1);
  nn::RecordingObserver obs({"dec.*.cross.probs"});
  nn::ChainObserver chain(opt.observer, &obs);
  forward_encoder_decoder(cfg, w, src_ids, tgt, src_padding, &chain);
  for (int64_t i = 0; i < cfg.n_decoder_layers; ++i)
    t.cross_probs.push_back(obs.get("dec." + std::to_string(i) + ".cross.probs"));
  const Tensor& lastp = t.cross_probs.back();  // (H, T, S)
  const int64_t H = lastp.dim(0), T = lastp.dim(1), S = lastp.dim(2);
  t.alignment = Tensor({T, S});
  for (int64_t h = 0; h < H; ++h)
    for (int64_t i = 0; i < T * S; ++i) t.alignment.data[static_cast<size_t>(i)] += lastp.data[static_cast<size_t>(h * T * S + i)] / static_cast<float>(H);
  return t;
}

}  // namespace tfp::model
