/* The flat C API of the Transformer Playground engine.
 *
 * One boundary for every front end: the WebAssembly module (the page's worker calls
 * these functions by name), the native CLI and the tests. The engine behind it is C++;
 * nothing here exposes C++ types, and no C++ exception ever crosses it.
 *
 * Conventions (they hold for every function below, present and future):
 *   - Functions that can fail return an int status: TFP_OK (0) or a TFP_ERR_* code.
 *     The message for the latest failure on this thread is tfp_last_error().
 *   - Objects are opaque handles created by tfp_<thing>_create / returned through an
 *     out-parameter, and released by the matching tfp_<thing>_free (NULL is a no-op).
 *   - Names group by noun: tfp_tensors_* (a named list of result tensors),
 *     tfp_attn_lab_* (one multi-head attention block to experiment with). Later:
 *     tfp_model_* (load from buffers, forward), tfp_tokenizer_* (encode/decode),
 *     tfp_generator_* (a generation loop, one token per call).
 *   - Every pointer's owner is stated. "Borrowed" means the callee only reads it during
 *     the call; "copied" means the callee keeps its own copy; "owned by <handle>"
 *     means it stays valid until that handle is freed or changed as stated.
 *   - Tensors are float32, row-major, dims as int32. Shapes in comments use the
 *     legend: T tokens, C model width (d_model), H heads, D = C/H head size.
 */
#ifndef TFP_API_H
#define TFP_API_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- status and errors ------------------------------------------------------ */

enum tfp_status {
  TFP_OK = 0,
  TFP_ERR_INVALID_ARGUMENT = 1, /* a NULL pointer, a negative size, a bad option */
  TFP_ERR_ENGINE = 2,           /* the engine refused the input (shape, mask, ...) */
  TFP_ERR_OUT_OF_MEMORY = 3,
  TFP_ERR_INTERNAL = 4          /* anything else; a bug worth reporting */
};

/* The message of the latest failed call on this thread, "" if none yet.
 * Owned by the library; valid until the next failing call on this thread. */
const char* tfp_last_error(void);

/* ---- build information ------------------------------------------------------ */

/* "0.1.0". Static storage. */
const char* tfp_version(void);
/* The SIMD instruction set the fast kernels use, e.g. "avx2", "sse4.1/wasm128". Static. */
const char* tfp_simd_arch(void);

/* ---- buffers ------------------------------------------------------------------ */

/* Memory for passing inputs in and out (on the WASM heap from JavaScript). The caller
 * owns the result and releases it with tfp_free. Returns NULL if bytes == 0 or on
 * failure (then tfp_last_error says why). Aligned for float and int64. */
void* tfp_alloc(size_t bytes);
void tfp_free(void* ptr);

/* ---- tensors: a named list of float32 results --------------------------------- */

/* Results come back as a list of named tensors (names are stable strings such as
 * "probs" or, for models later, "dec.3.attn.probs"). Created by the engine, owned by
 * the caller, released with tfp_tensors_free. */
typedef struct tfp_tensors tfp_tensors;

void tfp_tensors_free(tfp_tensors* list);
/* Number of tensors; 0 for NULL. */
int tfp_tensors_count(const tfp_tensors* list);
/* Index of the tensor called `name` (borrowed), or -1. */
int tfp_tensors_find(const tfp_tensors* list, const char* name);
/* Name of tensor i; owned by the list. NULL if i is out of range. */
const char* tfp_tensors_name(const tfp_tensors* list, int i);
/* Rank of tensor i; -1 if i is out of range. */
int tfp_tensors_rank(const tfp_tensors* list, int i);
/* Dimensions of tensor i (rank of them); owned by the list. NULL if out of range. */
const int32_t* tfp_tensors_dims(const tfp_tensors* list, int i);
/* Number of floats in tensor i; -1 if out of range. */
int64_t tfp_tensors_numel(const tfp_tensors* list, int i);
/* Data of tensor i, row-major; owned by the list (valid until tfp_tensors_free).
 * NULL if out of range or the tensor is empty. */
const float* tfp_tensors_data(const tfp_tensors* list, int i);

