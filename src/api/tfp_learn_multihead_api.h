/* The Learn chapter "Multi-head attention": parameter and FLOP counts of one multi-head
 * self-attention block (nn/attention_cost.h). The conventions of tfp_api.h hold (int
 * status, tfp_last_error, ownership stated). Exported from the WASM module like every
 * src/api/tfp_*_api.h (cmake/wasm_module.cmake).
 * Shapes: T tokens, C = d_model, H heads, D = C/H head size. */
#ifndef TFP_LEARN_MULTIHEAD_API_H
#define TFP_LEARN_MULTIHEAD_API_H

#include "api/tfp_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The number of values written by tfp_learn_mha_cost. */
#define TFP_LEARN_MHA_COST_VALUES 12

/* Costs of the block Q|K|V = X·W_{Q|K|V}ᵀ (+ b), per-head softmax(Q_i·K_iᵀ/√D)·V_i,
 * concat·W_Oᵀ (+ b_O), for d_model C in [1, 16384], heads H in [1, C] dividing C, tokens T
 * in [1, 65536], bias 1 = every projection has a bias (GPT-2, nn.MultiheadAttention),
 * 0 = none. Writes TFP_LEARN_MHA_COST_VALUES doubles to out (caller-owned; every value is
 * an integer, exact in a double at these limits):
 *   [0]  D = C/H
 *   [1]  params W_Q (+b_Q) = C² (+C)   [2] W_K   [3] W_V   [4] W_O   (the same each)
 *   [5]  params total = 4·C² (+4·C): independent of H
 *   [6]  FLOPs of the Q, K, V projections = 3·2·T·C²
 *   [7]  FLOPs of Q_i·K_iᵀ over all heads = H·2·T²·D = 2·T²·C
 *   [8]  FLOPs of A_i·V_i over all heads  = H·2·T²·D = 2·T²·C
 *   [9]  FLOPs of the output projection   = 2·T·C²
 *   [10] FLOPs total of the matrix products = 8·T·C² + 4·T²·C: independent of H
 *   [11] attention weights H·T² (scores scaled, exponentiated and stored once each)
 * A product of (m, k) and (k, n) counts 2·m·k·n FLOPs; biases, scaling and softmax are
 * outside [10]. Out-of-range sizes or H not dividing C are TFP_ERR_INVALID_ARGUMENT. */
int tfp_learn_mha_cost(int d_model, int heads, int tokens, int bias, double* out);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TFP_LEARN_MULTIHEAD_API_H */
