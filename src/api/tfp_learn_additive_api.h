/* The Learn chapter "Additive (Bahdanau) attention": every step of
 *   e_ij = vᵀ tanh(W s_i + U h_j)     α_i = softmax(e_i)     c_i = Σ_j α_ij h_j
 * for hand-set numbers, and the scores before the softmax of every decoder step of the
 * shipped recurrent encoder–decoder (models/numbers-gru). Both run nn/additive_attention,
 * the function the model itself uses. Conventions of tfp_api.h (int status,
 * tfp_last_error, ownership stated, float32 row-major).
 * Shapes: Tq decoder states (queries, one per output step), Tk encoder states (keys =
 * values, one per source token), Cs decoder width, Ch encoder width, A attention width,
 * T output tokens, S source tokens, E embedding, D decoder width, Ce encoder width, V vocab. */
#ifndef TFP_LEARN_ADDITIVE_API_H
#define TFP_LEARN_ADDITIVE_API_H

#include "api/tfp_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The inputs of tfp_learn_additive_attention (tfp_api.h "parameter structs"), all borrowed.
 * Defaults (tfp_learn_additive_params_init): every field 0 / NULL. */
typedef struct tfp_learn_additive_params {
  const float* s;  /* (Tq, Cs) decoder states (row i: the query of output step i) */
  int32_t Tq;
  int32_t Cs;
  const float* h;  /* (Tk, Ch) encoder states (row j: source token j; the keys and the values) */
  int32_t Tk;
  int32_t Ch;
  const float* W;  /* (A, Cs), as PyTorch nn.Linear: (out, in) */
  const float* b;  /* (A) or NULL */
  const float* U;  /* (A, Ch) */
  const float* v;  /* (A) */
  int32_t A;
} tfp_learn_additive_params;
void tfp_learn_additive_params_init(tfp_learn_additive_params* p);

/* Additive attention on hand-set numbers p (above):
 * *out (caller-owned tensor list, tfp_tensors_free; NULL on failure) receives
 *   "ws"      (Tq, A)      W s_i + b
 *   "uh"      (Tk, A)      U h_j
 *   "sum"     (Tq, Tk, A)  W s_i + b + U h_j
 *   "tanh"    (Tq, Tk, A)  tanh of it
 *   "scores"  (Tq, Tk)     e_ij = v · tanh(...)
 *   "weights" (Tq, Tk)     α_ij = softmax over j of row i (each row sums to 1)
 *   "context" (Tq, Ch)     c_i = Σ_j α_ij h_j
 *   "entropy" (Tq)         −Σ_j α_ij ln α_ij of each row, in nats
 *   "bound"   (1)          ‖v‖₁ = Σ_a |v_a|: every e_ij lies in [−‖v‖₁, ‖v‖₁] (|tanh| ≤ 1), so
 *                          two weights of one row differ by at most a factor exp(2‖v‖₁)
 * and, on the same inputs, unscaled dot-product attention (Luong et al. 2015):
 *   "general_scores"  (Tq, Tk)  (W s_i + b)·(U h_j), Luong's "general" s_iᵀ W_a h_j with
 *                               W_a = WᵀU (b NULL); then "general_weights" (Tq, Tk) their
 *                               softmax over j, "general_context" (Tq, Ch) Σ_j α_ij h_j,
 *                               "general_entropy" (Tq)
 *   "dot_scores"      (Tq, Tk)  s_i·h_j, Luong's "dot", only when Cs == Ch; then
 *                               "dot_weights", "dot_context", "dot_entropy" as above
 * Errors: a size < 1 or a NULL input (TFP_ERR_INVALID_ARGUMENT), a non-finite input
 * (TFP_ERR_INVALID_ARGUMENT, naming the matrix, row and column). */
int tfp_learn_additive_attention(const tfp_learn_additive_params* p, tfp_tensors** out);

/* Greedy decoding of a recurrent encoder–decoder with additive attention (a model
 * loaded from models/numbers-gru; model_type tfp_gru_seq2seq) on src_ids (n, borrowed),
 * at most max_tokens output tokens (0: the model's limit), eos included when produced.
 * The output ids go to out_ids (capacity ints, caller-owned), their count to *out_len.
 * *out (caller-owned tensor list; NULL on failure) receives, row t for the step that
 * chose output token t (its query is the decoder state before that step, s_{t-1}):
 *   "scores"  (T, S)  e_tj = vᵀ tanh(W s_{t-1} + U h_j), before the softmax
 *   "weights" (T, S)  α_tj = softmax over j of row t: the alignment matrix, equal to
 *                     tfp_model_translate's "alignment" with beam_size 1
 *   "encoder" (S, Ce) the encoder states h_j = [h→_j ; h←_j] (keys and values)
 *   "query"   (T, D)  s_{t−1}, the decoder state step t scores with (row 0: s_0 from the
 *                     bridge)
 *   "context" (T, Ce) c_t = Σ_j α_tj h_j
 *   "embed"   (T, E)  E[y_{t−1}], the embedding of the token read at step t (row 0: the
 *                     start mark); the decoder GRU reads [E[y_{t−1}] ; c_t] with s_{t−1}
 *   "state"   (T, D)  s_t, the GRU's new state; the output layer reads [s_t ; c_t]
 *   "probs"   (T, V)  softmax of the output layer: p(y_t), its argmax is output token t
 * and when D == Ce, unscaled dot-product attention on the same states (Luong's "dot",
 * which the model was not trained with): "dot_scores" (T, S) s_{t−1}·h_j, "dot_weights"
 * (T, S) their softmax over j.
 * Errors: a Transformer model (TFP_ERR_INVALID_ARGUMENT: it has no additive attention),
 * an empty source, ids outside the vocabulary or a source longer than the model's limit
 * (TFP_ERR_ENGINE), an output longer than capacity. */
int tfp_learn_additive_gru_steps(tfp_model* model, const int32_t* src_ids, int n, int max_tokens,
                                 int32_t* out_ids, int capacity, int* out_len, tfp_tensors** out);

#ifdef __cplusplus
}
#endif

#endif /* TFP_LEARN_ADDITIVE_API_H */
