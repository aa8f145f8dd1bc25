// The inspection hook, declared here beside the layers that call it (inspect/ implements
// what looks through it: head masks, the logit lens, the drill-down). A forward pass that is handed an Observer reports its named
// intermediates to it ("enc.0.attn.probs", "dec.1.cross.probs", "dec.3.out") and lets it
// edit some of them in place (interventions). With no observer the forward pass builds no
// names, copies nothing and computes no attention probabilities it does not need: the
// hook costs one null-pointer test per site.
//
// Names (stable; the web inspector and the tests rely on them). i is the layer index.
//   embed.out            (T, C)     embeddings after positions, token types, emb. norm
//   enc.embed.out        (S, C)     encoder-decoder models: source side embeddings
//   dec.embed.out        (T, C)     encoder-decoder models: target side embeddings
//   enc.i.attn.probs     (H, T, T)  softmax of the self-attention scores, per head
//   enc.i.attn.out       (T, C)     self-attention output (after out-projection, before residual)
//   enc.i.ffn.hidden     (T, F)     feed-forward hidden activations (after the activation)
//   enc.i.ffn.out        (T, C)     feed-forward output (before residual)
//   enc.i.out            (T, C)     layer output (residual stream after the layer)
//   enc.norm.out         (S, C)     encoder final norm (the decoder's "memory")
//   dec.i.attn.probs     (H, T, Tk) masked self-attention (Tk > T when a KV cache is used)
//   dec.i.attn.out, dec.i.ffn.hidden, dec.i.ffn.out, dec.i.out     as for the encoder
//   dec.i.cross.probs    (H, T, S)  cross-attention over the encoder memory
//   dec.i.cross.out      (T, C)     cross-attention output (before residual)
//   dec.norm.out         (T, C)     decoder final norm (GPT-2 ln_f)
//   logits               (T, V)     LM head / classifier output
// The query–key drill-down's inputs (inspect/attention_steps.h), only computed and
// copied when asked for; <b> is enc.i.attn, dec.i.attn or dec.i.cross:
//   <b>.q                (H, Tq, D) queries after projection (and rotation, e.g. RoPE)
//   <b>.k, <b>.v         (H, Tk, D) keys (after rotation) and values; with a KV cache
//                                   every cached position, Tk = positions so far
//   <b>.mask             (Tq, Tk)   what the block added to its scaled scores: the
//                                   additive mask (0 without one), -inf where causal /
//                                   window / padding forbid; (H, Tq, Tk) if per head
//   <b>.head_out         (H, Tq, D) probs·v per head, before the output projection
// Activation patching's edit points (TransformerLens's hook names), only when asked for:
//   <b>.hook_q           (H, Tq, D)   queries after projection, norm and rotation
//   <b>.hook_k, .hook_v  (Hkv, Tk, D) this call's keys (after norm and rotation) and values,
//                                     one per key/value head (before any KV cache)
//   <b>.hook_pattern     (H, Tq, Tk)  the softmax, before it multiplies v
// Self-attention is "attn" in every layer (encoder, decoder, decoder-only); cross-attention
// is "cross". Decoder-only models (GPT-2) name their layers "dec.i".
//
// Editing: an observer may change the tensor it is given. Edits of "*.out" and
// "embed.out" flow into the rest of the forward pass (activation patching, ablation of a
// layer); so do edits of "<b>.hook_q/k/v/pattern" and of "<b>.head_out": it is reported from inside attention, before
// the output projection, and the projection uses the edited values — scaling head h's
// slice by s is head ablation (s = 0) or scaling, Hugging Face's head_mask (which
// multiplies that head's attention probs, the same thing since head_out = probs·v); see
// inspect/head_mask.h. Attention probabilities are reported after they were used —
// edits there are ignored, and they stay the softmax even for a scaled head.
// Order within a block: <b>.hook_q, .hook_k, .hook_v, .hook_pattern, <b>.head_out (from
// inside attention), then
// <b>.probs, .q, .k, .v, .mask, then <b minus .attn/.cross>.attn.out / .cross.out.
#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/tensor.h"

namespace tfp::nn {

class Observer {
 public:
  virtual ~Observer() = default;
  // Asked before the forward pass computes or copies anything for `name`.
  virtual bool wants(std::string_view name) const = 0;
  // Called only when wants(name) was true. `t` may be edited (see above).
  virtual void observe(std::string_view name, Tensor& t) = 0;
};

// What the forward pass carries down: the observer (or null) and the name prefix of the
// current scope ("enc.0"). Sub-scopes are only built when an observer is present.
struct Scope {
  Observer* observer = nullptr;
  std::string prefix;

  Scope() = default;
  explicit Scope(Observer* obs, std::string p = {}) : observer(obs), prefix(std::move(p)) {}

  bool active() const { return observer != nullptr; }
  // "enc" → "enc.attn"; an empty Scope stays empty (no allocation).
  Scope sub(std::string_view part) const;
  // ("enc", 3) → "enc.3"
  Scope sub(std::string_view part, int index) const;
  std::string name(std::string_view leaf) const;
  // observer && observer->wants(prefix + "." + leaf)
  bool wants(std::string_view leaf) const;
  // Reports t under prefix.leaf when wanted.
  void emit(std::string_view leaf, Tensor& t) const;
};

// Keeps a copy of every reported tensor whose name matches one of the patterns, in the
// order the forward pass produced them. Pattern syntax: '*' matches any run of
// characters (dots included); a pattern without '*' matches that exact name and every
// name below it ("enc.0" matches "enc.0.attn.probs"). No patterns = nothing recorded;
// "*" = everything.
class RecordingObserver : public Observer {
 public:
  RecordingObserver() = default;
  explicit RecordingObserver(std::vector<std::string> patterns);

  bool wants(std::string_view name) const override;
  void observe(std::string_view name, Tensor& t) override;

  bool has(std::string_view name) const;
  const Tensor& get(std::string_view name) const;  // throws tfp::Error naming what exists
  const std::vector<std::pair<std::string, Tensor>>& records() const { return records_; }
  void clear() { records_.clear(); }

 private:
  std::vector<std::string> patterns_;
  std::vector<std::pair<std::string, Tensor>> records_;
};

// Two observers as one: `first` sees (and may edit) each tensor before `second` does.
// Either may be null.
class ChainObserver final : public Observer {
 public:
  ChainObserver(Observer* first, Observer* second) : first_(first), second_(second) {}
  bool wants(std::string_view name) const override;
  void observe(std::string_view name, Tensor& t) override;

 private:
  Observer* first_;
  Observer* second_;
};

// '*'-glob match used by RecordingObserver (exposed for tests and the C API).
bool glob_match(std::string_view pattern, std::string_view name);

}  // namespace tfp::nn
