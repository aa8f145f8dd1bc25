/* The Learn chapter "The encoder layer": LayerNorm on the reader's rows with each row's
 * statistics before and after, the residual stream of a seeded deep encoder stack (pre-LN
 * against post-LN), the activation functions on a range of x, and the shipped tagger
 * (models/brown-pos) read layer by layer with its feed-forward hidden activations. Every
 * number comes from the functions the models run (nn/layer_norm, nn/encoder_layer through
 * model::encoder_stack, nn/feed_forward's activations, inspect/logit_lens tagger_lens,
 * inspect/stream_stats). Conventions of tfp_api.h (int status, tfp_last_error, ownership
 * stated, float32 row-major). Exported from the WASM module like every src/api/tfp_*_api.h.
 * Shapes: T tokens (rows), C channels (features), F feed-forward width, L layers,
 * R = L + 1 lens rows, N labels. */
#ifndef TFP_LEARN_ENCODER_API_H
#define TFP_LEARN_ENCODER_API_H

#include "api/tfp_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* LayerNorm of x (T, C) over each row's C features (nn::layer_norm, as PyTorch
 * nn.LayerNorm(C)): y = (x - mean) / sqrt(var + eps) * gamma + beta, biased variance.
 * x (T, C), gamma (C), beta (C) borrowed; gamma NULL = ones, beta NULL = zeros; eps > 0.
 * T, C in [1, 4096]. *out (caller-owned tensor list; NULL on failure) receives
 *   "y"        (T, C)  the normalised rows
 *   "row_in"   (T, 2)  each row of x: mean, biased variance (÷C), in double
 *   "row_out"  (T, 2)  the same of y (gamma = 1, beta = 0: mean 0, variance var/(var+eps))
 *   "col_out"  (C, 2)  each column (feature) of y over the T rows: mean, variance - what
 *                      LayerNorm does NOT normalise
 * Errors: a size out of range, a NULL x, a non-finite value (naming row and column), eps
 * not > 0 (TFP_ERR_INVALID_ARGUMENT). */
int tfp_learn_layer_norm(const float* x, int T, int C, const float* gamma, const float* beta, float eps,
                         tfp_tensors** out);

/* What tfp_learn_encoder_depth builds (tfp_api.h "parameter structs"); the meaning of each
 * field below. Defaults (tfp_learn_encoder_depth_params_init): every field 0 (set the sizes). */
typedef struct tfp_learn_encoder_depth_params {
  int32_t C;          /* width, 4..256 */
  int32_t H;          /* heads, dividing C */
  int32_t F;          /* feed-forward width, 1..1024 */
  int32_t T;          /* tokens, 1..64 */
  int32_t L;          /* layers, 1..96 */
  int32_t activation; /* 0 relu, 1 gelu (erf), 2 gelu_new (tanh) */
  int32_t norm_first; /* 1 pre-LN, 0 post-LN */
  uint32_t seed;      /* of the weights and the input */
} tfp_learn_encoder_depth_params;
void tfp_learn_encoder_depth_params_init(tfp_learn_encoder_depth_params* p);

/* The residual stream through a seeded random encoder stack of L layers (the engine's
 * nn::encoder_layer via model::encoder_stack, no final norm, no mask): width C, H heads
 * (dividing C), feed-forward width F, activation 0 = relu, 1 = gelu (erf), 2 = gelu_new
 * (tanh); norm_first 1 = pre-LN (x + f(LN(x))), 0 = post-LN (LN(x + f(x))). Weights are
 * model::random_weights(seed) with every matrix normal(0, 1/sqrt(C)), unit gammas, zero
 * biases; the input x (T, C) is uniform in [-sqrt(3), sqrt(3)) (variance 1) from
 * `seed`. The same seed and sizes give the same stack for both placements, so pre-LN and
 * post-LN differ only in where the norm sits. Sizes: C in [4, 256], H in [1, C], F in
 * [1, 1024], T in [1, 64], L in [1, 96]. Writes (L + 1, 3) doubles to out (caller-owned):
 * row 0 the input, row l the output of layer l ("enc.{l-1}.out"):
 *   [l, 0]  rms of the residual stream: sqrt(mean of h²) over all T·C values
 *   [l, 1]  rms of the change the layer made: rms(h_l - h_{l-1}); 0 in row 0
 *   [l, 2]  cosine of h_l with the input h_0 (all T·C values as one vector); 1 in row 0:
 *           how much of the input the stream still carries along the identity paths */
int tfp_learn_encoder_depth(const tfp_learn_encoder_depth_params* p, double* out);

/* The activation functions of the feed-forward block (nn::apply_activation, the kernels
 * every model calls) on n values: kind 0 = relu, 1 = gelu (erf, BERT and PyTorch "gelu"),
 * 2 = gelu_new (tanh approximation, GPT-2). x (n) borrowed, y (n) caller-owned; n in
 * [1, 1 << 20]; x must be finite. */
int tfp_learn_activation(int kind, const float* x, int n, float* y);

/* An encoder-only token classifier (models/brown-pos) on ids (n, borrowed), read layer by
 * layer (inspect/logit_lens.h tagger_lens): each residual stream - the embeddings, then
 * each encoder layer's output - through the encoder's final norm and the classifier,
 * softmax in double. The same forward pass records every layer's feed-forward hidden
 * activations through the observer. Runs under the model's head mask. *out (caller-owned;
 * NULL on failure) receives
 *   "probs"           (R, T, N)  label probabilities; row 0 = embeddings, row l+1 = after
 *                                layer l; the last row is the model's own output
 *                                (tfp_model_forward's softmax(logits))
 *   "enc.l.ffn.hidden" (T, F)    for l = 0 .. L-1: act(x·W1ᵀ + b1) of layer l, the input
 *                                x being LN2(h) in a pre-LN layer and h in a post-LN one
 *   "stream"     (R, T, C)  the residual stream: "embed.out", then "enc.l.out"
 *   "attn_out"   (L, T, C)  each layer's self-attention output before the residual add
 *   "ffn_out"    (L, T, C)  each layer's feed-forward output before the residual add
 *                           (pre-LN: stream[l+1] = (stream[l] + attn_out[l]) + ffn_out[l])
 *   "stream_rms" (R, T), "attn_rms" (L, T), "ffn_rms" (L, T)  each token's rms over C of
 *                           the three above (inspect::row_rms, in double)
 * Errors: not an encoder-only model with a token classifier, no ids (TFP_ERR_INVALID_ARGUMENT);
 * ids outside the vocabulary or longer than the context (TFP_ERR_ENGINE). */
int tfp_learn_tagger_layers(tfp_model* model, const int32_t* ids, int n, tfp_tensors** out);

#ifdef __cplusplus
}
#endif

#endif /* TFP_LEARN_ENCODER_API_H */
