// Learned absolute positions: add one table row per token. See positional_learned.h.
//
// Legend: T tokens, C channels, P table rows.
#include "nn/positional_learned.h"

#include "kernels/kernels.h"

namespace tfp::nn {

void add_learned_positions(Tensor& x,                // (T, C)
                           const TensorView& table,  // (P, C)
                           int64_t pos0) {
  const char* op = "add_learned_positions";
  TFP_CHECK(x.rank() == 2, op, ": x must be (T, C), got ", shape_str(x.shape));
  TFP_CHECK(table.rank() == 2 && !table.empty(), op, ": table must be (P, C), got ",
            shape_str(table.shape));
  const int64_t T = x.shape[0], C = x.shape[1], P = table.shape[0];
  TFP_CHECK(table.shape[1] == C, op, ": table ", shape_str(table.shape),
            " does not match the width of x ", shape_str(x.shape));
  TFP_CHECK(pos0 >= 0 && pos0 + T <= P, op, ": positions ", pos0, "..", pos0 + T - 1,
            " do not fit the table of ", P, " positions ", shape_str(table.shape),
            " (input longer than the context)");
  // Rows pos0 .. pos0 + T - 1 of the table are contiguous, as are the rows of x.
  kernels::add_inplace(x.ptr(), table.data + pos0 * C, static_cast<size_t>(T * C));
}

}  // namespace tfp::nn
