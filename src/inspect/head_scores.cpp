// Head finders (head_scores.h): TransformerLens's detect_head scores and the plain
// definitions, from one attention map and the tokens it was computed on.
#include "inspect/head_scores.h"

#include <limits>
#include <vector>

#include "core/error.h"

namespace tfp::inspect {

Tensor attention_head_scores(TensorView probs, const int32_t* tokens, int64_t repeat,
                             const HeadScoreOptions& options) {
  TFP_CHECK(probs.rank() == 3 && probs.shape[0] > 0 && probs.shape[1] > 0 && probs.shape[1] == probs.shape[2],
            "attention_head_scores: probs has shape ", shape_str(probs.shape), ", expected [H, T, T]");
  const int64_t H = probs.shape[0], T = probs.shape[1];
  TFP_CHECK(tokens != nullptr, "attention_head_scores: tokens is null");
  TFP_CHECK(repeat >= 1 && 2 * repeat <= T, "attention_head_scores: repeat ", repeat,
            " does not fit T = ", T, " (need 1 <= R and 2R <= T)");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // The detection patterns, (T, T) each, lower triangular (TransformerLens's).
  std::vector<uint8_t> dup(static_cast<size_t>(T * T), 0), ind(static_cast<size_t>(T * T), 0);
  for (int64_t i = 0; i < T; ++i)
    for (int64_t j = 0; j <= i; ++j) {
      const size_t at = static_cast<size_t>(i * T + j);
      dup[at] = j < i && tokens[j] == tokens[i];
      ind[at] = j >= 1 && tokens[j - 1] == tokens[i];
    }
  Tensor out({H, kHeadScoreCount});
  for (int64_t h = 0; h < H; ++h) {
    const float* a = probs.data + h * T * T;
    double total = 0, prev = 0, dsum = 0, isum = 0;
    for (int64_t i = 0; i < T; ++i)
      for (int64_t j = 0; j < T; ++j) {
        if ((options.exclude_bos && j == 0) || (options.exclude_current && j == i)) continue;
        const double v = a[i * T + j];
        total += v;
        if (j > i) continue;  // the patterns are lower triangular
        const size_t at = static_cast<size_t>(i * T + j);
        if (j == i - 1) prev += v;
        if (dup[at]) dsum += v;
        if (ind[at]) isum += v;
      }
    double p = 0, d = 0, n = 0;
    for (int64_t i = T - repeat; i < T; ++i) {
      p += a[i * T + i - 1];
      d += a[i * T + i - repeat];
      n += a[i * T + i - repeat + 1];
    }
    const double r = static_cast<double>(repeat);
    float* o = out.row(h);
    o[kPreviousTL] = static_cast<float>(total > 0 ? prev / total : nan);
    o[kDuplicateTL] = static_cast<float>(total > 0 ? dsum / total : nan);
    o[kInductionTL] = static_cast<float>(total > 0 ? isum / total : nan);
    o[kPrevious] = static_cast<float>(p / r);
    o[kDuplicate] = static_cast<float>(d / r);
    o[kInduction] = static_cast<float>(n / r);
  }
  return out;
}

}  // namespace tfp::inspect
