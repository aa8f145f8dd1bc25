// What attention reports to an observer (nn/observer.h), beside the attention it reports
// on: the mask matrix a block added to its scores, and the per-head q, k, v, mask and
// head_out of the query–key drill-down (inspect/attention_steps.h replays one row of
// them), of head ablation (inspect/head_mask.h edits head_out) and of activation patching. Nothing is built or
// copied unless an observer asks for it.
//
// Legend: H heads, Tq queries, Tk keys, D head size.
#pragma once
#include <string_view>

#include "core/tensor.h"
#include "nn/attention.h"
#include "nn/observer.h"

namespace tfp::nn {

// The mask and biases a block adds to its scaled scores, as one matrix: the additive
// mask's value (0 without one) plus any positional score bias (ALiBi, relative), and
// -inf wherever causal / window / key_padding (or a -inf additive entry) forbid the key.
// (Tq, Tk), or (H, Tq, Tk) when the additive mask is per head or hooks.score_bias is set.
Tensor attention_mask_matrix(const AttentionMask& mask, int H, int Tq, int Tk,
                             const AttentionHooks& hooks = {});

// Whether the observer wants any of "<block>.q/k/v/mask" (block = "attn" or "cross"
// under the layer's scope). False, and allocation-free, without an observer.
bool wants_heads(const Scope& scope, std::string_view block);

// Hooks that report, from inside attention, what an observer may edit so that the edit
// flows on: "<block>.head_out" (H, Tq, D) before the output projection (head ablation,
// inspect/head_mask.h), and for activation patching "<block>.hook_q" (H, Tq, D, after
// q's norm and rotation), "<block>.hook_k" and "<block>.hook_v" (Hkv, Tk, D, k after its
// norm and rotation) and "<block>.hook_pattern" (H, Tq, Tk, the softmax before probs·v).
// Each only when the observer wants it; none without an observer.
AttentionHooks edit_hooks(const Scope& scope, std::string_view block);

// Reports a.q, a.k, a.v (filled by attention(..., need_heads)) and the block's mask
// matrix (with the hooks' positional score bias, if any) under "<block>.*", each only
// when wanted (head_out: see above).
void emit_heads(const Scope& scope, std::string_view block, AttentionResult& a,
                const AttentionMask& mask, int H, const AttentionHooks& hooks = {});

}  // namespace tfp::nn
