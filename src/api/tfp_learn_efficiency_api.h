/* The Learn chapter "Efficiency": attention's cost over T, sparse patterns that skip the
 * work they mask, linear attention, and int8 weights on brown-gpt. The conventions of
 * tfp_api.h hold (int status, tfp_last_error, ownership stated). Exported from the WASM
 * module like tfp_api.h (cmake/wasm_module.cmake).
 *
 * Sparse patterns (nn/sparse_attention.h): kind 0 window (|i - j| <= w), 1 dilated
 * (|i - j| <= w·d and d divides i - j), 2 global (the window, plus the first g tokens see
 * and are seen by every token); causal 1 also keeps j <= i only.
 *
 * Legend: T tokens, d model width (d_model), H heads, D = d/H head size. */
#ifndef TFP_LEARN_EFFICIENCY_API_H
#define TFP_LEARN_EFFICIENCY_API_H

#include "api/tfp_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A sparse pattern over T tokens (tfp_api.h "parameter structs"). Defaults
 * (tfp_learn_sparse_params_init): every field 0 except dilation 1. */
typedef struct tfp_learn_sparse_params {
  int32_t kind;     /* 0 window, 1 dilated, 2 global (above) */
  int32_t T;        /* tokens */
  int32_t window;   /* w >= 0 */
  int32_t dilation; /* d >= 1 */
  int32_t n_global; /* g >= 0 */
  int32_t causal;   /* 1: also j <= i only */
} tfp_learn_sparse_params;
void tfp_learn_sparse_params_init(tfp_learn_sparse_params* p);

/* The pattern p as a (T, T) matrix: out[i·T + j] = 1 if query i may see key j, else 0
 * (rows queries, columns keys). T in 1..1024, w >= 0, d >= 1, g >= 0.
 *   out      (T·T) caller-owned bytes
 *   pairs    (1) caller-owned double: allowed pairs = the 1s in out */
int tfp_learn_sparse_pattern(const tfp_learn_sparse_params* p, uint8_t* out, double* pairs);

/* Stacked layers (nn::sparse_reach): out[i·T + j] = the first layer l in 1..layers after
 * which key position j can influence query i's output through allowed pairs, 0 if none
 * within `layers`. T in 1..256, layers in 1..16, pattern p as above.
 *   out       (T·T) caller-owned int32
 *   farthest  (1) caller-owned double: max |i − j| over the pairs reached after `layers` */
int tfp_learn_sparse_reach(const tfp_learn_sparse_params* p, int layers, int32_t* out, double* farthest);

/* Columns of one row of tfp_learn_efficiency_timing's output. */
enum tfp_learn_efficiency_column {
  TFP_EFF_FULL_MS = 0,        /* attention over all T² pairs (scaled_dot_product_attention) */
  TFP_EFF_MASKED_MS = 1,      /* the same with the pattern as a dense -inf mask */
  TFP_EFF_SPARSE_MS = 2,      /* the sparse path: only the allowed pairs (sparse_attention) */
  TFP_EFF_LINEAR_MS = 3,      /* linear attention, φ(x) = elu(x) + 1 (linear_attention) */
  TFP_EFF_SCORE_BYTES = 4,    /* H·T²·4: the float32 score matrices of one layer */
  TFP_EFF_SPARSE_PAIRS = 5,   /* allowed pairs per head */
  TFP_EFF_SPARSE_BYTES = 6,   /* H·pairs·4: the scores the sparse path computes */
  TFP_EFF_LINEAR_BYTES = 7,   /* H·(D·D + D)·4: linear attention's Σφ(k)vᵀ and Σφ(k) */
  TFP_EFF_SPARSE_DIFF = 8,    /* max |sparse − masked| over every output */
  TFP_EFF_LINEAR_REL_ERR = 9, /* ‖linear − full‖ / ‖full‖ (Frobenius, all outputs) */
  TFP_EFF_COLUMNS = 10
};

/* What tfp_learn_efficiency_timing measures (tfp_api.h "parameter structs"). Defaults
 * (tfp_learn_efficiency_params_init): d 128, heads 4, lengths NULL, n_lengths 0, kind 0,
 * window 16, dilation 1, n_global 0, repeats 7, seed 1. */
