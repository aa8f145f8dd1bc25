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
 *     tfp_attn_lab_* (one multi-head attention block to experiment with),
 *     tfp_model_* (load from buffers, describe, tokenise, forward, translate),
 *     tfp_encoding_* (one tokenised text), tfp_generator_* (a generation loop, one
 *     token per call), tfp_trainer_* (training a toy-task model step by step).
 *   - Every pointer's owner is stated. "Borrowed" means the callee only reads it during
 *     the call; "copied" means the callee keeps its own copy; "owned by <handle>"
 *     means it stays valid until that handle is freed or changed as stated.
 *   - Tensors are float32, row-major, dims as int32. Shapes in comments use the
 *     legend: T tokens, C model width (d_model), H heads, D = C/H head size.
 *   - A call with many inputs takes them as one params struct (tfp_<name>_params, as
 *     llama.cpp's llama_context_params): see "parameter structs" below.
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
/* The Unicode versions of the tokenizers' character data, one per job, each the version
 * Hugging Face tokenizers uses for it: "16.0.0 classes, 17.0.0 lowercase and digits,
 * 9.0.0 normalization, 8.0.0 BERT classes". Static storage. */
const char* tfp_unicode_version(void);
/* The SIMD instruction set the fast kernels use, e.g. "avx2", "sse4.1/wasm128". Static. */
const char* tfp_simd_arch(void);

/* ---- parameter structs ------------------------------------------------------------ */

/* A call with many inputs (a forward pass, a generator, a translation, ...) takes them as
 * one plain C struct, tfp_<name>_params, declared beside the call:
 *   - fields are int32_t, uint32_t, float or pointers only, laid out as C lays them out
 *     (on wasm32 every field is 4 bytes, so field i is at byte 4*i, no padding);
 *   - tfp_<name>_params_init(&p) writes every field's default (stated beside each field;
 *     mostly 0 / NULL); set the fields you need after it;
 *   - the struct is borrowed: the call only reads it (and the arrays it points to, which
 *     are borrowed too) during the call; outputs stay separate arguments;
 *   - a NULL params pointer is TFP_ERR_INVALID_ARGUMENT "<call>: params is NULL".
 * For callers that write the struct into memory by hand (the WASM module's JavaScript):
 * tfp_params_layout_json() describes every params struct as a JSON object,
 *   { "<struct name>": { "size": bytes, "fields": { "<field>": [offset, "i32" | "u32" |
 *                                                     "f32" | "ptr"], ... } }, ... }
 * with the fields in declaration order and offsets from offsetof, so such a caller writes
 * fields by name and never restates the order. Static storage. */
const char* tfp_params_layout_json(void);

/* ---- buffers ------------------------------------------------------------------ */

/* Memory for passing inputs in and out (on the WASM heap from JavaScript). The caller
 * owns the result and releases it with tfp_free. Returns NULL if bytes == 0 or on
 * failure (then tfp_last_error says why). Aligned for float and int64. */
void* tfp_alloc(size_t bytes);
void tfp_free(void* ptr);

/* The engine's memory, in bytes, into out[0..2]:
 *   out[0] the heap's size now (WASM: the linear memory, which only grows; it grows ahead
 *          of need by at most 16 MiB, so it overstates out[1] by that much at most);
 *   out[1] the heap's high-water mark: the top of what malloc ever claimed (its break
 *          never moves back), i.e. the peak of everything the engine held at once;
 *   out[2] bytes in malloc'd blocks now.
 * Natively out[0] = out[1] = 0 (the process's RSS is the measure there); out[2] is filled
 * where the C library reports it (glibc, Emscripten), else 0. out may not be NULL. */
void tfp_memory_stats(double* out);

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

/* Separate projection weights (tfp_api.h "parameter structs"), each matrix (C, C) in
 * nn.Linear's (out, in) layout, each bias (C) or NULL (zeros); all borrowed. Defaults
 * (tfp_attn_lab_weights_params_init): every pointer NULL (the matrices must be set). */
typedef struct tfp_attn_lab_weights_params {
  const float* w_q;
  const float* b_q;
  const float* w_k;
  const float* b_k;
  const float* w_v;
  const float* b_v;
  const float* w_out;
  const float* b_out;
} tfp_attn_lab_weights_params;
void tfp_attn_lab_weights_params_init(tfp_attn_lab_weights_params* p);

/* Sets the separate weights p (copied). */
int tfp_attn_lab_set_weights_separate(tfp_attn_lab* lab, const tfp_attn_lab_weights_params* p);

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

/* ---- models: load from bytes, describe, free -------------------------------------- */

/* A loaded model: config + weights (+ tokenizer), as model/model.h's LoadedModel. The
 * caller owns it and frees it with tfp_model_free; generators made from it keep what
 * they need alive, so a model may be freed before its generators.
 * The same handle holds the recurrent encoder-decoder (config.json "model_type":
 * "tfp_gru_seq2seq", model/gru_seq2seq.h, e.g. models/numbers-gru): info, tokenizer,
 * forward and translate work on it; a call that does not apply to it (a generator, an
 * operation on self-attention layers) is TFP_ERR_INVALID_ARGUMENT naming the call. */
typedef struct tfp_model tfp_model;

/* Staging for a model's files, so that the weights are copied only once: the caller
 * writes the safetensors bytes straight into the buffer tfp_model_files_weights returns
 * (on the WASM heap), and tfp_model_load takes that buffer over without copying it.
 * Caller-owned; free with tfp_model_files_free (also after tfp_model_load). */
typedef struct tfp_model_files tfp_model_files;

/* Reserves weights_bytes bytes for model.safetensors. TFP_ERR_OUT_OF_MEMORY when the heap
 * cannot hold them. *out receives the handle (caller-owned), NULL on failure. */
int tfp_model_files_create(size_t weights_bytes, tfp_model_files** out);
void tfp_model_files_free(tfp_model_files* files);
/* Where to write the weights' bytes: weights_bytes bytes owned by `files`, valid until
 * tfp_model_load or tfp_model_files_free. NULL for NULL or after tfp_model_load. */
uint8_t* tfp_model_files_weights(tfp_model_files* files);
/* A sharded checkpoint instead of one model.safetensors (create the files with
 * weights_bytes 0): reserves `bytes` bytes for the shard file `name` (as
 * model.safetensors.index.json names it, e.g. "model-00001-of-00002.safetensors") and
 * sets *data to where its bytes go (owned by `files`, valid until tfp_model_load or
 * tfp_model_files_free; adding another shard does not move it). TFP_ERR_OUT_OF_MEMORY
 * when the heap cannot hold it. */
int tfp_model_files_add_shard(tfp_model_files* files, const char* name, size_t bytes, uint8_t** data);
/* model.safetensors.index.json text (copied): which shard holds which tensor. */
int tfp_model_files_set_index(tfp_model_files* files, const char* text, size_t bytes);
/* config.json text (copied; bytes, need not be NUL-terminated). */
int tfp_model_files_set_config(tfp_model_files* files, const char* text, size_t bytes);
/* tokenizer.json text (copied); text NULL = none. */
int tfp_model_files_set_tokenizer(tfp_model_files* files, const char* text, size_t bytes);
/* The name shown in error messages ("gpt2/model.safetensors: ..."); copied; NUL-terminated. */
int tfp_model_files_set_name(tfp_model_files* files, const char* name);
/* The precision the model's matrices (Linear weights, token tables) are held in once
 * loaded: "f32", "f16", "int8" (one f32 scale per output channel), or "stored" / NULL (as
 * the checkpoint stores them: the default). The weights are held once (model/precision.h);
 * tfp_model_info_json reports "precision" and "weights_bytes". A GRU model ignores it. */
int tfp_model_files_set_precision(tfp_model_files* files, const char* precision);

/* model.safetensors streamed in piece by piece instead of reserved whole (create the files
 * with weights_bytes 0): set the config and precision first, then begin with the file's
 * size, and for each piece, in order: tfp_model_files_stream_next(files, n, &p), write its
 * n bytes at p, tfp_model_files_stream_commit(files, n). Asked for f16 or int8, the F32
 * matrices are narrowed as they arrive (model/weights_stream.h), so the heap never holds
 * the F32 file: GPT-2-small at f16 peaks near 1x its 247 MiB of weights, not 3x. Otherwise
 * the bytes go straight into a buffer of the whole file, as tfp_model_files_create's.
 * Errors: more bytes than announced, a NaN or infinity in a matrix being quantised (named),
 * TFP_ERR_OUT_OF_MEMORY; the stream then refuses more (stage the files again). */
int tfp_model_files_stream_begin(tfp_model_files* files, size_t weights_bytes);
int tfp_model_files_stream_next(tfp_model_files* files, size_t n, uint8_t** where);
int tfp_model_files_stream_commit(tfp_model_files* files, size_t n);
/* A sharded checkpoint streamed in (create the files with weights_bytes 0, set the config
 * and precision first): begins the shard file `name` (as model.safetensors.index.json names
 * it) of `bytes` bytes, whose pieces then go through tfp_model_files_stream_next / _commit
 * as above. The next shard's begin, or tfp_model_load, ends it (a shard short of its bytes
 * is an error naming it). Asked for f16 or int8, each shard's matrices are narrowed as they
 * arrive, so the heap never holds the stored shards; otherwise a shard's bytes go straight
 * into its own buffer, as tfp_model_files_add_shard's. */
int tfp_model_files_stream_shard_begin(tfp_model_files* files, const char* name, size_t bytes);

/* Parses and binds the staged files. The weights buffer is moved into the model (the
 * staging handle is left empty either way: a failed load must be staged again).
 * *out receives the model (caller-owned), NULL on failure. */
int tfp_model_load(tfp_model_files* files, tfp_model** out);

/* Convenience for native callers: the same from three borrowed buffers (copied once).
 * tokenizer_json may be NULL. name may be NULL ("<memory>"). */
int tfp_model_load_buffers(const char* config_json, size_t config_bytes, const uint8_t* weights,
                           size_t weights_bytes, const char* tokenizer_json, size_t tokenizer_bytes,
                           const char* name, tfp_model** out);

/* Checks config.json alone, as tfp_model_load would before it binds a weight: an unknown
 * model_type (the message lists the supported ones) or an option the engine does not
 * implement is refused by name. For callers that fetch weights after the config (the page's
 * Hub road): nothing is allocated beyond the parse. name: as in messages ("owner/model"),
 * may be NULL. */
int tfp_config_check(const char* config_json, size_t config_bytes, const char* name);

/* A model with deterministic random weights (model/weights.h random_weights, std 0.02)
 * for config_json (any model_type the loader reads), and an optional tokenizer.json:
 * for tutorials and tests that need a model of a given shape. */
int tfp_model_create_random(const char* config_json, size_t config_bytes, const char* tokenizer_json,
                            size_t tokenizer_bytes, uint32_t seed, tfp_model** out);

void tfp_model_free(tfp_model* model);

/* What the model is, as a JSON object (owned by the model, valid until tfp_model_free):
 *   { "source", "family", "architecture", "config": {every ModelConfig field},
 *     "d_model", "n_heads", "n_encoder_layers", "n_decoder_layers", "d_ff",
 *     "vocab_size", "max_positions", "parameters", "eos_token_id",
 *     "head": "lm" | "masked_lm" | "token_classifier" | "none"  (what "logits" are:
 *             next-token, [MASK]-filling vocabulary logits, per-token labels, or absent),
 *     "mask_token_id": the tokenizer's [MASK] id, -1 when none,
 *     "decoder_start_token_id": config.json's, -1 when none,
 *     "self_attention": false only for the recurrent encoder-decoder, which also reports
 *       "model_type": "tfp_gru_seq2seq", "max_target_tokens" and "recurrent": { "cell":
 *       "gru", "bidirectional_encoder", "embed_dim", "encoder_hidden", "decoder_hidden",
 *       "attention": "additive", "attention_dim" }, with n_encoder_layers 0,
 *       n_decoder_layers 1, n_heads 1 (its one additive attention as a cross-attention
 *       layer of one head), d_model its decoder width and max_positions its source limit,
 *     "tokenizer": null | { "vocab_size", "special": { "unk", "pad", "cls", "sep",
 *                                                     "mask", "bos", "eos" } },
 *     "has_embeddings": false for models that read vectors (tfp_model_forward_embeddings),
 *     "tokenizer_fallback": "words" when such a model has no tokenizer.json (how
 *             tfp_model_tokenize splits its text), else null,
 *     "ignored_tensors": the first 20 names of the file's tensors that its family's modeling
 *             code ignores and the loader skipped (causal-mask and rotary buffers, T5's
 *             unused cross-attention relative bias; model/names_table.h), file order,
 *     "ignored_tensor_count": how many it skipped (absent, like the list, for a GRU model) }
 * Special ids are -1 where the tokenizer has none. NULL for NULL. */
const char* tfp_model_info_json(tfp_model* model);

/* ---- tokenizer: text to ids and back ------------------------------------------------ */

/* An encoding of one text: ids, token strings, offsets. Caller-owned; free with
 * tfp_encoding_free. */
typedef struct tfp_encoding tfp_encoding;

/* Tokenises text (bytes of UTF-8, borrowed) with the model's tokenizer.json. Invalid
 * UTF-8 is TFP_ERR_ENGINE naming the byte offset; a model without a tokenizer is
 * TFP_ERR_INVALID_ARGUMENT — except a model that reads vectors (info "has_embeddings":
 * false, e.g. a PyTorch nn.Transformer) without tokenizer.json: its text is split into
 * words (tokenizer/word_split.h: whitespace dropped, each punctuation mark and CJK
 * ideograph alone, text kept as typed; info "tokenizer_fallback": "words"), and token
 * i's id is the index of its text among this text's distinct tokens, in order of first
 * appearance (no vocabulary: ids only say which tokens are equal). Give the tokens'
 * texts to tfp_seeded_token_embeddings to get the vectors such a model reads.
 * add_special_tokens: the post-processor's [CLS] ... [SEP]. */
int tfp_model_tokenize(tfp_model* model, const char* text, size_t bytes, int add_special_tokens,
                       tfp_encoding** out);
void tfp_encoding_free(tfp_encoding* enc);
/* Number of tokens; 0 for NULL. */
int tfp_encoding_count(const tfp_encoding* enc);
/* (count) token ids; owned by enc. */
const int32_t* tfp_encoding_ids(const tfp_encoding* enc);
/* (count, 2) [begin, end) spans of each token in UTF-16 code units of the text (the
 * indices of a JavaScript string); owned by enc. */
const int32_t* tfp_encoding_offsets_utf16(const tfp_encoding* enc);
/* (count, 2) the same spans in bytes of the UTF-8 text; owned by enc. */
const int32_t* tfp_encoding_offsets_bytes(const tfp_encoding* enc);
/* (count) 1 for special/added tokens; owned by enc. */
const uint8_t* tfp_encoding_special_mask(const tfp_encoding* enc);
/* The token strings as a JSON array of strings ("\u0120the" stays as the vocabulary
 * spells it); owned by enc. */
const char* tfp_encoding_tokens_json(const tfp_encoding* enc);

/* Decodes ids (borrowed) to text. The result is owned by the model and valid until the
 * next tfp_model_decode on it or tfp_model_free. NULL on failure. */
const char* tfp_model_decode(tfp_model* model, const int32_t* ids, int n, int skip_special_tokens);

/* The vocabulary's spelling of one id ("\u0120the", "##ing", "[CLS]"); "" for an id the
 * tokenizer does not know. Owned by the model, valid until the next call of this
 * function on it or tfp_model_free. NULL without a tokenizer. */
const char* tfp_model_id_to_token(tfp_model* model, int32_t id);

/* ---- forward pass -------------------------------------------------------------------- */

/* The inputs of a token model's forward pass (tfp_model_forward, tfp_model_attention_steps).
 * Defaults (tfp_forward_params_init): every field 0 / NULL. */
typedef struct tfp_forward_params {
  const int32_t* ids;            /* (n) token ids; required (n >= 1) */
  int32_t n;
  const int32_t* token_type_ids; /* (n) or NULL: encoder-only models (BERT's segments) */
  const int32_t* attention_mask; /* (n) or NULL: encoder-only models; 1 = real, 0 = padding */
  const int32_t* tgt_ids;        /* (n_tgt) encoder-decoders only: the decoder's input */
  int32_t n_tgt;
  int32_t want_attention;        /* != 0: also every layer's attention maps (forward only) */
  int32_t logits_last;           /* which rows get "logits": 0 every row; k > 0 the last k
                                    (a next-token view needs one); -1 none: "hidden" only,
                                    for tfp_model_logits (forward only) */
} tfp_forward_params;
void tfp_forward_params_init(tfp_forward_params* p);

/* One forward pass of a token model over p->ids (p: tfp_forward_params). Result in *out
 * (caller-owned tensor list):
 *   "logits"  (T, V)  decoder LMs, encoder-decoders, encoders with a head
 *   "hidden"  (T, C)  always (the last hidden states, after any final norm)
 *   "hidden_norm" (T) always: each hidden row's Euclidean length
 *   "argmax"  (T)     with logits: each row's most probable id / label, as a float
 * ("logits" and "argmax" cover only the last logits_last rows when that is > 0, and are
 * absent when it is -1) and with want_attention != 0, for every layer i:
 *   "enc.i.attn.probs"   (H, T, T)   encoder self-attention
 *   "dec.i.attn.probs"   (H, T, T)   decoder (causal) self-attention
 *   "dec.i.cross.probs"  (H, Tt, S)  decoder cross-attention over the source
 * token_type_ids (n) and attention_mask (n; HF convention: 1 = real, 0 = padding) may be
 * NULL and apply to encoder-only models. For encoder-decoders, ids is the source and
 * tgt_ids (n_tgt) the decoder input (teacher forcing); tgt_ids is ignored otherwise.
 * Errors: ids out of the vocabulary, more tokens than the context (TFP_ERR_ENGINE); a
 * model that reads vectors (a PyTorch nn.Transformer) takes tfp_model_forward_embeddings.
 * The recurrent encoder-decoder gives "logits", "hidden" = its decoder states (T, D), and
 * "dec.0.cross.probs" (1, T, S) = its additive attention; it has no self-attention maps. */
int tfp_model_forward(tfp_model* model, const tfp_forward_params* p, tfp_tensors** out);

/* The LM head on hidden rows the caller holds: out (n, v_end - v_begin) = the logits of
 * vocabulary ids [v_begin, v_end) for hidden (n, C), rows as tfp_model_forward's "hidden"
 * gives them (after the final norm; e.g. from a pass with logits_last = -1). Only those
 * rows of the head are read, so every logit of a long input comes a block of the vocabulary
 * at a time without (T, V) floats in the heap at once (GPT-2, T = 512: 98 MiB; a 262,144-word
 * vocabulary: 512 MiB). Token models with an LM head (decoder-only, encoder-decoder);
 * 0 <= v_begin < v_end <= V. hidden borrowed; out caller-owned, n * (v_end - v_begin) floats. */
int tfp_model_logits(tfp_model* model, const float* hidden, int n, int v_begin, int v_end, float* out);

/* ---- forward pass on embeddings (PyTorch nn.Transformer checkpoints) ---------------- */

/* Flags of tfp_model_forward_embeddings (bits, or-ed). */
enum tfp_embed_flags {
  TFP_EMBED_CAUSAL_SRC = 1, /* causal mask on the encoder's self-attention (src): query i
                               sees keys j <= i, e.g. a GPT-style nn.TransformerEncoder */
  TFP_EMBED_CAUSAL_TGT = 2  /* causal mask on the decoder's self-attention (tgt): PyTorch's
                               tgt_mask = generate_square_subsequent_mask(T) */
};

/* The inputs of a model that reads vectors (tfp_model_forward_embeddings,
 * tfp_model_attention_steps_embeddings); their meaning below. Defaults
 * (tfp_embeddings_params_init): every field 0 / NULL. */
typedef struct tfp_embeddings_params {
  int32_t C;                    /* the width of the caller's rows (must equal d_model) */
  const float* src;             /* (S, C) */
  int32_t S;
  const float* tgt;             /* (T, C) or NULL with T = 0 */
  int32_t T;
  const uint8_t* src_padding;   /* (S) or NULL; 1 = padding */
  const uint8_t* tgt_padding;   /* (T) or NULL; 1 = padding */
  int32_t flags;                /* tfp_embed_flags, or-ed */
} tfp_embeddings_params;
void tfp_embeddings_params_init(tfp_embeddings_params* p);

/* One forward pass of a model that reads vectors instead of token ids (info
 * "has_embeddings": false): a PyTorch nn.Transformer / nn.TransformerEncoder /
 * nn.TransformerDecoder checkpoint (config.json "model_type": "torch_transformer"), run as
 * the PyTorch module's forward with batch_first=True on a batch of one:
 *   "kind": "transformer" (architecture encoder_decoder)   src (S, C) the encoder's input,
 *                                                          tgt (T, C) the decoder's input
 *   "kind": "encoder"     (encoder_only)                   src (S, C); tgt NULL, T = 0
 *   "kind": "decoder"     (encoder_decoder, 0 encoder layers: a bare decoder stack)
 *                         src (S, C) is its `memory` (what cross-attention reads),
 *                         tgt (T, C) the decoder's input
 * (fields of p, tfp_embeddings_params:) src, tgt: float32 row-major, borrowed. C: the width of the caller's rows; it must equal
 * the model's d_model (stated so that a mismatch is an error, not a misread buffer).
 * src_padding (S), tgt_padding (T): borrowed, may be NULL; 1 = padding (PyTorch's
 * key_padding_mask true), 0 = real. src_padding masks source keys wherever they are keys
 * (src_key_padding_mask and memory_key_padding_mask alike). flags: tfp_embed_flags.
 * Nothing is added to the inputs: nn.Transformer has no positional encoding of its own
 * (add tfp_sinusoidal_positions to the rows if wanted).
 * *out (caller-owned; NULL on failure) receives, with the names of tfp_model_forward:
 *   "hidden"  (T, C), or (S, C) for an encoder: the module's output (after any final norm)
 *   "hidden_norm" (T) or (S): the Euclidean length of each row of "hidden"
 *   "memory"  (S, C) the encoder's output ("transformer" only)
 *   "enc.i.attn.probs" (H, S, S)   "dec.i.attn.probs" (H, T, T)   "dec.i.cross.probs" (H, T, S)
 * Errors leave the model usable: a model with token embeddings (use tfp_model_forward),
 * C != d_model, a missing or unexpected src/tgt, a length < 1, a padding value other than
 * 0/1, an unknown flag or one for a stack the model lacks are TFP_ERR_INVALID_ARGUMENT; a
 * non-finite input value is TFP_ERR_ENGINE naming its row and column. */
int tfp_model_forward_embeddings(tfp_model* model, const tfp_embeddings_params* p, tfp_tensors** out);

/* Vaswani et al.'s sinusoidal positional encoding (model/transformer.h):
 * PE[p, 2i] = sin(p / 10000^(2i/C)), PE[p, 2i+1] = cos(same), for the rows
 * p = pos0 .. pos0 + T - 1. out (T, C), caller-owned: add == 0 writes PE; add != 0 adds
 * it to the rows out holds (token vectors + positions, for models without positions of
 * their own such as nn.Transformer). */
int tfp_sinusoidal_positions(int pos0, int T, int C, int add, float* out);

/* What to fill (tfp_model_fill_mask, tfp_fill_mask_logits). Defaults
 * (tfp_fill_mask_params_init): NULL / 0, mask_id -1, top_k 5. */
typedef struct tfp_fill_mask_params {
  const int32_t* ids;            /* (n) token ids holding the masks */
  int32_t n;
  const int32_t* token_type_ids; /* (n) or NULL, as tfp_forward_params (model calls only) */
  const int32_t* attention_mask; /* (n) or NULL, as tfp_forward_params (model calls only) */
  int32_t mask_id;               /* the [MASK] id; -1 = the tokenizer's (model calls only) */
  int32_t top_k;                 /* fillers kept per mask (>= 1) */
} tfp_fill_mask_params;
void tfp_fill_mask_params_init(tfp_fill_mask_params* p);

/* Masked-LM models ("head": "masked_lm", e.g. BertForMaskedLM): the most probable fillers
 * of every mask in p->ids (n = p->n), the softmax over the vocabulary computed in the
 * engine (model/fill_mask.h). Caller-owned outputs:
 *   positions  (n)           the index in ids of each mask, in order
 *   out_ids    (n * top_k)   row m: the top_k ids for positions[m], most probable first
 *   out_probs  (n * top_k)   their probabilities
 * A row has min(top_k, V) entries; the rest of the row holds id -1, probability 0.
 * *n_masked receives the number of masks (0 when ids holds none; not an error).
 * A model without the head, top_k < 1, or no mask id is TFP_ERR_INVALID_ARGUMENT. */
int tfp_model_fill_mask(tfp_model* model, const tfp_fill_mask_params* p, int32_t* positions, int32_t* out_ids,
                        float* out_probs, int* n_masked);

/* The same top-k from logits the caller already has (a masked-LM forward pass's "logits"
 * (n, V) with n = p->n, borrowed), so a page that ran tfp_model_forward does not run the
 * model again. p->mask_id must be given (>= 0); token_type_ids and attention_mask are not
 * read; outputs and errors as tfp_model_fill_mask. */
int tfp_fill_mask_logits(const float* logits, int V, const tfp_fill_mask_params* p, int32_t* positions,
                         int32_t* out_ids, float* out_probs, int* n_masked);

/* ---- generation: one token per call ------------------------------------------------- */

/* A decoder-only generation in progress (model/generate.h): the prompt runs through a
 * KV cache on creation; each tfp_generator_next samples one token with the same seeded
 * PCG32 stream as `tfp generate`, so a caller can stop between tokens. Caller-owned;
 * free with tfp_generator_free. It keeps the model's weights alive. */
typedef struct tfp_generator tfp_generator;

/* How to generate. Defaults (tfp_generator_params_init) are `tfp generate`'s: prompt
 * NULL, n 0, max_tokens 20, temperature 1, top_k 0, top_p 1, seed 0, stop_ids NULL,
 * n_stop -1, top_n 0. */
typedef struct tfp_generator_params {
  const int32_t* prompt;  /* (n) the prompt's ids; required (n >= 1) */
  int32_t n;
  int32_t max_tokens;     /* tokens to generate at most */
  float temperature;      /* 0 = greedy */
  int32_t top_k;          /* 0 = all */
  float top_p;            /* 1 = all */
  uint32_t seed;          /* as `tfp generate --seed` */
  const int32_t* stop_ids; /* (n_stop): stop after any of them */
  int32_t n_stop;         /* < 0: the model's eos_token_id (as `tfp generate`) */
  int32_t top_n;          /* how many most probable tokens each step reports (0..64) */
} tfp_generator_params;
void tfp_generator_params_init(tfp_generator_params* p);

/* Runs p's prompt through the model; *out receives the generator (caller-owned), NULL on
 * failure. */
int tfp_generator_create(tfp_model* model, const tfp_generator_params* p, tfp_generator** out);
void tfp_generator_free(tfp_generator* gen);

/* Produces the next token into *id (and its probability at temperature 1 into *prob,
 * either may be NULL). *done (not NULL) is set to 1 when no token was produced because
 * generation had already stopped, else 0. */
int tfp_generator_next(tfp_generator* gen, int32_t* id, float* prob, int* done);
/* 1 once generation has stopped (the last token was produced or a limit reached). */
int tfp_generator_finished(const tfp_generator* gen);
/* Why it stopped: "max_tokens", "eos", "context_full", or "" while running. Static. */
const char* tfp_generator_stop_reason(const tfp_generator* gen);
/* Text added by the latest token: the decoded output grows by exactly this string (a
 * token ending inside a UTF-8 character gives "" and the character comes with the next
 * one). Owned by gen, valid until the next call on it. "" without a tokenizer. */
const char* tfp_generator_text(const tfp_generator* gen);
/* The latest token's most probable alternatives: up to cap (id, prob) pairs written to
 * ids/probs (caller-owned), most probable first; returns how many. */
int tfp_generator_top(const tfp_generator* gen, int32_t* ids, float* probs, int cap);
/* The same report from logits the caller already has: the most probable next tokens of
 * one row of a language model's logits (V values, borrowed; e.g. the last row of a
 * tfp_model_forward pass with logits_last = 1), so a page that just ran the text through
 * the model shows the next token without a second pass. Probabilities at temperature 1;
 * up to top_n (1..64) pairs written to out_ids/out_probs, most probable first, ties to the
 * lower id, exactly as a generator's first step reports them; *n_out receives how many
 * (min(top_n, V)). A NaN logit is TFP_ERR_ENGINE; V < 1, top_n outside 1..64 or a NULL
 * pointer is TFP_ERR_INVALID_ARGUMENT. */
int tfp_top_tokens_logits(const float* logits, int V, int top_n, int32_t* out_ids, float* out_probs, int* n_out);

/* ---- encoder-decoder decoding ------------------------------------------------------- */

/* What to decode. Defaults (tfp_translate_params_init): src_ids NULL, n 0, beam_size 1,
 * max_tokens 0, start_id -1, eos_id -1. */
typedef struct tfp_translate_params {
  const int32_t* src_ids; /* (n) the source's ids; required (n >= 1) */
  int32_t n;
  int32_t beam_size;      /* 1 = greedy */
  int32_t max_tokens;     /* 0 = as many as the context allows */
  int32_t start_id;       /* -1: config.json's decoder_start_token_id, else bos, else eos */
  int32_t eos_id;         /* -1: the model's eos */
} tfp_translate_params;
void tfp_translate_params_init(tfp_translate_params* p);

/* Greedy (beam_size 1) or beam-search decoding (model/beam.h) of p->src_ids.
 * start_id -1: config.json's decoder_start_token_id, else the tokenizer's bos, else the
 *   model's eos; eos_id -1: the model's eos.
 * max_tokens 0: as many as the context allows (the recurrent encoder-decoder: its
 * config's max_target_tokens; its one "layer" is "dec.0.cross.probs" (1, T, S)). Output ids go to out_ids (capacity
 * ints, caller-owned; too small is TFP_ERR_INVALID_ARGUMENT), their count to *out_len.
 * *alignment (caller-owned) receives "alignment" (T, S) — the last decoder layer's
 * cross-attention averaged over heads — and "dec.i.cross.probs" (H, T, S) per layer;
 * row t is where the decoder looked while choosing output token t. */
int tfp_model_translate(tfp_model* model, const tfp_translate_params* p, int32_t* out_ids, int capacity,
                        int* out_len, tfp_tensors** alignment);

/* ---- training: a toy-task trainer, stepped by the caller --------------------------- */

/* A tiny Transformer being trained on a toy task (train/trainer.h): the training page's
 * worker creates one, calls tfp_trainer_step in small chunks (reading the losses),
 * evaluates and looks at attention between chunks, and exports the result as the three
 * files tfp_model_load reads. Caller-owned; free with tfp_trainer_free. */
typedef struct tfp_trainer tfp_trainer;

/* task: "copy", "reverse", "sort" or "add" (borrowed, NUL-terminated).
 * options_json (options_bytes bytes, borrowed; NULL or "{}" = the defaults of
 * `tfp train TASK`): an object whose keys are the `tfp train` flags without "--" and
 * with '-' spelt '_', so the same options give the same run as the native CLI:
 *   "steps" (schedule length; default per task), "batch", "d_model", "heads", "layers",
 *   "d_ff", "size" (digits), "lr" (min_lr = lr/10), "label_smoothing" (numbers);
 *   "arch": "decoder" | "encdec" | "gru" (a GRU encoder-decoder with additive attention,
 *   sizes from d_model); "act": "relu" | "gelu" | "gelu_new";
 *   "post_ln": true | false; "warmup" (steps), "clip" (gradient norm, 0 = off);
 *   "positions": "learned" | "sinusoidal" | "none".
 * seed: as `tfp train --seed`. An unknown task, an unknown key, a value of the wrong type
 * or out of range is TFP_ERR_INVALID_ARGUMENT naming it. *out receives the trainer
 * (caller-owned), NULL on failure. */
int tfp_trainer_create(const char* task, const char* options_json, size_t options_bytes, uint32_t seed,
                       tfp_trainer** out);
void tfp_trainer_free(tfp_trainer* trainer);

/* Runs n_steps (> 0) optimisation steps. losses (n_steps doubles, caller-owned) receives
 * each step's mean training cross-entropy; it may be NULL. Steps past the schedule's
 * length keep the final learning rate. */
int tfp_trainer_step(tfp_trainer* trainer, int n_steps, double* losses);
/* As tfp_trainer_step, with more of each step: stats (n_steps x 4 doubles, caller-owned,
 * row-major) receives per step its mean training cross-entropy (as losses above), the
 * batch's token accuracy (argmax right, over graded tokens), the learning rate it used and
 * the global gradient norm before clipping. */
int tfp_trainer_step_stats(tfp_trainer* trainer, int n_steps, double* stats);

/* Sets the peak learning rate (> 0, finite) from the next step on, with the floor lr/10 as
 * the "lr" option sets them; the schedule keeps its position (a step in warm-up stays in
 * warm-up, the cosine decay goes on from where it is). Creating with {"lr": x} and
 * setting x before the first step give the same run. */
int tfp_trainer_set_lr(tfp_trainer* trainer, double lr);

/* Evaluates on the fixed held-out set (prompts never trained on). sequence_accuracy:
 * the share of answers right at every position (= greedy decoding is right);
 * token_accuracy and loss: per graded token. Any out-pointer may be NULL. */
int tfp_trainer_evaluate(tfp_trainer* trainer, double* sequence_accuracy, double* token_accuracy,
                         double* loss);

/* What is being trained, as a JSON object (owned by the trainer, valid until the next
 * call of this function on it or tfp_trainer_free):
 *   { "task", "size", "architecture" ("decoder_only", "encoder_decoder" or "gru_attention"),
 *     "d_model", "n_heads", "n_layers", "d_ff" (the GRU: 1, 1, 0), "parameters", "batch", "steps" (the schedule), "steps_done", "seed",
 *     "tokens_per_step" (B times the padded input length, as `tfp train` counts them),
 *     "lr" (the peak learning rate now), "warmup", "clip", "label_smoothing", "positions",
 *     "vocab" ("_.>=+0123456789": token id i is character i) } */
const char* tfp_trainer_info_json(tfp_trainer* trainer);

/* Runs the current model on one example, prompt (NUL-terminated, borrowed; 1 to the
 * task's longest prompt, in its alphabet, e.g. "3141"; the answer is the task's), and
 * returns every attention map in *out (caller-owned), cut to the example's real tokens
 * (padding removed), with the names tfp_model_forward uses:
 *   "dec.i.attn.probs"   (H, T, T)  decoder (causal) self-attention, layer i
 *   "dec.i.cross.probs"  (H, T, S)  cross-attention (encoder-decoder only; the GRU's
 *                                   additive attention is "dec.0.cross.probs" (1, T, S), its
 *                                   only map)
 *   "enc.i.attn.probs"   (H, S, S)  encoder self-attention (encoder-decoder only)
 * The tokens: tfp_trainer_attention_tokens. */
int tfp_trainer_attention(tfp_trainer* trainer, const char* prompt, tfp_tensors** out);
/* The tokens of the latest tfp_trainer_attention, one character each: source 0 the
 * decoder input (T: "3141>1413" decoder-only, ">1413" encoder-decoder), source 1 the
 * encoder input (S: "3141"; "" for decoder-only). Owned by the trainer, valid until the
 * next tfp_trainer_attention or tfp_trainer_free. "" before any. */
const char* tfp_trainer_attention_tokens(const tfp_trainer* trainer, int source);

/* The current model's answer to prompt (as for tfp_trainer_attention), decoded greedily
 * token by token until the end mark or the task's longest answer. *answer (NUL-terminated,
 * owned by the trainer) is valid until the next tfp_trainer_generate or tfp_trainer_free. */
int tfp_trainer_generate(tfp_trainer* trainer, const char* prompt, const char** answer);

/* The trained model as the files tfp_model_load reads: config.json, model.safetensors
 * and tokenizer.json. Each pointer/size pair may be NULL. The bytes are owned by the
 * trainer and valid until the next tfp_trainer_export, tfp_trainer_step or
 * tfp_trainer_free (copy them out before training on). The texts are not
 * NUL-terminated; use the sizes. */
int tfp_trainer_export(tfp_trainer* trainer, const char** config_json, size_t* config_bytes,
                       const uint8_t** weights, size_t* weights_bytes, const char** tokenizer_json,
                       size_t* tokenizer_bytes);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TFP_API_H */
