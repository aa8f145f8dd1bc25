// The query–key drill-down (see attention_steps.h): the layers' side (mask matrix and
// reporting q, k, v) and the replay of one attention row, step by step.
//
// Legend: H heads, Tq queries, Tk keys, D head size (Dv for values).
#include "inspect/attention_steps.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace tfp::inspect {

namespace {
constexpr float kNegInf = -std::numeric_limits<float>::infinity();
}  // namespace

AttentionSteps attention_steps(const TensorView& q,  // (H, Tq, D)
                               const TensorView& k,  // (H, Tk, D)
                               const TensorView& v,  // (H, Tk, Dv)
                               const TensorView& mask, int head, int query, float scale, float softcap) {
  const char* op = "attention_steps";
  nn::check_qkv_shapes(op, q, k, v);
  const int64_t H = q.shape[0], Tq = q.shape[1], D = q.shape[2];
  const int64_t Tk = k.shape[1], Dv = v.shape[2];
  TFP_CHECK(head >= 0 && head < H, op, ": head ", head, " is out of range: there are ", H,
            " heads (0..", H - 1, ")");
  TFP_CHECK(query >= 0 && query < Tq, op, ": query ", query, " is out of range: there are ", Tq,
            " query tokens (0..", Tq - 1, ")");
  const bool mask_per_head = mask.rank() == 3;
  if (!mask.empty()) {
    const bool ok = (mask.rank() == 2 && mask.shape[0] == Tq && mask.shape[1] == Tk) ||
                    (mask_per_head && mask.shape[0] == H && mask.shape[1] == Tq &&
                     mask.shape[2] == Tk);
    TFP_CHECK(ok, op, ": mask has shape ", shape_str(mask.shape), ", expected [", Tq, ", ", Tk,
              "] or [", H, ", ", Tq, ", ", Tk, "]");
  }

  AttentionSteps r;
  r.head = head;
  r.query = query;
  r.scale = scale;
  r.softcap = softcap;
  TFP_CHECK(softcap >= 0.0f, op, ": soft-cap must be >= 0 (0 = none), got ", softcap);
  const float* qi = q.data + (head * Tq + query) * D;  // this query's vector
  const float* kh = k.data + head * Tk * D;            // (Tk, D) this head's keys
  const float* vh = v.data + head * Tk * Dv;           // (Tk, Dv) this head's values
  const float* mrow = mask.empty() ? nullptr
                                   : mask.data + ((mask_per_head ? head * Tq : 0) + query) * Tk;

  r.q = Tensor({D}, 0.0f);
  r.q.data.assign(qi, qi + D);
  r.k = Tensor({Tk, D});
  r.k.data.assign(kh, kh + Tk * D);
  r.v = Tensor({Tk, Dv});
  r.v.data.assign(vh, vh + Tk * Dv);
  r.scores = Tensor({Tk});
  r.scaled = Tensor({Tk});
  r.capped = Tensor({Tk});
  r.bias = Tensor({Tk});
  r.masked = Tensor({Tk});
  r.logits = Tensor({Tk});
  r.probs = Tensor({Tk});
  r.weighted_v = Tensor({Tk, Dv});
  r.out = Tensor({Dv});

  // Steps 1-3 per key: dot product, scaling, bias or mask. Double precision, so this
  // is a re-derivation of the engine's float row, not a copy of it.
  std::vector<double> logit(static_cast<size_t>(Tk));
  double max_logit = -std::numeric_limits<double>::infinity();
  for (int64_t j = 0; j < Tk; ++j) {
    double dot = 0.0;
    for (int64_t d = 0; d < D; ++d) dot += static_cast<double>(qi[d]) * kh[j * D + d];
    const double unclipped = dot * scale;
    // Gemma 2's soft-cap squashes the scaled score into (-cap, cap) before any bias.
    const double scaled = softcap > 0.0f ? softcap * std::tanh(unclipped / softcap) : unclipped;
    r.scores.data[j] = static_cast<float>(dot);
    r.scaled.data[j] = static_cast<float>(unclipped);
    r.capped.data[j] = static_cast<float>(scaled);
    const float b = mrow ? mrow[j] : 0.0f;
    // A -inf entry means "forbidden": the key gets weight exactly 0. It is shown as
    // masked, not as a very negative number (which would leave a tiny weight).
    const bool masked = std::isinf(b) && b < 0.0f;
    r.masked.data[j] = masked ? 1.0f : 0.0f;
    r.bias.data[j] = masked ? 0.0f : b;
    logit[j] = masked ? -std::numeric_limits<double>::infinity() : scaled + b;
    r.logits.data[j] = masked ? kNegInf : static_cast<float>(logit[j]);
    if (logit[j] > max_logit) max_logit = logit[j];
  }

  // Step 4: softmax. Subtracting the row max first keeps exp() from overflowing; it
  // changes nothing mathematically (the factor e^-max cancels in the ratio). A row
  // whose every key is masked has no distribution: probabilities 0, output 0 (as the
  // engine does), never NaN.
  if (std::isfinite(max_logit)) {
    double sum = 0.0;
    std::vector<double> e(static_cast<size_t>(Tk), 0.0);
    for (int64_t j = 0; j < Tk; ++j) {
      e[j] = std::isfinite(logit[j]) ? std::exp(logit[j] - max_logit) : 0.0;
      sum += e[j];
    }
    for (int64_t j = 0; j < Tk; ++j) r.probs.data[j] = static_cast<float>(e[j] / sum);

    // Steps 5-6: weight every value vector, then add them up.
    std::vector<double> acc(static_cast<size_t>(Dv), 0.0);
    for (int64_t j = 0; j < Tk; ++j) {
      const double p = e[j] / sum;
      for (int64_t d = 0; d < Dv; ++d) {
        const double w = p * vh[j * Dv + d];
        r.weighted_v.data[j * Dv + d] = static_cast<float>(w);
        acc[d] += w;
      }
    }
    for (int64_t d = 0; d < Dv; ++d) r.out.data[d] = static_cast<float>(acc[d]);
  }
  return r;
}

}  // namespace tfp::inspect
