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
 * (H, Tq, Tk) borrowed, given which keys each query was allowed to see:
 *   causal  1: query i sees keys j <= pos(i) = i + Tk - Tq (decoder self-attention, also
 *           with a KV cache); 0: every key (encoder self-attention, cross-attention)
 *   masked  (Tq, Tk) uint8 borrowed, 1 = key j is masked for query i (key padding: the
 *           padded keys in every row and the padded queries' whole rows), or NULL
 * Writes (H, 4) to out (caller-owned): entropy (nats), mean attention distance |pos(i) - j|
 * (tokens), share on the first key, share on the previous token (key pos(i) - 1). Each is
 * a mean over the informative rows: those with at least two allowed keys (a row with one
 * has no choice - row 0 of a causal map - and one with none attends to nothing); the
 * previous-token share over those of them whose previous key exists and is allowed. No
 * such row gives NaN (e.g. T = 1). */
int tfp_attention_head_stats_masked(const float* probs, int H, int Tq, int Tk, int causal,
                                    const uint8_t* masked, float* out);
/* The same with every key allowed: tfp_attention_head_stats_masked(..., 0, NULL, out). */
int tfp_attention_head_stats(const float* probs, int H, int Tq, int Tk, float* out);

/* Head finders (inspect/head_scores.h) of one layer's causal self-attention probs
 * (H, T, T) borrowed, computed on tokens (T) borrowed that end with R tokens repeated
 * twice (TransformerLens: prefix, R random tokens, the same R again; 1 <= R, 2R <= T).
 * flags: bit 0 exclude_bos, bit 1 exclude_current_token (TransformerLens's detect_head
 * flags; 0 = its defaults). Writes (H, 6) to out (caller-owned): detect_head's "mul"
 * scores sum(A * P) / sum(A) over the whole map for the previous-token, duplicate-token
 * and induction patterns, then the plain definitions: the mean attention of the second
 * repeat's positions i to i - 1, to the earlier occurrence i - R, to the token after it
 * i - R + 1. */
int tfp_attention_head_scores(const float* probs, int H, int T, const int32_t* tokens, int repeat, int flags,
                              float* out);

/* The query-key drill-down (inspect/attention_steps.h): every step of one attention row
 * of a token model, from the q, k, v and mask its own forward pass used. The model runs
 * on the same inputs as tfp_model_forward (p, with the same meaning and checks;
 * p->want_attention is not read), then for
 *   set    "enc"   encoder self-attention (encoder-only models, encoder-decoder encoders)
 *          "dec"   decoder self-attention (decoder-only models, encoder-decoder decoders)
 *          "cross" decoder cross-attention (encoder-decoder: queries from the decoder,
 *                  keys and values from the encoder's output)
 *   layer  0-based layer of that stack, head 0-based head,
 *   query  0-based query token (a position of ids, or of tgt_ids for "dec"/"cross" of an
 *          encoder-decoder)
 * *out (caller-owned tensor list; NULL on failure) receives, with Tk keys and D the head size:
 *   "q" (D)  "k" (Tk, D)  "v" (Tk, D)        the vectors after projection, q/k norms and
 *                                            rotation (RoPE); under grouped-query attention
 *                                            k and v are the KV head this query head shares
 *   "scores" (Tk)  q·k_j      "scaled" (Tk)  q·k_j·scale
 *   "capped" (Tk)  softcap·tanh(scaled/softcap) (Gemma 2), else = scaled
 *   "bias" (Tk)    additive mask + positional bias (ALiBi, T5 relative buckets; 0 for
 *                  masked keys and most models)
 *   "mask" (Tk)    1 where key j is masked for this query (causal future, padding, outside
 *                  a local layer's window)
 *   "logits" (Tk)  capped + bias, -inf where masked: the softmax's input
 *   "probs" (Tk)   softmax: equals row `query` of head `head` of the forward pass's
 *                  "<set>.<layer>.*.probs"
 *   "weighted_v" (Tk, D)  probs_j·v_j     "out" (D)  their sum: the head's output
 *   "scale" (1)    the block's score scale: 1/sqrt(D), or the model's own (T5, GPT-Neo: 1;
 *                  Gemma: query_pre_attn_scalar^-1/2)
 *   "softcap" (1)  the attention soft-cap, 0 = none
 *   "rotary_dims" (1)  how many leading dimensions of q and k RoPE rotated (0: no RoPE;
 *                  < D: the rest passed unchanged, GPT-NeoX's partial rotary)
 *   "window" (1)   the layer's local-attention window in keys (0 = global)
 * A set the model does not have, a layer, head or query out of range is
 * TFP_ERR_INVALID_ARGUMENT naming the valid range; the model stays usable. */
int tfp_model_attention_steps(tfp_model* model, const tfp_forward_params* p, const char* set, int layer,
                              int head, int query, tfp_tensors** out);

/* The same drill-down for a model that reads vectors (p as tfp_model_forward_embeddings',
 * with the same meaning and checks). The
 * queries of "enc" are the S source rows; of "dec" and "cross" the T decoder rows. A bare
 * nn.TransformerDecoder (its memory an input) has "dec" and "cross" only. */
int tfp_model_attention_steps_embeddings(tfp_model* model, const tfp_embeddings_params* p, const char* set,
                                         int layer, int head, int query, tfp_tensors** out);

/* Head ablation and scaling (inspect/head_mask.h). Multiplies each head's output of one
 * attention block by a factor before the block's output projection:
 *   head_out[h] = probs[h]·v[h]  ->  scales[h] · head_out[h]
 * i.e. Hugging Face's head_mask (GPT-2, BERT multiply head h's attention probs by it; the
 * same product). 0 switches a head off, 1 leaves it, any finite factor scales it; the
 * projection's bias is not scaled. set "enc" | "dec" | "cross" and layer as
 * tfp_model_attention_steps; scales (n_heads floats, borrowed) must give one factor per
 * head of the model (n_heads = its head count). Setting a block replaces its factors;
 * all 1 removes it. The mask stays on the model handle and applies to every later call
 * on it: tfp_model_forward (logits, hidden and the attention maps of later layers
 * change; a scaled head's own "*.probs" stay its softmax), tfp_model_forward_embeddings
 * and tfp_model_attention_steps_embeddings (models that read vectors), tfp_model_fill_mask,
 * tfp_model_translate (the search and its alignment), tfp_model_attention_steps,
 * tfp_model_logit_lens, and generators created afterwards (a generator keeps the mask
 * it was created with). An unknown set, a layer out of range, a wrong n_heads or a
 * non-finite factor is TFP_ERR_INVALID_ARGUMENT (nothing changes); the recurrent
 * encoder-decoder (no heads) is refused by name. */
int tfp_model_set_head_mask(tfp_model* model, const char* set, int layer, const float* scales, int n_heads);
/* Removes every factor: the model runs as loaded. */
int tfp_model_clear_head_mask(tfp_model* model);

/* What the head mask changes on one input (ids, n borrowed): the model runs once without
 * the mask and once with it, and *out (caller-owned) receives, by architecture:
 *   decoder-only   "ids" (K2)    the union of the top_k most probable next tokens after the
 *                                last position of either run (the masked run's order first,
 *                                then the unmasked run's others); ids as floats
 *                  "before" (K2), "after" (K2)  their probabilities without / with the mask
 *   encoder-only, masked LM, ids holding the tokenizer's [MASK]: the fillers of each mask,
 *                  as tfp_model_fill_mask (mask_id -1, no token types, no attention mask)
 *                  without / with the mask:
 *                  "mask_positions" (M)  the index in ids of each mask, in order
 *                  "fill_ids_before", "fill_ids_after" (M, K) the top_k (clipped to V)
 *                                fillers, most probable first; ids as floats
 *                  "fill_probs_before", "fill_probs_after" (M, K) their probabilities
 *   encoder-only otherwise (a model with a head) per position the most probable label or
 *                  token: "argmax_before", "argmax_after" (T) ids as floats,
 *                  "prob_before", "prob_after" (T) their softmax probabilities
 *   encoder-decoder "before" (N1), "after" (N2): the translations of ids, as
 *                  tfp_model_translate with beam_size (1 = greedy), max_tokens 0,
 *                  start_id -1, eos_id -1; ids as floats
 * With no mask set both runs are the same model. top_k >= 1 and beam_size >= 1 (read by
 * encoder-decoders only; the page passes the beam it translates with). The mask stays as
 * it was. */
int tfp_model_head_mask_effect(tfp_model* model, const int32_t* ids, int n, int top_k, int beam_size,
                               tfp_tensors** out);

/* The logit lens (inspect/logit_lens.h) of a decoder-only model over ids (n), or of an
 * encoder-decoder's decoder (ids = source, tgt_ids (n_tgt) = decoder input; NULL/0 for
 * decoder-only). Each residual stream - the embeddings, then the output of every decoder
 * layer - goes through the final norm and the LM head, softmax (double precision), and
 * the top_k (>= 1, clipped to V) most probable next tokens are kept per position.
 * *out (caller-owned; NULL on failure) receives, with L decoder layers and T tokens:
 *   "ids"   (L+1, T, K)  token ids as floats (exact below 2^24), most probable first,
 *                        ties to the lower id
 *   "probs" (L+1, T, K)  their probabilities
 * Row 0 is the embeddings ("embed.out" / "dec.embed.out"), row l+1 "dec.l.out"; the last
 * row is the model's own next-token distribution. Runs under the head mask. Encoder-only
 * models are TFP_ERR_INVALID_ARGUMENT. */
int tfp_model_logit_lens(tfp_model* model, const int32_t* ids, int n, const int32_t* tgt_ids, int n_tgt,
                         int top_k, tfp_tensors** out);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TFP_INSPECT_API_H */
