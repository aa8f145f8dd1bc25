// The recurrent encoder–decoder with additive attention (models/numbers-gru) at
// inference: its config.json, its safetensors layout, loading, and greedy decoding that
// returns the attention weights of every output step — the 2014 attention the tutorials
// show next to a Transformer's cross-attention.
//
// config.json:
//   { "model_type": "tfp_gru_seq2seq", "vocab_size": 67, "embed_dim": 32,
//     "encoder_hidden": 64, "bidirectional": true, "decoder_hidden": 128,
//     "attention_dim": 64, "max_source_positions": 72, "max_target_tokens": 7,
//     "eos_token_id": 1, "decoder_start_token_id": 2, "pad_token_id": 0 }
// model.safetensors: the tensors listed in train/seq_gru_model.h (F32 or F16), named as
// there. The maths is written out in that header; this file runs it with nn::gru_step and
// nn::additive_attention.
//
// Legend: S source tokens, T output tokens, V vocab, E embedding, H encoder GRU width,
// Ce encoder state width (2H bidirectional), D decoder width, A attention width.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "io/safetensors.h"
#include "model/beam.h"
#include "nn/additive_attention.h"
#include "nn/gru.h"
#include "tokenizer/tokenizer.h"

namespace tfp::model {

struct GruSeq2SeqConfig {
  int64_t vocab_size = 0;       // V
  int64_t embed_dim = 32;       // E
  int64_t encoder_hidden = 64;  // H per direction
  bool bidirectional = true;
  int64_t decoder_hidden = 128;  // D
  int64_t attention_dim = 64;    // A
  int64_t max_source_positions = 0;
  int64_t max_target_tokens = 0;  // output tokens including eos
  int32_t eos_token_id = -1;
  int32_t decoder_start_token_id = -1;
  int32_t pad_token_id = 0;

  int64_t encoder_width() const { return bidirectional ? 2 * encoder_hidden : encoder_hidden; }  // Ce
};

void check_gru_config(const GruSeq2SeqConfig& c);
// Parses and checks; errors name `source` and the field. Never lets a json exception out.
GruSeq2SeqConfig parse_gru_config_json(std::string_view text, const std::string& source = "config.json");
std::string gru_config_to_json(const GruSeq2SeqConfig& c);
// True when the text is a JSON object with "model_type": "tfp_gru_seq2seq".
bool is_gru_config_json(std::string_view text);

// Every tensor of the layout with its shape, in a stable order.
std::vector<std::pair<std::string, Shape>> gru_tensor_shapes(const GruSeq2SeqConfig& c);

struct GruSeq2SeqModel {
  GruSeq2SeqConfig config;
  std::shared_ptr<const io::SafeTensors> tensors;  // owns what the views point into
  std::unique_ptr<Tokenizer> tokenizer;            // null without tokenizer.json
  TensorView embed;                                // (V, E)
  nn::GruWeights enc_fwd, enc_bwd;                 // enc_bwd empty if unidirectional
  nn::Linear bridge;                               // H → D
  nn::AdditiveAttentionWeights attention;          // query W: D → A, key U: Ce → A, v (A)
  nn::GruWeights dec;                              // (E + Ce) → D
  nn::Linear out;                                  // (D + Ce) → V
};

// From bytes (browser) or a folder (config.json, model.safetensors, tokenizer.json).
// Errors name a missing, unexpected or mis-shaped tensor.
GruSeq2SeqModel load_gru_seq2seq(const std::string& config_json, std::vector<uint8_t> safetensors,
                                 const std::optional<std::string>& tokenizer_json,
                                 const std::string& name = "<memory>");
GruSeq2SeqModel load_gru_seq2seq_dir(const std::string& dir);

struct GruEncoded {
  Tensor states;   // (S, Ce) h_j
  Tensor summary;  // (H) the bridge's input
};
GruEncoded gru_encode(const GruSeq2SeqModel& m, std::span<const int32_t> src_ids);

struct GruDecodeResult {
  std::vector<int32_t> ids;  // output tokens, eos included when produced
  double log_prob = 0;       // Σ log p of those tokens
  Tensor attention;          // (T, S): row t = α_t, where the decoder looked to choose ids[t]
  Tensor scores;             // (T, S): row t = e_t, the additive scores before the softmax
};

// Greedy decoding: argmax at every step, stop at eos or max_tokens (0 = config's limit).
GruDecodeResult gru_greedy_decode(const GruSeq2SeqModel& m, std::span<const int32_t> src_ids,
                                  int max_tokens = 0);
// Teacher forcing: logits (T, V) and attention (T, S) for given decoder inputs (start
// mark first). Used by tests and to inspect a chosen output.
struct GruForwardResult {
  Tensor logits, attention;
  Tensor states;  // (T, D) s_t, the decoder state after reading tgt_ids[t]
};
GruForwardResult gru_forward(const GruSeq2SeqModel& m, std::span<const int32_t> src_ids,
                             std::span<const int32_t> tgt_ids);

// The decoder one step at a time (what greedy, teacher forcing and beam search share).
// s_0 (1, D) from the encoding; then each step attends with s_{t−1}, writes α_t into
// probs (S floats, may be null) and its scores e_t before the softmax into scores (S
// floats, may be null), replaces s (1, D) with s_t and returns the logits (V).
Tensor gru_initial_state(const GruSeq2SeqModel& m, const GruEncoded& enc);
Tensor gru_decoder_step(const GruSeq2SeqModel& m, const GruEncoded& enc, Tensor& s, int32_t y_prev, float* probs,
                        float* scores = nullptr);

// Greedy (beam_size 1) or beam search (model/beam.h beam_search, the Transformer's
// search) with opt.start_id (-1: config's decoder_start_token_id), opt.eos_id (-1:
// config's eos_token_id) and opt.max_tokens (0: config's max_target_tokens). The result's
// alignment is the chosen output's attention (T, S) and cross_probs one (1, T, S) tensor:
// additive attention is one "head" of one cross-attention "layer".
Translation gru_translate(const GruSeq2SeqModel& m, std::span<const int32_t> src_ids, DecodeOptions opt);

}  // namespace tfp::model
