/* The Learn chapter "Positional encoding": the sinusoidal table in both channel layouts,
 * its dot products, the rotation that takes PE(p) to PE(p + k), the cosine similarity of
 * a loaded model's learned position table, a relative-position bias with its buckets,
 * RoPE's rotated q and k with their score, and ALiBi's slopes and biases. Every number
 * comes from the functions in src/nn/positional_*.h. Conventions of tfp_api.h (int
 * status, tfp_last_error, caller-owned outputs, float32 row-major). Exported from the
 * WASM module like every src/api/tfp_*_api.h.
 * Shapes: T positions (rows = query positions, columns = key positions), C channels
 * (d_model), D head size, H heads, NB buckets. */
#ifndef TFP_LEARN_POSITIONS_API_H
#define TFP_LEARN_POSITIONS_API_H

#include "api/tfp_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The sinusoidal table for positions 0 .. T-1 (nn::sinusoidal_encoding, base 10000):
 * layout 0 = interleaved (sin in channel 2i, cos in 2i+1: the paper and this engine),
 * 1 = halves (the same numbers: sines in 0 .. C/2-1, cosines in C/2 .. C-1; C even),
 * 2 = tensor2tensor's timing signal (the halves order with its own frequencies
 * 10000^(-i/(C/2-1)); C even). out (T, C) caller-owned.
 * If dots is not NULL it receives (T, T) the dot products PE(p)·PE(q) (in double, then
 * rounded to float). T in [1, 512], C in [2, 512]. */
int tfp_learn_sinusoidal_table(int T, int C, int layout, float* out, float* dots);

/* The frequency ω_i of each pair i = 0 .. C/2-1 in a layout of tfp_learn_sinusoidal_table:
 * 10000^(-2i/C) for 0 and 1 (nn::sinusoidal_frequency), exp(-i·ln(10000)/(C/2-1)) for 2
 * (nn::timing_signal_frequency). out (C/2 doubles) caller-owned. C even, in [2, 512]. */
int tfp_learn_sinusoidal_frequencies(int C, int layout, double* out);

/* Number of doubles tfp_learn_sinusoidal_shift writes. */
#define TFP_LEARN_SIN_SHIFT_VALUES 10

/* PE(p + k) as a rotation of PE(p) for the channel pair i (channels 2i, 2i+1; 2i+1 < C):
 * out (10 doubles, caller-owned) =
 *   [0] ω_i = 10000^(-2i/C)   [1] the angle k·ω_i (radians)
 *   [2..5] M row-major = [[cos kω, sin kω], [-sin kω, cos kω]] (nn::sinusoidal_shift_matrix)
 *   [6..7] (PE[p, 2i], PE[p, 2i+1]) = (sin pω, cos pω) from the table
 *   [8..9] M · (sin pω, cos pω)
 * and [8..9] equals (PE[p+k, 2i], PE[p+k, 2i+1]) of the table, which the caller reads
 * from tfp_learn_sinusoidal_table. C in [2, 512], p, k >= 0, p + k <= 100000. */
int tfp_learn_sinusoidal_shift(int C, int pair, int p, int k, double* out);

/* Cosine similarity of the first P rows of a loaded model's learned position table
 * (embed.position, GPT-2's wpe): out (P, P) caller-owned, [p, q] = cos(row p, row q)
 * (inspect::cosine, in double). If rows is not NULL it receives the rows (P, C).
 * Errors: the model has no learned position table; P outside [1, max_positions]. */
int tfp_learn_position_similarity(tfp_model* model, int P, float* out, float* rows);

/* Which relative-position bias tfp_learn_relative_bias shows (tfp_api.h "parameter
 * structs"); the meaning of each field below. Defaults (tfp_learn_relative_bias_params_init):
 * every field 0 (set num_buckets, max_distance and T). */
typedef struct tfp_learn_relative_bias_params {
  int32_t bucketing;     /* 0 clip (Shaw), 1 T5 log buckets */
  int32_t bidirectional; /* 1 bidirectional, 0 causal */
  int32_t num_buckets;   /* NB */
  int32_t max_distance;  /* k */
  int32_t T;             /* positions, 1..64 */
  uint32_t seed;         /* of the table */
} tfp_learn_relative_bias_params;
void tfp_learn_relative_bias_params_init(tfp_learn_relative_bias_params* p);

/* A relative-position bias for one head (nn::RelativePositionBias): bucketing 0 = clip
 * (Shaw: 2k+1 buckets bidirectional, k+1 causal; k = max_distance; num_buckets must be
 * that count), 1 = T5 log buckets (num_buckets even when bidirectional, >= 2);
 * bidirectional 1 or 0 (causal). The table (NB) is seeded, uniform in [-1, 1) (no
 * shipped model has a trained one). T positions in [1, 64]. Caller-owned outputs:
 *   table   (NB)     the bias of each bucket
 *   buckets (T, T)   the bucket of offset r = j - i (key minus query), as floats
 *   bias    (T, T)   table[bucket] added to the score of query i on key j */
int tfp_learn_relative_bias(const tfp_learn_relative_bias_params* p, float* table, float* buckets, float* bias);

/* RoPE (nn::rope) on one query q (D) at position m and one key k (D) at position n;
 * pairing 0 = interleaved (GPT-J), 1 = half-split (NeoX, LLaMA); base 10000, the whole
 * head rotated. D even in [2, 256]; m, n in [0, 100000]. out (2D + 2) caller-owned:
 * rotated q (D), rotated k (D), q·k before rotation, rot(q)·rot(k) (in double). */
int tfp_learn_rope_score(const float* q, const float* k, int D, int pairing, int m, int n, float* out);

/* ALiBi (nn::alibi_slopes, nn::alibi_bias) for H heads over T positions, queries and
 * keys at 0 .. T-1: slopes (H) and bias (H, T, T), [h, i, j] = -slope_h·(i - j), or
 * -slope_h·|i - j| if symmetric (a causal model masks j > i anyway). H in [1, 64], T in
 * [1, 64]; caller-owned outputs. */
int tfp_learn_alibi(int H, int T, int symmetric, float* slopes, float* bias);

#ifdef __cplusplus
}
#endif

#endif /* TFP_LEARN_POSITIONS_API_H */
