// Attention's reports to an observer (see attention_report.h).
//
// Legend: H heads, Tq queries, Tk keys, D head size.
#include "nn/attention_report.h"

#include <limits>
#include <string>

namespace tfp::nn {

Tensor attention_mask_matrix(const AttentionMask& mask, int H, int Tq, int Tk,
                             const AttentionHooks& hooks) {
  const char* op = "attention_mask_matrix";
  validate_attention_mask(op, mask, H, Tq, Tk);
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
    apply_attention_mask(s, Tk, h, Tq, Tk, mask);
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

AttentionHooks edit_hooks(const Scope& scope, std::string_view block) {
  AttentionHooks hooks;
  if (!scope.active()) return hooks;
  // Reported (and possibly edited) inside attention; the edits flow on.
  const auto hook = [&](const char* leaf, AttentionHooks::EditHeadsFn& fn) {
    std::string name = std::string(block) + leaf;
    if (scope.wants(name)) fn = [scope, name = std::move(name)](Tensor& t) { scope.emit(name, t); };
  };
  hook(".head_out", hooks.edit_heads);
  hook(".hook_q", hooks.edit_q);
  hook(".hook_k", hooks.edit_k);
  hook(".hook_v", hooks.edit_v);
  hook(".hook_pattern", hooks.edit_pattern);
  return hooks;
}

void emit_heads(const Scope& scope, std::string_view block, AttentionResult& a,
                const AttentionMask& mask, int H, const AttentionHooks& hooks) {
  if (!scope.active()) return;
  const std::string b(block);
  if (!a.q.empty()) scope.emit(b + ".q", a.q);                 // (H, Tq, D)
  if (!a.k.empty()) scope.emit(b + ".k", a.k);                 // (H, Tk, D)
  if (!a.v.empty()) scope.emit(b + ".v", a.v);                 // (H, Tk, D)
  if (!a.q.empty() && !a.k.empty() && scope.wants(b + ".mask")) {
    Tensor m = attention_mask_matrix(mask, H, static_cast<int>(a.q.dim(1)),
                                     static_cast<int>(a.k.dim(1)), hooks);
    scope.emit(b + ".mask", m);  // (Tq, Tk) or (H, Tq, Tk)
  }
}

}  // namespace tfp::nn
