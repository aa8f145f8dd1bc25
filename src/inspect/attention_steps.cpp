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

Tensor attention_mask_matrix(const nn::AttentionMask& mask, int H, int Tq, int Tk,
                             const nn::AttentionHooks& hooks) {
  const char* op = "attention_mask_matrix";
  nn::validate_attention_mask(op, mask, H, Tq, Tk);
  const bool per_head = (!mask.additive.empty() && mask.additive.rank() == 3) ||
                        static_cast<bool>(hooks.score_bias);
  const int Hm = per_head ? H : 1;
  Tensor m(per_head ? Shape{H, Tq, Tk} : Shape{Tq, Tk});  // zeros: nothing added yet
  for (int h = 0; h < Hm; ++h) {
    float* s = m.ptr() + static_cast<int64_t>(h) * Tq * Tk;  // (Tq, Tk)
    // The same order as attention itself: positional bias, additive mask, then -inf
    // where forbidden (apply_attention_mask does the last two exactly as attend() does).
    if (hooks.score_bias) {
      const int64_t q_pos0 = hooks.kv_pos0 + (Tk - Tq);
      hooks.score_bias(h, s, Tq, Tk, Tk, q_pos0, hooks.kv_pos0);
    }
    nn::apply_attention_mask(s, Tk, h, Tq, Tk, mask);
  }
  return m;
}

bool wants_heads(const Scope& scope, std::string_view block) {
  if (!scope.active()) return false;
  const std::string b(block);
  for (const char* leaf : {".q", ".k", ".v", ".mask"})
    if (scope.wants(b + leaf)) return true;
  return false;
}

nn::AttentionHooks head_out_hooks(const Scope& scope, std::string_view block) {
  nn::AttentionHooks hooks;
  if (!scope.active()) return hooks;
  std::string leaf = std::string(block) + ".head_out";
  if (!scope.wants(leaf)) return hooks;
  // Reported (and possibly edited) inside attention, before the output projection.
  hooks.edit_heads = [scope, leaf = std::move(leaf)](Tensor& head_out) { scope.emit(leaf, head_out); };
  return hooks;
}

void emit_heads(const Scope& scope, std::string_view block, nn::AttentionResult& a,
                const nn::AttentionMask& mask, int H) {
  if (!scope.active()) return;
  const std::string b(block);
  if (!a.q.empty()) scope.emit(b + ".q", a.q);                 // (H, Tq, D)
  if (!a.k.empty()) scope.emit(b + ".k", a.k);                 // (H, Tk, D)
  if (!a.v.empty()) scope.emit(b + ".v", a.v);                 // (H, Tk, D)
  if (!a.q.empty() && !a.k.empty() && scope.wants(b + ".mask")) {
    Tensor m = attention_mask_matrix(mask, H, static_cast<int>(a.q.dim(1)),
                                     static_cast<int>(a.k.dim(1)));
    scope.emit(b + ".mask", m);  // (Tq, Tk) or (H, Tq, Tk)
  }
}

AttentionSteps attention_steps(const TensorView& q,  // (H, Tq, D)
                               const TensorView& k,  // (H, Tk, D)
                               const TensorView& v,  // (H, Tk, Dv)
                               const TensorView& mask, int head, int query, float scale) {
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
    const double scaled = dot * scale;
    r.scores.data[j] = static_cast<float>(dot);
    r.scaled.data[j] = static_cast<float>(scaled);
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
