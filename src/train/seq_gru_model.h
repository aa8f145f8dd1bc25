// A trainable recurrent encoder–decoder with additive attention (Bahdanau, Cho & Bengio
// 2015, "Neural Machine Translation by Jointly Learning to Align and Translate"): the
// model the Transformer replaced, trained here on the same task as numbers-transformer so
// the tutorials can put its attention next to Transformer cross-attention.
//
//   encoder   x_j = E[src_j];  h→_j = GRU→(x_j, h→_{j−1});  h←_j = GRU←(x_j, h←_{j+1})
//             h_j = [h→_j ; h←_j]   (Ce = 2H; unidirectional: h_j = h→_j, Ce = H)
//   bridge    s_0 = tanh(W_b · summary + b_b), summary = h←_0 (bidirectional: the backward
//             GRU has read the whole source when it reaches position 0) or h→_last
//   decoder, step t (input token y_{t−1}, starting from the start mark):
//             e_tj = vᵀ tanh(W_q s_{t−1} + b_q + U h_j)    α_t = softmax(e_t)   c_t = Σ_j α_tj h_j
//             s_t  = GRU_dec([E[y_{t−1}] ; c_t], s_{t−1})
//             logits_t = W_o [s_t ; c_t] + b_o
// The attention reads s_{t−1}, the state BEFORE emitting token t, as in the paper: α_t is
// where the model looks to decide output t. Padded source positions are masked; the
// encoder GRUs keep their state unchanged across padding (a padded step copies h), so
// the forward final state is the state at the last real character.
//
// Parameters (names are the safetensors names of the exported model; PyTorch nn.GRU's
// gate order r|z|n and names for the GRUs):
//   embed.weight (V, E)          shared by source and target (one character vocabulary)
//   encoder.{weight_ih_l0 (3H, E), weight_hh_l0 (3H, H), bias_ih_l0 (3H), bias_hh_l0 (3H)}
//   encoder.*_l0_reverse         the backward direction (bidirectional only)
//   bridge.weight (D, H), bridge.bias (D)
//   attention.query.weight (A, D), attention.query.bias (A), attention.key.weight (A, Ce),
//   attention.v (A)
//   decoder.{weight_ih (3D, E + Ce), weight_hh (3D, D), bias_ih (3D), bias_hh (3D)}
//   out.weight (V, D + Ce), out.bias (V)
//
// Batch encoding is the Transformer trainer's (train_model.h Batch): src/src_pad (B, S),
// decoder inputs tgt (B, T) and targets (B, T) with ignore_index on padding.
//
// Legend: B sequences, S source tokens, T target steps, V vocab, E embedding width,
// H encoder GRU width (per direction), Ce encoder state width, D decoder width,
// A attention width.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/gru_seq2seq.h"
#include "train/cross_entropy.h"
#include "train/param_store.h"
#include "train/seq_gru_attention.h"
#include "train/seq_gru_cell.h"
#include "train/train_model.h"

namespace tfp::train {

template <class T>
class GruSeq2Seq {
 public:
  explicit GruSeq2Seq(const model::GruSeq2SeqConfig& cfg);

  // Seeded uniform ±1/√width for GRU and linear weights (PyTorch's GRU default),
  // uniform ±0.1 embeddings, zero biases: the same numbers natively and in WASM.
  void init(uint64_t seed);

  CrossEntropyResult forward(const Batch& batch, double label_smoothing = 0.0);
  void backward();  // adds ∂loss/∂θ into params.grad for the last forward

  const model::GruSeq2SeqConfig& config() const { return cfg_; }
  ParamStore<T> params;
  const std::vector<T>& logits() const { return logits_; }  // (B, T, V)
  // Attention of the last forward: (B, T, S), row t = α_t.
  std::vector<T> attention() const;

 private:
  struct Gru {
    Param<T>* w_ih; Param<T>* w_hh; Param<T>* b_ih; Param<T>* b_hh;
    GruCellWeights<T> weights() const;
    GruCellGrads<T> grads() const;
  };
  Gru gru(const std::string& prefix, const std::string& suffix);
  void encoder_direction_forward(int d);
  void encoder_direction_backward(int d, const std::vector<T>& denc);

  model::GruSeq2SeqConfig cfg_;
  int V_, E_, H_, Ce_, D_, A_, ndir_;
  Param<T>* embed_;
  Gru enc_[2], dec_;
  Param<T>* bridge_w_; Param<T>* bridge_b_;
  Param<T>* q_w_; Param<T>* q_b_; Param<T>* k_w_; Param<T>* v_;
  Param<T>* out_w_; Param<T>* out_b_;

  // Activations of the last forward.
  Batch batch_;
  int B_ = 0, S_ = 0, T_ = 0;
  std::vector<T> src_x_;                        // (B, S, E)
  std::vector<std::vector<T>> enc_h_[2];        // per direction: S+1 states (B, H); [0] = zeros
  std::vector<GruCellCache<T>> enc_cache_[2];   // per direction, per processing step
  std::vector<T> enc_out_;                      // (B, S, Ce)
  std::vector<T> keys_;                         // (B, S, A)
  std::vector<T> summary_;                      // (B, H)
  std::vector<std::vector<T>> s_;               // T+1 decoder states (B, D); s_[0] = bridge
  std::vector<std::vector<T>> q_, ctx_, x_, o_; // per step: (B, A), (B, Ce), (B, E+Ce), (B, D+Ce)
  std::vector<AdditiveStepCache<T>> attn_;
  std::vector<GruCellCache<T>> dec_cache_;
  std::vector<T> logits_, dlogits_;             // (B, T, V)
};

// One batch of the number-words task for the GRU trainer (same as NumbersTask::encode).
model::GruSeq2SeqConfig numbers_gru_config(int embed = 32, int hidden = 64, int dec_hidden = 128,
                                           int attn = 64, bool bidirectional = true);

}  // namespace tfp::train
