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

#ifdef __cplusplus
}
#endif

#endif
