// Learned absolute positional embeddings (GPT-2's wpe, BERT's position_embeddings):
// a (P, C) table with one trained row per position; token t gets row pos0 + t added.
// Unlike the sinusoidal code it cannot go past P: an input longer than the table is an
// error, never a silent wrap or truncation.
//
// Legend: T tokens, C channels, P table rows (the context length).
#pragma once
#include "core/tensor.h"

namespace tfp::nn {

// x (T, C) += table[pos0 + t] for every row t, in place. table (P, C). What model::embed adds
// for learned-position models (pos0 = the KV cache's position when decoding).
void add_learned_positions(Tensor& x, const TensorView& table, int64_t pos0 = 0);

}  // namespace tfp::nn
