/* The Learn chapter "Generating text": what sampling does to the model's next-token
 * distribution, how big the KV cache is, and generation timed with and without it.
 * Conventions of tfp_api.h: int status TFP_OK or an error with tfp_last_error(), every
 * output caller-owned, float32 probabilities. Exported from the WASM module like tfp_api.h.
 *
 * Sampling options, as tfp_generator_create takes them: temperature >= 0 (0 = greedy),
 * top_k >= 0 (0 = all tokens), top_p in (0, 1] (1 = all tokens).
 */
#ifndef TFP_LEARN_GENERATION_API_H
#define TFP_LEARN_GENERATION_API_H

#include "api/tfp_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The distribution a generator draws the next token from (model/sampling.h
 * warped_probabilities): softmax(logits / temperature), then top-k, then top-p, the kept
 * tokens renormalised — and, beside it, the model's own distribution softmax(logits)
 * (temperature 1, nothing removed).
 *   logits  (V) borrowed, V >= 1, no NaN: one position's next-token logits (a row of
 *           tfp_model_forward's "logits")
 *   raw     (V) caller-owned: softmax(logits), written
 *   warped  (V) caller-owned: the warped distribution, exactly 0 for removed tokens;
 *           temperature 0 (greedy) or top_k 1 give 1 on the argmax (lowest id among ties)
 *   kept    caller-owned, may be NULL: how many tokens the warpers kept (> 0 in warped) */
int tfp_learn_sampling_probs(const float* logits, int V, float temperature, int top_k, float top_p,
                             float* raw, float* warped, int* kept);

/* The bytes of keys and values the model's KV cache holds for `positions` positions
 * (model/kv_cache.h kv_cache_bytes), from the model's config. A decoder model; positions
 * in 0 .. max_positions (the cache's capacity, which the engine allocates up front).
 *   out (6) caller-owned doubles: [0] decoder layers, [1] heads H, [2] head size D,
 *       [3] KV width Hkv·D (Hkv key/value heads: H, or fewer with grouped-query
 *       attention), [4] positions, [5] bytes = layers × 2 × positions × Hkv·D × 4 */
int tfp_learn_kv_cache_size(tfp_model* model, int positions, double* out);

/* The same from a config.json alone (no weights: any model the engine reads, e.g. a
 * published 7B config), positions in 0 .. its max_positions. A config the loader refuses
 * is refused with the loader's message.
 *   out (7) caller-owned doubles: out[0..5] as above, [6] key/value heads Hkv */
int tfp_learn_kv_cache_size_config(const char* config_json, size_t config_bytes, int positions, double* out);

/* Generates with the KV cache (model/sampling.h generate: the prompt once, then one new
 * token per step) and without it (model/generate.h generate_without_cache: the whole
 * sequence through every layer at every step), with the same prompt, options and seed,
 * for each token count in lengths, and times both. No stop token: each run makes exactly
 * lengths[i] tokens.
 *   p          the prompt (p->prompt, p->n >= 1) and the sampling (temperature, top_k,
 *              top_p, seed) as for tfp_generator_create; max_tokens, stop_ids, n_stop and
 *              top_n are not read
 *   lengths    (n_lengths) borrowed, 1 <= n_lengths <= 16; each >= 1 and such that the
 *              prompt and lengths[i] - 1 generated tokens fit the context (n + lengths[i] - 1
 *              <= max_positions; the last token is chosen, never fed back)
 *   out        (n_lengths, 4) caller-owned doubles, row i: [0] milliseconds with the cache,
 *              [1] milliseconds without, [2] tokens generated, [3] 1 if both runs chose the
 *              same ids, else 0. A time is the fastest of up to 3 rounds (fewer once the
 *              rounds took 400 ms), a round the mean of as many runs as fill >= 10 ms (at
 *              least one); one untimed warm-up run of each at lengths[0] comes first.
 *   ids_with, ids_without   (max lengths[i]) caller-owned or NULL: the ids the longest run
 *              chose with and without the cache */
int tfp_learn_generation_timing(tfp_model* model, const tfp_generator_params* p, const int32_t* lengths,
                                int n_lengths, double* out, int32_t* ids_with, int32_t* ids_without);

/* Beam search for the continuation of a prompt on a decoder-only model (model/beam.h
 * beam_generate: the search the encoder-decoders translate with, each beam a copy of the
 * prompt's KV cache). Keeps the beam_size best partial continuations by total log-probability
 * (natural logs); beam_size 1 is greedy generation (the tokens tfp_generator_* chooses at
 * temperature 0 with the same stop token). A hypothesis ends at eos or at the length limit;
 * the result is the finished hypothesis with the best score = log_prob / length^length_penalty
 * (the length counts eos).
 *   prompt      (n) borrowed, 1 <= n <= max_positions, ids in the vocabulary
 *   beam_size   1 .. 16
 *   max_tokens  >= 1, cut to what fits the context (max_positions - n + 1)
 *   eos_id      -1: the model's first eos id (none if it has none); -2: none; else an id
 *   ids         (max_tokens) caller-owned int32: the chosen continuation (eos included when
 *               it ended there), result[0] of them written
 *   result      (5) caller-owned doubles: [0] tokens in ids, [1] log_prob (the sum of
 *               log p of those tokens), [2] score, [3] 1 if it ended at eos else 0,
 *               [4] the steps the search ran
 *   trace       (max_tokens, 2 * beam_size, 5) caller-owned doubles, or NULL: row (s, r) is
 *               step s's candidate of rank r (every beam's best 2 * beam_size continuations
 *               ranked together by total log-prob, best first): [0] the beam it extends, its
 *               index among step s-1's live candidates in rank order (0 at step 0), -1 for an
 *               unused row (fewer candidates; steps after the last), [1] token id,
 *               [2] total log-prob, [3] the token's own log p, [4] fate: 0 dropped, 1 live
 *               (a beam of the next step), 2 ended at eos (a finished hypothesis), 3 kept as
 *               a hypothesis at the length limit (the last step) */
int tfp_learn_beam_search(tfp_model* model, const int32_t* prompt, int n, int beam_size, int max_tokens,
                          float length_penalty, int eos_id, int32_t* ids, double* result, double* trace);

#ifdef __cplusplus
}
#endif

#endif
