/* The inspector's part of the flat C API: maths on attention maps the caller already
 * has (from tfp_model_forward's "*.attn.probs" tensors), and the query-key drill-down
 * of a loaded model. The conventions of tfp_api.h hold (int status, tfp_last_error,
 * ownership stated, float32 row-major).
 * Exported from the WASM module like tfp_api.h (cmake/wasm_module.cmake reads both).
 * Shapes: L layers, H heads, T tokens, Tq queries, Tk keys. */
#ifndef TFP_INSPECT_API_H
#define TFP_INSPECT_API_H

#include "api/tfp_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Attention rollout (inspect/rollout.h): probs (L, H, T, T) borrowed — layer l's
 * self-attention maps in forward order; residual α in [0, 1] (0.5 as Abnar & Zuidema);
 * fusion 0 = mean over heads, 1 = max, 2 = min. Writes (L, T, T) to out (caller-owned):
 * slice l is the rollout after layer l, every row summing to 1. */
int tfp_attention_rollout(const float* probs, int L, int H, int T, float residual, int fusion,
                          float* out);

/* Per-head statistics (inspect/rollout.h attention_head_stats) of one layer's probs
 * (H, Tq, Tk) borrowed. Writes (H, 4) to out (caller-owned): entropy (nats), mean
 * attention distance (tokens), share on the first key, share on the previous token. */
int tfp_attention_head_stats(const float* probs, int H, int Tq, int Tk, float* out);

/* The query-key drill-down (inspect/attention_steps.h): every step of one attention row
 * of a token model, from the q, k, v and mask its own forward pass used. The model runs
 * on the same inputs as tfp_model_forward (ids, n, token_type_ids, attention_mask,
 * tgt_ids, n_tgt: borrowed, same meaning and checks), then for
 *   set    "enc"   encoder self-attention (encoder-only models, encoder-decoder encoders)
 *          "dec"   decoder self-attention (decoder-only models, encoder-decoder decoders)
 *          "cross" decoder cross-attention (encoder-decoder: queries from the decoder,
 *                  keys and values from the encoder's output)
 *   layer  0-based layer of that stack, head 0-based head,
 *   query  0-based query token (a position of ids, or of tgt_ids for "dec"/"cross" of an
 *          encoder-decoder)
 * *out (caller-owned tensor list; NULL on failure) receives, with Tk keys and D = C/H:
 *   "q" (D)  "k" (Tk, D)  "v" (Tk, D)        the vectors after projection
 *   "scores" (Tk)  q·k_j      "scaled" (Tk)  q·k_j/sqrt(D)
 *   "bias" (Tk)    additive mask / positional bias (0 for masked keys and most models)
 *   "mask" (Tk)    1 where key j is masked for this query (causal future, padding)
 *   "logits" (Tk)  scaled + bias, -inf where masked: the softmax's input
 *   "probs" (Tk)   softmax: equals row `query` of head `head` of the forward pass's
 *                  "<set>.<layer>.*.probs"
 *   "weighted_v" (Tk, D)  probs_j·v_j     "out" (D)  their sum: the head's output
 *   "scale" (1)    1/sqrt(D)
 * A set the model does not have, a layer, head or query out of range is
 * TFP_ERR_INVALID_ARGUMENT naming the valid range; the model stays usable. */
int tfp_model_attention_steps(tfp_model* model, const int32_t* ids, int n, const int32_t* token_type_ids,
                              const int32_t* attention_mask, const int32_t* tgt_ids, int n_tgt,
                              const char* set, int layer, int head, int query, tfp_tensors** out);

/* The same drill-down for a model that reads vectors (tfp_model_forward_embeddings: C,
 * src, S, tgt, T, src_padding, tgt_padding, flags with the same meaning and checks). The
 * queries of "enc" are the S source rows; of "dec" and "cross" the T decoder rows. A bare
 * nn.TransformerDecoder (its memory an input) has "dec" and "cross" only. */
int tfp_model_attention_steps_embeddings(tfp_model* model, int C, const float* src, int S, const float* tgt,
                                         int T, const uint8_t* src_padding, const uint8_t* tgt_padding,
                                         int flags, const char* set, int layer, int head, int query,
                                         tfp_tensors** out);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TFP_INSPECT_API_H */
