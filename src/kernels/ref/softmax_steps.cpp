// Softmax step by step, stable and naive (see softmax_steps.h). Scalar and plain on
// purpose: the Learn chapter shows these numbers next to the formula.
#include "kernels/ref/softmax_steps.h"

#include <cmath>
#include <limits>

namespace tfp::kernels::ref {

float softmax_row_steps(const float* x, int n, bool subtract_max, float* exps, float* probs,
                        float* shift_out) {
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  float shift = 0.0f;
  if (subtract_max) {
    // softmax(x) = softmax(x - c) for any c; c = max makes every exp argument <= 0.
    shift = kNegInf;
    for (int j = 0; j < n; ++j) shift = x[j] > shift ? x[j] : shift;
    if (shift == kNegInf) {  // every key masked (or n == 0): no distribution, all 0
      for (int j = 0; j < n; ++j) exps[j] = probs[j] = 0.0f;
      if (shift_out) *shift_out = shift;
      return 0.0f;
    }
  }
  if (shift_out) *shift_out = shift;
  float sum = 0.0f;
  for (int j = 0; j < n; ++j) sum += (exps[j] = std::exp(x[j] - shift));  // exp(-inf) = 0
  // Naive: sum may be +inf (overflow) or 0 (underflow); the division then gives NaN,
  // which is the point of the counter-example. Nothing here hides it.
  for (int j = 0; j < n; ++j) probs[j] = exps[j] / sum;
  return sum;
}

void softmax_rows_naive(float* x, int rows, int cols, int64_t ld) {
  for (int r = 0; r < rows; ++r) {
    float* row = x + r * ld;
    softmax_row_steps(row, cols, /*subtract_max=*/false, row, row, nullptr);
  }
}

}  // namespace tfp::kernels::ref
