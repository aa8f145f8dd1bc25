// Decoding an encoder–decoder token model: greedy and beam search, with the
// cross-attention alignment of the result.
//
// The source is encoded once (encode_source → memory (S, C)); the decoder starts from
// `start_id` and extends one token at a time through a KV cache (kv_cache.h). Beam
// search keeps the beam_size best partial outputs by total log-probability; each step
// looks at the best 2·beam_size continuations of every beam (as Hugging Face's
// BeamSearchScorer does): a continuation ending in eos within the first beam_size ranks
// becomes a finished hypothesis, the others refill the beams. Search stops once
// beam_size hypotheses are finished (early stopping) or after max_tokens tokens, when the
// live beams count as finished. Hypotheses are ranked by
//   score = (sum of log p) / length^length_penalty      (length counts eos)
// With beam_size 1 this is greedy decoding: argmax at every step, stop at eos.
//
// The search itself (beam_search) knows nothing of the model: it drives a DecoderState,
// one hypothesis' decoder memory that can be copied and fed one token. The Transformer
// implements it with a KV cache (decode_seq2seq below), the recurrent encoder–decoder
// with its GRU state (model/gru_seq2seq.h gru_translate), a decoder-only language model
// with its KV cache over the prompt (beam_generate, beam_generate.cpp) — one search for all.
// On request the search records each step's ranked candidates (BeamStep), which the
// Learn chapter "Generating text" draws.
//
// Alignment: the chosen output is run once more with teacher forcing under an observer;
// row t of "dec.i.cross.probs" is where the decoder looked in the source while choosing
// output token t.
//
// Legend: S source tokens, T output tokens, H heads, V vocabulary.
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "core/tensor.h"
#include "model/sampling.h"
#include "model/transformer.h"

namespace tfp::model {

// One continuation the search looked at in a step.
struct BeamCandidate {
  enum class Fate : uint8_t {
    dropped,   // ranked too low (or an eos outside the first beam_size ranks)
    live,      // became a beam of the next step
    eos,       // ended in eos within the first beam_size ranks: a finished hypothesis
    length,    // the last step: kept as a hypothesis at the length limit
  };
  int32_t beam = 0;           // the beam it extends: its index among the previous step's live beams (0 at step 1)
  int32_t token = 0;
  double log_prob = 0;        // that beam's total plus token_log_prob
  double token_log_prob = 0;  // log p(token | prompt or start, the beam's tokens)
  Fate fate = Fate::dropped;
};

// One step: every beam's best 2·beam_size continuations ranked together, the best
// 2·beam_size of them kept here (every live, eos or length fate is among them: at most
// beam_size eos are passed over before beam_size beams are filled), best first.
struct BeamStep {
  std::vector<BeamCandidate> ranked;
};

struct DecodeOptions {
  int beam_size = 1;           // 1 = greedy
  int max_tokens = 0;          // 0 = the model's context minus the start token
  int32_t start_id = -1;       // the decoder's first input; required (>= 0)
  int32_t eos_id = -1;         // ends a hypothesis; -1 = none (always max_tokens)
  float length_penalty = 1.0f; // exponent of the length in the score
  // Sees every forward pass of decode_seq2seq (encoder, each step, the alignment run),
  // e.g. the head mask of inspect/head_mask.h. Borrowed; null = none.
  nn::Observer* observer = nullptr;
  // Filled with one BeamStep per step the search ran when not null (borrowed).
  std::vector<BeamStep>* trace = nullptr;
};

struct Translation {
  std::vector<int32_t> ids;         // the output tokens (eos included when produced)
  double log_prob = 0;              // sum of log p of those tokens
  double score = 0;                 // log_prob / length^length_penalty
  StopReason reason = StopReason::max_tokens;  // eos or max_tokens
  std::vector<Tensor> cross_probs;  // per decoder layer (H, T, S)
  Tensor alignment;                 // (T, S) the last layer's cross_probs, mean over heads
};

// One hypothesis' decoder memory (a KV cache, a recurrent state): what a model gives the
// search. clone() copies it for a beam that branches; step(token) feeds one token (the
// start mark first, then each chosen output) and returns the next token's logits (V).
class DecoderState {
 public:
  virtual ~DecoderState() = default;
  virtual std::unique_ptr<DecoderState> clone() const = 0;
  virtual std::vector<float> step(int32_t token) = 0;
};

// The search: ids, log_prob, score and reason of the best hypothesis (no attention).
// root is a fresh state (nothing fed yet); opt.start_id is fed to it first. max_tokens
// (>= 1) is the limit already resolved by the caller. Checks beam_size, the ids against
// vocab_size and length_penalty.
Translation beam_search(const DecoderState& root, const DecodeOptions& opt, int max_tokens, int64_t vocab_size);

// The same search from a state that has already seen its context: first_logits (V) are
// the next token's logits after it (opt.start_id is not read).
Translation beam_search(const DecoderState& root, std::vector<float> first_logits, const DecodeOptions& opt,
                        int max_tokens, int64_t vocab_size);

// Decoder-only language model: beam search for the continuation of `prompt`. The prompt
// runs through a KV cache once (as model::Generator's prefill, so beam_size 1 chooses
// exactly the tokens of greedy generation); every beam then owns a copy of that cache.
// opt.max_tokens 0 = as many as fit; the continuation is cut to what fits the context
// (the prompt and all but the last new token: max_positions − P + 1). opt.eos_id −1 = no
// stop token; start_id is not read. The result's ids exclude the prompt; no cross_probs.
// Throws tfp::Error for a model that is not a decoder-only LM, an empty or over-long
// prompt, ids out of range, bad options.
Translation beam_generate(const ModelConfig& cfg, const ModelWeights& w, std::span<const int32_t> prompt,
                          const DecodeOptions& opt);

// src_padding (S): 1 = padded source token (masked as a key), empty = none.
// Throws tfp::Error for a model that is not an encoder–decoder token LM, an empty or
// over-long source, ids out of range, bad options.
Translation decode_seq2seq(const ModelConfig& cfg, const ModelWeights& w, std::span<const int32_t> src_ids,
                           const DecodeOptions& opt, const std::vector<uint8_t>& src_padding = {});

}  // namespace tfp::model
