/* Activation patching of a loaded model (inspect/activation_patching.h; TransformerLens's
 * patching conventions). The conventions of tfp_api.h hold (int status, tfp_last_error,
 * ownership stated, float32 row-major). Exported from the WASM module like tfp_api.h.
 * Shapes: L decoder layers, T tokens, H heads. */
#ifndef TFP_PATCH_API_H
#define TFP_PATCH_API_H

#include "api/tfp_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What to patch. Defaults (tfp_patching_params_init): clean, corrupted NULL, n 0,
 * answer -1, foil -1 (both must be set), kinds 511 (every sweep), layer -1 (every layer). */
typedef struct tfp_patching_params {
  const int32_t* clean;     /* (n) token ids of the clean prompt, borrowed */
  const int32_t* corrupted; /* (n) token ids of the corrupted prompt (same length), borrowed */
  int32_t n;                /* T >= 1 */
  int32_t answer;           /* the answer token id (in the vocabulary) */
  int32_t foil;             /* the foil token id (in the vocabulary; may equal answer) */
  uint32_t kinds;           /* sweeps, bits: 1 resid, 2 attn_out, 4 mlp_out, 8 head_all, 16 head_pos,
                               32 head_q, 64 head_k, 128 head_v, 256 head_pattern */
  int32_t layer;            /* -1: every layer; else only this layer's row of each sweep (0..L-1;
                               L too when kinds is 1: resid after the last block) */
} tfp_patching_params;
void tfp_patching_params_init(tfp_patching_params* p);

/* Activation patching of a decoder-only token model with an LM head. Metrics at the last
 * position: logit_diff = logit(answer) - logit(foil) and logprob = log softmax[answer].
 * The clean prompt runs once (its activations recorded), the corrupted once (the
 * baseline), then the corrupted once per cell with one activation replaced by its clean
 * value. *out (caller-owned; NULL on failure) receives:
 *   "metric" (4)   clean logit_diff, corrupted logit_diff, clean logprob, corrupted logprob
 * and for each sweep asked for in p->kinds, <kind>.logit_diff and <kind>.logprob (the
 * patched run's raw metric) and <kind>.logit_diff_norm, <kind>.logprob_norm (normalised
 * (patched - corrupted) / (clean - corrupted)), where <kind> and its shape are:
 *   resid     (L+1, T)    the residual stream before block l ("embed.out" for l = 0,
 *                         "dec.{l-1}.out" after), the last row after the last block
 *   attn_out  (L, T)      "dec.l.attn.out" (attention output before the residual)
 *   mlp_out   (L, T)      "dec.l.ffn.out" (MLP output before the residual)
 *   head_all  (L, H)      head h's slice of "dec.l.attn.head_out" (z) at every position
 *   head_pos  (L, T, H)   the same at one position ([layer][position][head])
 *   head_q    (L, H)      head h's queries "dec.l.attn.hook_q" at every position (after
 *                         rotation: positions agree in both runs, so it is the same patch)
 *   head_k, head_v (L, Hkv)  key/value head g's keys and values at every position (Hkv =
 *                         n_kv_heads: with grouped-query attention one per group)
 *   head_pattern (L, H)   head h's attention pattern (the softmax) at every query
 * When the clean and corrupted metric are equal (the same prompts, or answer = foil for
 * logit_diff) the normalisation is undefined: that metric's "*_norm" tensors are absent
 * (tfp_tensors_find gives -1); nothing is NaN. With p->layer >= 0 each sweep holds that
 * layer's row alone (the layer axis has size 1): a caller can sweep layer by layer, report
 * progress and stop between calls. Runs under the head mask (every run, the
 * clean one too). Different lengths, an id outside the vocabulary, an encoder-only or
 * encoder-decoder model, a model without an LM head, answer/foil unset, kinds 0 (or
 * with other bits) or a layer out of range are TFP_ERR_INVALID_ARGUMENT, each named. Cost: 2 + (L+1)T + 2LT +
 * LH + LTH + 2LH + 2L·Hkv forward passes for every sweep. */
int tfp_model_activation_patching(tfp_model* model, const tfp_patching_params* p, tfp_tensors** out);

/* Zero (mode 0) or mean (mode 1) ablation of each head's output z, one head at a time:
 * z of that head replaced by 0, or by its mean over the prompt's positions. The metric at
 * the last position of ids (n >= 1). *out (caller-owned; NULL on failure):
 *   "metric" (2)       logit_diff and logprob without ablation
 *   "logit_diff" (L, H), "logprob" (L, H)   the metric with head (l, h) ablated
 * Runs under the head mask. The refusals of tfp_model_activation_patching, and a mode
 * other than 0 or 1, are TFP_ERR_INVALID_ARGUMENT. Cost: 1 + L·H forward passes. */
int tfp_model_head_ablation(tfp_model* model, const int32_t* ids, int32_t n, int32_t answer, int32_t foil,
                            int32_t mode, tfp_tensors** out);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TFP_PATCH_API_H */
