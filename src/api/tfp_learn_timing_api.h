/* The Learn chapter "Why attention": a GRU against a self-attention layer, timed by the
 * engine. The conventions of tfp_api.h hold (int status, tfp_last_error, ownership
 * stated). Exported from the WASM module like tfp_api.h (cmake/wasm_module.cmake).
 *
 * Legend: T tokens (sequence length), d width (GRU input and state; attention d_model),
 * H heads. */
#ifndef TFP_LEARN_TIMING_API_H
#define TFP_LEARN_TIMING_API_H

#include "api/tfp_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Columns of one row of tfp_learn_time_gru_attention's output. */
enum tfp_learn_timing_column {
  TFP_TIMING_GRU_MS = 0,     /* median milliseconds of one GRU pass over T steps */
  TFP_TIMING_ATTN_MS = 1,    /* median milliseconds of one self-attention layer */
  TFP_TIMING_GRU_MIN_MS = 2, /* fastest and slowest repeat of each */
  TFP_TIMING_GRU_MAX_MS = 3,
  TFP_TIMING_ATTN_MIN_MS = 4,
  TFP_TIMING_ATTN_MAX_MS = 5,
  TFP_TIMING_GRU_STEPS = 6,  /* sequential steps: T (h_t needs h_{t-1}) */
  TFP_TIMING_ATTN_STEPS = 7, /* sequential steps: 1 (no position waits for another) */
  TFP_TIMING_GRU_MACS = 8,   /* multiply-adds in its matrix products: 6·T·d² */
  TFP_TIMING_ATTN_MACS = 9,  /* 4·T·d² + 2·T²·d */
  TFP_TIMING_COLUMNS = 10
};

/* Times, for each T in lengths (borrowed, n_lengths values, each 1..4096), on the same
 * seeded input x (T, d):
 *   - a one-direction GRU of input and state width d (nn::gru_sequence, the encoder's
 *     code: the input products of all steps in one matrix product, then T steps, each
 *     W_hh·h_{t-1} and the gates);
 *   - one multi-head self-attention layer of width d with `heads` heads, no mask
 *     (nn::multi_head_attention, the layer models run: q|k|v projection, H score
 *     matrices (T, T), softmax, weights·v, output projection).
 * Weights are drawn from `seed` (GRU: uniform(±1/sqrt(d)) as PyTorch's nn.GRU;
 * attention: as tfp_attn_lab_seed_weights), x uniform with variance 1.
 * Each measurement runs the operation k times in a row, with k chosen so that one batch
 * lasts at least 2 ms (the browser's clock is coarse), and divides by k; `repeats`
 * (1..50) batches of each, GRU and attention alternating, give the median, min and max.
 * Untimed warm-up calls come first: at least 3 and 5 ms of each operation per length,
 * and 100 ms of both on the first call in a process (WebAssembly starts in a baseline
 * tier and is optimised once hot). The engine runs on one thread.
 * Writes (n_lengths, TFP_TIMING_COLUMNS) doubles to out (caller-owned), row i for
 * lengths[i]. d in 1..1024, heads >= 1 dividing d. Time: about
 * (repeats + 3) · 2 · max(2 ms, one call) + 10 ms per length. */
int tfp_learn_time_gru_attention(int d, int heads, const int32_t* lengths, int n_lengths,
                                 int repeats, uint32_t seed, double* out);

#ifdef __cplusplus
}
#endif

#endif /* TFP_LEARN_TIMING_API_H */
