// Attention rollout (Abnar & Zuidema, "Quantifying Attention Flow in Transformers",
// 2020) and per-head attention statistics: maths the inspector shows on top of the
// attention maps a forward pass recorded ("enc.i.attn.probs", "dec.i.attn.probs").
//
// Rollout asks "how much does output position i draw on input token j through all the
// layers so far?". One layer's map A (T, T) says how a position mixes the previous
// layer's positions; the residual connection adds the position itself, so the layer's
// effective mixing is Â = α·I + (1−α)·A (α = 0.5 in the paper), rows renormalised.
// Chaining layers multiplies their mixings: R_l = Â_l · R_{l−1}, R_1 = Â_1.
// It deliberately ignores values, the FFN and the norms: it is a heuristic about the
// attention graph, not an attribution method.
//
// Legend: L layers, H heads, T tokens (queries = keys), Tq queries, Tk keys.
#pragma once
#include <vector>

#include "core/tensor.h"

namespace tfp::inspect {

// How the heads of one layer become one map before chaining.
enum class HeadFusion { mean, max, min };

// layers: L tensors, each (H, T, T) self-attention probabilities, in forward order.
// residual: α in [0, 1]. Returns (L, T, T): row i of slice l is R_l[i, :], the share of
// input token j in position i after layer l; every row sums to 1 (a fully masked row
// of A counts as "attends to itself"). Throws tfp::Error naming the layer and shapes on
// mismatched shapes, an empty list or α outside [0, 1].
Tensor attention_rollout(const std::vector<TensorView>& layers,  // L × (H, T, T)
                         float residual = 0.5f, HeadFusion fusion = HeadFusion::mean);

// Statistics of each head of one attention map, averaged over the query rows that
// attend to anything (all-zero rows are skipped):
//   column 0  entropy        −Σ_j p_ij ln p_ij, in nats (0 = one key; ln Tk = uniform)
//   column 1  mean distance  Σ_j p_ij |pos(i) − j|, in tokens
//   column 2  first token    p_i0, the share that goes to key 0 (an "attention sink")
//   column 3  previous token p_i,pos(i)−1 (rows with pos(i) = 0 count 0)
// pos(i) = i + (Tk − Tq): with a KV cache the queries are the last Tq of Tk positions.
// For cross-attention (keys are another sequence) only columns 0 and 2 mean something.
inline constexpr int kHeadStatCount = 4;
Tensor attention_head_stats(TensorView probs);  // (H, Tq, Tk) → (H, 4)

}  // namespace tfp::inspect
