// Softmax one step at a time, for the Learn chapter "Softmax" and its tests: the stable
// softmax (the one every model uses) with its intermediates, and the naive textbook
// formula kept as a counter-example. Scalar float32, the clear version of the maths.
//
// Not used by any model: models call kernels::softmax_rows (kernels/kernels.h), whose
// fast and reference versions subtract the row max. softmax_rows_naive exists only so a
// page can show what goes wrong without that subtraction.
#pragma once
#include <cstdint>

namespace tfp::kernels::ref {

// One row of n values, step by step (float32 throughout):
//   shift    = max_j x_j when subtract_max (what softmax_rows does), else 0 (naive)
//   exps[j]  = exp(x_j - shift)
//   sum      = Σ_j exps[j], accumulated left to right (the return value)
//   probs[j] = exps[j] / sum
// shift_out (may be null) receives shift. exps and probs (n floats each) may alias x and
// each other: every element is read before it is written.
// With subtract_max the largest exp is exactly 1, so sum >= 1 and nothing overflows;
// -inf (a masked key) gives exp(-inf) = 0; a row that is all -inf gives exps and probs
// all 0 and sum 0 (no distribution exists; softmax_rows writes the same zeros).
// Without it, exp(x) overflows float32 to +inf once x > ln(FLT_MAX) ≈ 88.72 (x = 89 is
// enough), the sum becomes +inf and inf/inf = NaN; a very negative row underflows every
// exp to 0 and 0/0 = NaN.
float softmax_row_steps(const float* x, int n, bool subtract_max, float* exps, float* probs,
                        float* shift_out);

// Teaching counter-example, never used by a model: softmax_rows WITHOUT the max
// subtraction, x[r, :] <- exp(x) / Σ exp(x), in place over (rows, cols) with row stride ld.
// Equal to softmax_rows for small scores; +inf/NaN for scores above ~88.72 (see above).
void softmax_rows_naive(float* x, int rows, int cols, int64_t ld);

}  // namespace tfp::kernels::ref