typedef struct tfp_learn_efficiency_params {
  int32_t d;               /* model width, 1..1024 */
  int32_t heads;           /* >= 1, dividing d */
  const int32_t* lengths;  /* (n_lengths) the T to measure, each 1..2048 */
  int32_t n_lengths;       /* 1..16 */
  int32_t kind;            /* the sparse pattern (above): 0 window, 1 dilated, 2 global */
  int32_t window;          /* w */
  int32_t dilation;        /* d of the dilated pattern */
  int32_t n_global;        /* g of the global pattern */
  int32_t repeats;         /* rounds, 1..20: a time is the fastest */
  uint32_t seed;           /* of q, k, v */
} tfp_learn_efficiency_params;
void tfp_learn_efficiency_params_init(tfp_learn_efficiency_params* p);

/* For each T in p->lengths (borrowed, 1..16 values, each 1..2048): seeded per-head q, k, v
 * (H, T, D) with D = d / heads, entries uniform with variance 1 (as after a projection of
 * a normalised input), and the four attention cores above on them (scale 1/√D; linear
 * attention has none). Only the cores are timed: the projections are the same for all.
 * A time is the fastest of `repeats` (1..20) rounds, a round the mean of as many calls as
 * fill 2 ms; one untimed call of each first (and 60 ms of warm-up on the first call in a
 * process). d in 1..1024, heads >= 1 dividing d.
 *   out  (n_lengths, TFP_EFF_COLUMNS) caller-owned doubles, row i for lengths[i] */
int tfp_learn_efficiency_timing(const tfp_learn_efficiency_params* p, double* out);

/* brown-gpt (any decoder model) with its weight matrices quantised to int8 per output
 * channel (nn/quantize_int8.h) and dequantised: every rank-2 weight (the linear layers'
 * weights, token and position embeddings; the token table is also the tied output
 * head). Biases and LayerNorm stay float32. Both models run on ids (n tokens, 2..context).
 *   out (8) caller-owned doubles:
 *     [0] max |logit_int8 − logit_f32| over every position and token
 *     [1] perplexity of the f32 model on ids: exp(mean −log p(ids[t+1] | ids[..t]))
 *         over the n − 1 predictions (train/cross_entropy.h's mean loss)
 *     [2] the same with int8 weights
 *     [3] bytes of all weights as float32
 *     [4] bytes with the matrices in int8 (1 byte each + 4 per channel scale) and the
 *         rest float32
 *     [5] weights quantised (count)  [6] all weights (count)
 *     [7] max |W' − W| over every quantised weight (the round trip's error) */
int tfp_learn_int8_model(tfp_model* model, const int32_t* ids, int n, double* out);

/* Linear attention on a small typed input, one head (nn::linear_attention, φ(x) = elu(x) + 1,
 * no scale), beside softmax attention on the same q, k, v (scale 1/√D, the same mask).
 * q (T, D), k (T, D), v (T, Dv) borrowed row-major; T 1..32, D and Dv 1..16; causal: query i
 * reads keys 0..i. *out (caller-owned tensor list, tfp_tensors_free; NULL on failure):
 *   "phi_q" (T, D), "phi_k" (T, D)  the feature maps φ(q_i), φ(k_j) (every entry > 0)
 *   "out"       (T, Dv)     out_i = φ(q_i)ᵀ S / φ(q_i)ᵀ z (causal: S_i and z_i)
 *   "weights"   (T, T)      the weights it implies: φ(q_i)·φ(k_j) over the row's sum
 *   "state"     (T, D, Dv)  S_j = Σ_{j' <= j} φ(k_j') v_j'ᵀ, the running state after key j
 *                           (the causal form's; the last one is the non-causal S)
 *   "norm"      (T, D)      z_j = Σ_{j' <= j} φ(k_j')
 *   "numerator" (T, Dv), "denominator" (T)  φ(q_i)ᵀ S and φ(q_i)ᵀ z with the state query i
 *                           reads (causal: S_i, z_i; else the last): out = their quotient
 *   "softmax_out" (T, Dv), "softmax_weights" (T, T)  softmax(q·kᵀ/√D) v
 * Errors: a size outside its range or a NULL or non-finite input (TFP_ERR_INVALID_ARGUMENT,
 * naming the matrix, row and column). */
int tfp_learn_linear_attention(const float* q, const float* k, const float* v, int T, int D, int Dv, int causal,
                               tfp_tensors** out);

#ifdef __cplusplus
}
#endif

#endif /* TFP_LEARN_EFFICIENCY_API_H */
