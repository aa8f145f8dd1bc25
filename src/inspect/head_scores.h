// Head finders: how much each head of one causal self-attention map behaves as a
// previous-token, duplicate-token or induction head, on a sequence that repeats itself
// (TransformerLens's conventions: prefix token, R random tokens, the same R tokens again).
// Two scores of each kind, both of them shown by the playground's "Head finders" view:
//
// TransformerLens's detect_head (transformer_lens/head_detector.py, error_measure "mul",
// the default): a 0/1 detection pattern P (T, T) built from the tokens alone,
//   previous   P[i][j] = 1 when j = i − 1
//   duplicate  P[i][j] = 1 when j < i and tokens[j] = tokens[i]
//   induction  P[i][j] = 1 when 1 <= j <= i and tokens[j − 1] = tokens[i]
// and score = Σ_ij A_ij P_ij / Σ_ij A_ij over the whole map — every row, row 0 and the
// first repeat's rows included (so with A's rows summing to 1 the denominator is T, and
// an ideal induction head scores about R / T, not 1). exclude_bos sets column 0 of A to
// zero before both sums, exclude_current its diagonal (TransformerLens's flags, both
// false by default). Σ A = 0 gives NaN.
//
// The plain definitions: the mean over the positions i of the second repeat
// (T − R <= i < T), whose token first occurred at i − R, of the attention
//   previous   A[i][i − 1]
//   duplicate  A[i][i − R]        (to the earlier occurrence)
//   induction  A[i][i − R + 1]    (to the token after the earlier occurrence)
//
// Legend: H heads, T tokens (queries = keys), R repeat length.
#pragma once
#include <cstdint>

#include "core/tensor.h"

namespace tfp::inspect {

// Columns of attention_head_scores' result.
enum HeadScore : int {
  kPreviousTL = 0, kDuplicateTL = 1, kInductionTL = 2,  // detect_head, "mul"
  kPrevious = 3, kDuplicate = 4, kInduction = 5,        // plain definitions
};
inline constexpr int kHeadScoreCount = 6;

struct HeadScoreOptions {
  bool exclude_bos = false;      // detect_head's exclude_bos
  bool exclude_current = false;  // detect_head's exclude_current_token
};

// probs (H, T, T) self-attention probabilities, tokens (T) the ids the forward pass read,
// repeat R with 1 <= R and 2R <= T (the last 2R tokens are the two repeats; the plain
// scores only read the positions, tokens only feed the detection patterns). Returns
// (H, 6), columns as HeadScore. Throws tfp::Error on a shape that is not (H, T, T) or
// an R out of range.
Tensor attention_head_scores(TensorView probs, const int32_t* tokens, int64_t repeat,
                             const HeadScoreOptions& options = {});

}  // namespace tfp::inspect
