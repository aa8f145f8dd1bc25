// Head ablation and scaling: switch attention heads off (× 0) or turn them up or down
// (× s) and let the model run on, to see what a head contributes.
//
// What is scaled: head h's output before the output projection,
//   head_out[h] = probs[h] · v[h]          (Tq, D)
//   head_out[h] ← s_h · head_out[h]        then concat → out-projection → residual
// This is Hugging Face's `head_mask` (GPT-2, BERT multiply head h's attention probs by
// head_mask[layer, h] before probs·v — the same product, since (s·P)·V = s·(P·V)). The
// output projection's bias is not scaled: ablating every head of a block leaves exactly
// that bias, as in HF. The attention maps the inspector shows for a scaled head stay its
// softmax (what the head looks at); the maps of later layers change because their
// inputs do.
//
// How: an observer (inspect/observer.h) that wants "<block>.head_out" of every masked
// block and multiplies it in place; edits of head_out flow into the out-projection.
// Any forward pass that takes an observer therefore respects the mask — with no mask,
// nothing is asked for and nothing is copied.
//
// Blocks: "enc.i.attn" (encoder self-attention), "dec.i.attn" (decoder or decoder-only
// self-attention), "dec.i.cross" (cross-attention); head_block_name() builds them.
//
// Legend: H heads, Tq queries, D head size.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "nn/observer.h"

namespace tfp::inspect {

struct HeadMask {
  // block name → (H) factors; a block whose factors are all 1 is not stored.
  std::map<std::string, std::vector<float>, std::less<>> blocks;

  // Sets the factors of one block (replacing what it had). Throws tfp::Error for a
  // non-finite factor or an empty list.
  void set(const std::string& block, std::vector<float> scales);
  void clear() { blocks.clear(); }
  bool empty() const { return blocks.empty(); }
  // The factors of `block`, or null when it is not masked.
  const std::vector<float>* find(std::string_view block) const;
};

// ("enc" | "dec" | "cross", layer) → "enc.3.attn", "dec.3.attn", "dec.3.cross".
// Throws tfp::Error naming the valid sets for anything else.
std::string head_block_name(std::string_view set, int layer);

// Multiplies head h of every masked block's "<block>.head_out" (H, Tq, D) by its factor.
// Owns a copy of the mask. A block whose head count differs from its factor count is a
// tfp::Error naming both.
class HeadMaskObserver final : public nn::Observer {
 public:
  explicit HeadMaskObserver(HeadMask mask) : mask_(std::move(mask)) {}
  bool wants(std::string_view name) const override;
  void observe(std::string_view name, Tensor& t) override;
  const HeadMask& mask() const { return mask_; }

 private:
  HeadMask mask_;
};

// What a caller hands a forward pass: `inner` (may be null) alone when the mask is
// empty, else the mask chained before it — the recorder sees the scaled head_out, as
// it flowed on. Holds the observers; keep it alive for the forward pass.
class WithHeadMask {
 public:
  WithHeadMask(const HeadMask& mask, nn::Observer* inner)
      : masked_(!mask.empty()), mask_(mask), chain_(&mask_, inner), inner_(inner) {}
  WithHeadMask(const WithHeadMask&) = delete;
  WithHeadMask& operator=(const WithHeadMask&) = delete;
  nn::Observer* get() { return masked_ ? static_cast<nn::Observer*>(&chain_) : inner_; }

 private:
  bool masked_;
  HeadMaskObserver mask_;
  nn::ChainObserver chain_;
  nn::Observer* inner_;
};

}  // namespace tfp::inspect