/* ---- deterministic inputs -------------------------------------------------------- */

/* One embedding row per token, a pure function of (token bytes, seed, C): the same
 * word gets the same vector wherever it appears (there is no position information).
 * Values are uniform in [-sqrt(3), sqrt(3)] (mean 0, variance 1, like nn.Embedding's
 * N(0,1) init in scale).
 *   token_bytes    borrowed; the n_tokens tokens' UTF-8 bytes, concatenated
 *   token_lengths  borrowed; (n_tokens) byte length of each token
 *   out            borrowed, caller-owned; (n_tokens, C) floats, written */
int tfp_seeded_token_embeddings(const char* token_bytes, const int32_t* token_lengths,
                                int n_tokens, int C, uint32_t seed, float* out);

/* ---- attention lab: one multi-head attention block ------------------------------- */

/* A self-attention block of width C with H heads (C % H == 0), its weights and mask
 * options, run on inputs the caller gives. Used by the tutorials and the playground to
 * show every step. Owned by the caller; free with tfp_attn_lab_free. */
typedef struct tfp_attn_lab tfp_attn_lab;

/* Creates a lab with weights drawn from `seed` (as tfp_attn_lab_seed_weights) and no
 * mask. *out receives the handle (caller-owned); it is NULL on failure. */
int tfp_attn_lab_create(int C, int H, uint32_t seed, tfp_attn_lab** out);
void tfp_attn_lab_free(tfp_attn_lab* lab);

/* Replaces the weights with deterministic random ones: the same seed and sizes give
 * the same weights on every platform. Distributions follow PyTorch's
 * nn.MultiheadAttention init in scale (xavier-uniform in_proj, uniform(±1/sqrt(C))
 * out_proj, zero biases); the numbers are our own. */
int tfp_attn_lab_seed_weights(tfp_attn_lab* lab, uint32_t seed);

/* Sets fused weights in PyTorch nn.MultiheadAttention's layout (copied):
 *   w_qkv (3C, C) in_proj_weight, rows q | k | v;  b_qkv (3C) or NULL (zeros)
 *   w_out (C, C) out_proj.weight;                  b_out (C) or NULL (zeros) */
int tfp_attn_lab_set_weights_fused(tfp_attn_lab* lab, const float* w_qkv, const float* b_qkv,
                                   const float* w_out, const float* b_out);

/* Sets separate weights, each (C, C) in nn.Linear's (out, in) layout (copied); any
 * bias may be NULL (zeros). */
int tfp_attn_lab_set_weights_separate(tfp_attn_lab* lab,
                                      const float* w_q, const float* b_q,
                                      const float* w_k, const float* b_k,
                                      const float* w_v, const float* b_v,
                                      const float* w_out, const float* b_out);

/* Mask options. causal: query i sees keys j <= i. window > 0: keys with |i - j| <=
 * window only (local attention); 0 = no window. window < 0 is an error. */
int tfp_attn_lab_set_mask(tfp_attn_lab* lab, int causal, int window);

/* Key padding (copied): padding[j] != 0 masks key j for every query. NULL or T == 0
 * clears it. Its length must equal the T of the next tfp_attn_lab_run. */
int tfp_attn_lab_set_key_padding(tfp_attn_lab* lab, const uint8_t* padding, int T);

/* Runs self-attention on x (T, C) (borrowed) and returns every step as a tensor list
 * in *out (caller-owned; NULL on failure):
 *   "q", "k", "v"      (H, T, D)  projections split into heads
 *   "scores"           (H, T, T)  q·kᵀ
 *   "scaled_scores"    (H, T, T)  q·kᵀ / sqrt(D), before the mask
 *   "masked"           (T, T)     1 where the key is masked for that query, else 0
 *   "probs"            (H, T, T)  softmax over keys, masked entries exactly 0
 *   "head_out"         (H, T, D)  probs·v per head, before the output projection
 *   "out"              (T, C)     the block's output
 * A query whose every key is masked gets an all-zero probs row. */
int tfp_attn_lab_run(tfp_attn_lab* lab, const float* x, int T, tfp_tensors** out);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TFP_API_H */
