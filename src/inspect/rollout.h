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
#include <cstdint>
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

// Statistics of each head of one attention map: what the head does with the choice it
// has. Which keys query i was allowed to see: every key, minus the future keys of a
// causal map (causal: key j is visible to query i when j <= pos(i)), minus the keys
// `masked` marks for that query (key padding, local windows; 1 = masked). With
// pos(i) = i + (Tk − Tq) (with a KV cache the queries are the last Tq of Tk positions)
// and p_ij the map's row i:
//   column 0  entropy        −Σ_j p_ij ln p_ij, in nats (0 = one key; ln n_i = uniform
//                            over the n_i allowed keys)
//   column 1  mean distance  Σ_j p_ij |pos(i) − j|, in tokens
//   column 2  first token    p_i0, the share that goes to key 0 (an "attention sink")
//   column 3  previous token p_i,pos(i)−1
// Each column is a mean over the *informative* rows: those with at least two allowed
// keys. A row with one allowed key (row 0 of a causal map) has no choice — entropy 0,
// distance 0, first-token share 1 whatever the head's weights — so it would pull every
// head towards "first-token head" by ~1/T; a row with none (a padded query, masked
// whole) or whose weights are all zero attends to nothing. Column 3 is averaged over
// the informative rows that have a previous token: pos(i) >= 1 and key pos(i) − 1
// allowed. No such row gives NaN (T = 1; the previous token of a map with one query
// at position 0). For cross-attention (keys are another sequence) only columns 0 and 2
// mean something; pass causal = false there.
// Key padding (BERT's attention_mask, nn.Transformer's key_padding_mask): mask the
// padded keys in every row and mask the padded queries' whole rows too — the model
// still computes those rows, but their outputs are thrown away, so they say nothing
// about the head.
inline constexpr int kHeadStatCount = 4;
Tensor attention_head_stats(TensorView probs, bool causal = false,           // (H, Tq, Tk) → (H, 4)
                            const uint8_t* masked = nullptr);                // (Tq, Tk) or null

}  // namespace tfp::inspect
