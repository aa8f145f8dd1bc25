// A trainable transformer: the inference engine's model (model/config.h), with every
// activation the backward pass needs kept, and gradients for every parameter.
//
// Parameters are created from the engine's own role table (model::weight_slots), so
// they carry the engine's role names ("dec.0.attn.qkv.weight", "embed.token", ...) and
// shapes; weights() hands the engine views of them, so the trained model is checked
// against, run by, and saved with (model::save_weights_by_role) the inference code.
//
// Supported configs (checked, with a clear error otherwise): decoder_only (GPT-2-like:
// causal self-attention), encoder_decoder (Vaswani: encoder self-attention over the
// source, decoder causal self-attention + cross-attention) and encoder_only with a
// token_classifier head (a tagger: bidirectional self-attention with source padding
// masked as keys, then Linear C → n_labels per token), pre-LN or post-LN, ReLU or
// either GELU, learned, sinusoidal or no positions, tied or separate LM head with bias, fused q|k|v,
// embedding_scale 1, no embedding LayerNorm or token types, shared src/tgt embeddings.
//
// One step processes a batch of B sequences padded to a common length; every linear
// layer runs over all B·T rows at once, attention per sequence and head.
//
// Legend: B sequences, S source tokens, T target tokens, C width, F ffn width, V vocab.
#pragma once
#include <cstdint>
#include <vector>

#include "model/config.h"
#include "model/weights.h"
#include "train/activation_grad.h"
#include "train/attention_grad.h"
#include "train/cross_entropy.h"
#include "train/param_store.h"
#include "train/rng.h"

namespace tfp::train {

// One batch. Decoder-only uses only the target side. Encoder-only (token classifier)
// uses only the source side: src (B, S) ids, src_pad, and `targets` (B, S) holds one
// label per source token (ignore_index = not graded); T and tgt are unused.
struct Batch {
  int B = 0, S = 0, T = 0;
  std::vector<int> src;          // (B, S) source ids (encoder_decoder)
  std::vector<uint8_t> src_pad;  // (B, S) 1 = padding source token; empty = none
  std::vector<int> tgt;          // (B, T) decoder input ids
  std::vector<int> targets;      // (B, T) next-token targets; ignore_index = not graded
};

struct LossOptions {
  double label_smoothing = 0.0;
  int ignore_index = -100;
};

// Inverted dropout for one training forward (Srivastava et al. 2014; as nn.Dropout): each
// value of the embeddings (token + position) and of every residual branch's output (the
// attention sub-block's and the MLP's, before they are added to the residual stream) is
// kept with probability 1 − p and then scaled by 1/(1 − p), or set to 0. The masks are
// drawn in forward order from Rng(seed), so the same seed gives the same masks (natively
// and in WASM) and the backward multiplies the gradients by them. p = 0: off, the forward
// is exactly the one without dropout. Evaluation, generation and inspection pass none.
struct Dropout {
  double p = 0.0;
  uint64_t seed = 0;
};

template <class T>
class TrainModel {
 public:
  explicit TrainModel(const model::ModelConfig& cfg);

  // Seeded deterministic initialisation (same numbers natively and in WASM):
  // linear weights uniform ±√(6/(fan_in+fan_out)) (Glorot, as PyTorch's MHA in_proj),
  // embeddings uniform with standard deviation embed_std, biases and betas 0, gammas 1.
  void init(uint64_t seed, double embed_std = 0.1);

  // Forward over the batch, keeping activations; returns the mean loss over graded
  // positions. Logits are kept (logits()) for accuracy and decoding.
  CrossEntropyResult forward(const Batch& batch, const LossOptions& loss = {},
                             const Dropout& dropout = {});
  // Adds ∂loss/∂θ into params.grad (call params.zero_grad() first) for the last forward.
  void backward();

  const model::ModelConfig& config() const { return cfg_; }
  ParamStore<T> params;

  // (B, T, V) of the last forward; (B, S, n_labels) for an encoder-only classifier.
  const std::vector<T>& logits() const { return logits_; }
  int output_size() const { return O_; }  // V, or n_labels for a token classifier
  // Attention probabilities of the last forward, (B, H, Tq, Tk):
  // kind 0 = decoder self-attention, 1 = cross-attention, 2 = encoder self-attention.
  const std::vector<T>& attention_probs(int kind, int layer) const;

