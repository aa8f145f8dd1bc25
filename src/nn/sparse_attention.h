// Sparse self-attention: each query sees only the keys a fixed pattern allows, and the
// work for every other (query, key) pair is skipped — never computed and then masked.
// Patterns (Child et al. 2019 "Sparse Transformers"; Beltagy et al. 2020 "Longformer"):
//   window   query i sees keys j with |i − j| <= w                       2w + 1 keys
//   dilated  keys j with |i − j| <= w·d and (i − j) divisible by d       2w + 1 keys
//            (w steps of d each side: the same number of keys, d times as far)
//   global   the window, plus the first g tokens: they see every key and every
//            query sees them (Longformer's global tokens, e.g. [CLS])
// with `causal` every pattern also keeps j <= i only.
//
// Cost per head: O(T·K·D) for K allowed keys per query instead of O(T²·D); the scores of
// one query are a K-long row, never a (T, T) matrix. The dense equivalent — the full
// (T, T) scores with -inf where the pattern forbids (sparse_as_dense_mask + the
// ordinary scaled_dot_product_attention) — gives the same outputs and costs what full
// attention costs: masking hides pairs, it does not skip them.
//
// What this file deliberately does not do: cross-attention (Tq = Tk = T), additive masks
// or positional hooks, block-sparse kernels (each row's keys are listed one by one).
//
// Legend: H heads, T tokens, D key width, Dv value width, w window, d dilation, g globals.
#pragma once
#include <cstdint>
#include <vector>

#include "core/tensor.h"
#include "nn/attention.h"

namespace tfp::nn {

enum class SparseKind { window = 0, dilated = 1, global = 2 };

struct SparsePattern {
  SparseKind kind = SparseKind::window;
  int window = 0;     // w >= 0 (window, dilated, global)
  int dilation = 1;   // d >= 1 (dilated only)
  int n_global = 0;   // g >= 0 (global only)
  bool causal = false;
};

// Throws tfp::Error naming `op` and the rule unless w >= 0, d >= 1, g >= 0.
void validate_sparse_pattern(const char* op, const SparsePattern& p);

// The rule itself: may query i see key j?
bool sparse_allowed(const SparsePattern& p, int i, int j);

// The keys query i sees among T, ascending, into `keys` (cleared first). Built from the
// pattern's structure in O(keys) — it never scans the T candidates.
void sparse_keys(const SparsePattern& p, int i, int T, std::vector<int>& keys);

// (T, T) row-major, 1 = query i may see key j (rows queries, columns keys).
std::vector<uint8_t> sparse_pattern_matrix(const SparsePattern& p, int T);
// Allowed (query, key) pairs per head: the scores the sparse path computes.
int64_t sparse_pair_count(const SparsePattern& p, int T);

// Stacked layers see further: token i's output after layer 1 mixes the keys it may see;
// after layer 2 it mixes their outputs, which mixed theirs. (T, T) row-major: the first
// layer l in 1..layers after which key position j can influence query i's output (a path
// i ← k₁ ← … ← j of allowed pairs, one per layer; every pattern keeps j = i, so a path
// may wait), 0 if no path of at most `layers` steps exists. A window w reaches l·w after l
// layers.
std::vector<int> sparse_reach(const SparsePattern& p, int T, int layers);

// The same pattern as an ordinary dense mask: additive (T, T), 0 where allowed, -inf where
// forbidden, for scaled_dot_product_attention (which then computes all T² scores).
AttentionMask sparse_as_dense_mask(const SparsePattern& p, int T);

// q (H, T, D), k (H, T, D), v (H, T, Dv) → out (H, T, Dv); probs (H, T, T) if asked
// (0 where the pattern forbids). out_i = Σ_{j allowed} softmax_j(scale·q_i·k_j) v_j.
AttentionResult sparse_attention(const TensorView& q, const TensorView& k, const TensorView& v,
                                 const SparsePattern& p, float scale, bool need_probs = false);

}  // namespace tfp::nn
