// Attention rollout and head statistics (see rollout.h for the definitions).
#include "inspect/rollout.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "core/error.h"

namespace tfp::inspect {

namespace {

// Â = α·I + (1−α)·fuse_h(A_h), rows renormalised. Writes (T, T) into out.
void mixing_matrix(TensorView probs,  // (H, T, T)
                   float residual, HeadFusion fusion, std::vector<double>& out) {
  const int64_t H = probs.shape[0], T = probs.shape[1];
  out.assign(static_cast<size_t>(T * T), 0.0);
  for (int64_t i = 0; i < T; ++i) {
    for (int64_t j = 0; j < T; ++j) {
      double v = fusion == HeadFusion::mean ? 0.0 : probs.data[(0 * T + i) * T + j];
      for (int64_t h = 0; h < H; ++h) {
        const double p = probs.data[(h * T + i) * T + j];
        if (fusion == HeadFusion::mean) v += p / static_cast<double>(H);
        else if (fusion == HeadFusion::max) v = std::max(v, p);
        else v = std::min(v, p);
      }
      out[static_cast<size_t>(i * T + j)] = (1.0 - residual) * v;
    }
    out[static_cast<size_t>(i * T + i)] += residual;
    double sum = 0.0;
    for (int64_t j = 0; j < T; ++j) sum += out[static_cast<size_t>(i * T + j)];
    // Why the fallback: a fully masked row (all zeros) with α = 0 has nothing to
    // renormalise; it carries the position through unchanged, like the residual does.
    if (sum <= 0.0) {
      out[static_cast<size_t>(i * T + i)] = 1.0;
      continue;
    }
    for (int64_t j = 0; j < T; ++j) out[static_cast<size_t>(i * T + j)] /= sum;
  }
}

}  // namespace

Tensor attention_rollout(const std::vector<TensorView>& layers, float residual, HeadFusion fusion) {
  TFP_CHECK(!layers.empty(), "attention_rollout: no layers given");
  TFP_CHECK(residual >= 0.0f && residual <= 1.0f, "attention_rollout: residual weight ", residual,
            " is outside [0, 1]");
  const TensorView& first = layers[0];
  TFP_CHECK(first.rank() == 3 && first.shape[1] == first.shape[2] && first.shape[0] > 0,
            "attention_rollout: layer 0 has shape ", shape_str(first.shape), ", expected [H, T, T]");
  const int64_t T = first.shape[1];
  const int64_t L = static_cast<int64_t>(layers.size());
  for (int64_t l = 0; l < L; ++l) {
    const TensorView& p = layers[static_cast<size_t>(l)];
    TFP_CHECK(p.rank() == 3 && p.shape[0] > 0 && p.shape[1] == T && p.shape[2] == T,
              "attention_rollout: layer ", l, " has shape ", shape_str(p.shape), ", expected [H, ", T,
              ", ", T, "] like layer 0");
  }

  Tensor out({L, T, T});
  std::vector<double> mix, rolled, next(static_cast<size_t>(T * T));
  for (int64_t l = 0; l < L; ++l) {
    mixing_matrix(layers[static_cast<size_t>(l)], residual, fusion, mix);
    if (l == 0) {
      rolled = mix;
    } else {
      // R_l = Â_l · R_{l−1}: position i mixes positions k, each already a mix of inputs j.
      for (int64_t i = 0; i < T; ++i)
        for (int64_t j = 0; j < T; ++j) {
          double s = 0.0;
          for (int64_t k = 0; k < T; ++k)
            s += mix[static_cast<size_t>(i * T + k)] * rolled[static_cast<size_t>(k * T + j)];
          next[static_cast<size_t>(i * T + j)] = s;
        }
      rolled.swap(next);
    }
    float* dst = out.ptr() + l * T * T;
    for (int64_t i = 0; i < T * T; ++i) dst[i] = static_cast<float>(rolled[static_cast<size_t>(i)]);
  }
  return out;
}

Tensor attention_head_stats(TensorView probs, bool causal, const uint8_t* masked) {
  TFP_CHECK(probs.rank() == 3 && probs.shape[0] > 0 && probs.shape[2] > 0,
            "attention_head_stats: probs has shape ", shape_str(probs.shape), ", expected [H, Tq, Tk]");
  const int64_t H = probs.shape[0], Tq = probs.shape[1], Tk = probs.shape[2];
  const int64_t offset = std::max<int64_t>(0, Tk - Tq);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // allowed(i, j): may query i see key j? The same for every head.
  auto allowed = [&](int64_t i, int64_t j) {
    return !(causal && j > i + offset) && !(masked && masked[i * Tk + j]);
  };
  std::vector<int64_t> n_allowed(static_cast<size_t>(Tq), 0);
  for (int64_t i = 0; i < Tq; ++i)
    for (int64_t j = 0; j < Tk; ++j) n_allowed[static_cast<size_t>(i)] += allowed(i, j) ? 1 : 0;
  Tensor out({H, kHeadStatCount});
  for (int64_t h = 0; h < H; ++h) {
    double entropy = 0, distance = 0, first = 0, previous = 0;
    int64_t rows = 0, previous_rows = 0;
    for (int64_t i = 0; i < Tq; ++i) {
      // One allowed key: the softmax has no choice to make, the row says nothing of the head.
      if (n_allowed[static_cast<size_t>(i)] < 2) continue;
      const float* p = probs.data + (h * Tq + i) * Tk;
      double sum = 0;
      for (int64_t j = 0; j < Tk; ++j) sum += p[j];
      if (sum <= 0) continue;  // a fully masked query attends to nothing
      ++rows;
      const int64_t pos = i + offset;
      for (int64_t j = 0; j < Tk; ++j) {
        const double v = p[j];
        // 0·ln 0 = 0 (the limit): masked keys add nothing.
        if (v > 0) entropy -= v * std::log(v);
        distance += v * static_cast<double>(std::llabs(pos - j));
      }
      first += p[0];
      if (pos >= 1 && pos - 1 < Tk && allowed(i, pos - 1)) {
        previous += p[pos - 1];
        ++previous_rows;
      }
    }
    const double n = static_cast<double>(rows);
    float* o = out.row(h);
    o[0] = static_cast<float>(rows ? entropy / n : nan);
    o[1] = static_cast<float>(rows ? distance / n : nan);
    o[2] = static_cast<float>(rows ? first / n : nan);
    o[3] = static_cast<float>(previous_rows ? previous / static_cast<double>(previous_rows) : nan);
  }
  return out;
}

}  // namespace tfp::inspect