  // The engine's view of these parameters (float only; views valid while *this lives
  // and params are not resized). Use it to run model::forward_* or to save.
  model::ModelWeights weights() const;

 private:
  // A residual sub-layer, pre-LN: out = x + F(LN(x)); post-LN: out = LN(x + F(x)).
  struct NormCache {
    std::vector<T> out, mean, rstd;
  };
  struct Sublayer {
    std::vector<T> in;      // x (rows, C)
    NormCache norm;         // LN(x) for pre-LN, LN(x + F) for post-LN
    std::vector<T> f_out;   // F(...) (rows, C)
    std::vector<T> sum;     // x + F (post-LN only)
    std::vector<T> out;     // the sub-layer's output (rows, C)
    AttentionCache<T> attn; // when F is attention
    std::vector<T> h, a;    // when F is the FFN: fc1 output, activation output (rows, F)
    std::vector<T> drop;    // F's dropout mask, 0 or 1/(1 − p) (rows, C); empty = off
  };
  struct LayerCache {
    Sublayer self, cross, ffn;
  };
  struct Norm {
    Param<T>* gamma = nullptr;
    Param<T>* beta = nullptr;
  };
  struct Attn {
    Param<T>* in_w = nullptr; Param<T>* in_b = nullptr;
    Param<T>* out_w = nullptr; Param<T>* out_b = nullptr;
  };
  struct LayerParams {
    Attn self, cross;
    Norm norm_self, norm_cross, norm_ffn;
    Param<T>* fc1_w = nullptr; Param<T>* fc1_b = nullptr;
    Param<T>* fc2_w = nullptr; Param<T>* fc2_b = nullptr;
  };
  enum class Kind { SelfAttn, CrossAttn, Ffn };

  void bind_params();
  void sublayer_forward(Sublayer& s, Kind kind, const LayerParams& lp, const T* x, int B, int Tn,
                        const T* memory, int S, const AttentionMaskSpec& mask);
  void sublayer_backward(Sublayer& s, Kind kind, const LayerParams& lp, T* dx, const T* dout,
                         int B, int Tn, const T* memory, T* dmemory, int S);
  void stack_forward(bool encoder, const T* x0, int B, int Tn, const T* memory, int S);
  void stack_backward(bool encoder, T* dx0, const T* dout, int B, int Tn, const T* memory,
                      T* dmemory, int S);

  model::ModelConfig cfg_;
  int C_ = 0, F_ = 0, V_ = 0, H_ = 0, O_ = 0;  // O_: logits per token (V or n_labels)
  Param<T>* wte_ = nullptr;
  Param<T>* wpe_ = nullptr;                // learned positions (P, C), or null
  std::vector<T> fixed_positions_;         // sinusoidal positions (P, C), or empty
  std::vector<double> rope_theta_;         // RoPE: θ_p of each rotated pair, or empty
  std::vector<float> alibi_slopes_;        // ALiBi: one slope per head, or empty
  // The position table added to the embeddings: learned, sinusoidal, or null (none).
  const T* positions() const {
    return wpe_ ? wpe_->data() : fixed_positions_.empty() ? nullptr : fixed_positions_.data();
  }
  Param<T>* head_w_ = nullptr;  // separate LM head, or the token classifier
  Param<T>* head_b_ = nullptr;
  Norm enc_norm_, dec_norm_;
  std::vector<LayerParams> enc_params_, dec_params_;

  // Activations of the last forward.
  Batch batch_;
  std::vector<T> src_x_, tgt_x_;         // embeddings (B·S, C), (B·T, C)
  std::vector<LayerCache> enc_, dec_;
  NormCache enc_final_, dec_final_;
  CrossEntropyResult forward_encoder_only(const Batch& batch, const LossOptions& loss);
  // Dropout of the current forward: draws a mask for x (n values) and applies it; with
  // p = 0 clears the mask and leaves x as it is.
  void dropout_forward(std::vector<T>& mask, T* x, size_t n);
  double drop_p_ = 0;
  Rng drop_rng_;
  std::vector<T> src_drop_, tgt_drop_;   // the embeddings' masks
  void backward_encoder_only();
  std::vector<T> memory_, hidden_;       // encoder output (B·S, C), decoder output (B·T, C)
  std::vector<T> logits_, dlogits_;      // (B·T, V)
};

}  // namespace tfp::train
