// AdamW (Loshchilov & Hutter 2019) and global gradient-norm clipping, as PyTorch's
// torch.optim.AdamW and torch.nn.utils.clip_grad_norm_ compute them.
//
// Per parameter, at step t = 1, 2, ... with learning rate lr:
//   p ← p − lr·λ·p                                decoupled weight decay (only p.decay)
//   m ← β1·m + (1 − β1)·g                         running mean of gradients
//   v ← β2·v + (1 − β2)·g²                        running mean of squared gradients
//   p ← p − lr · (m / (1 − β1ᵗ)) / (√(v / (1 − β2ᵗ)) + ε)
// The (1 − βᵗ) factors undo the bias of m and v towards their zero start. "Decoupled"
// means the decay shrinks the weights directly instead of being added to g, where
// Adam's per-coordinate scaling would distort it.
//
// βᵗ is kept as a running product (no pow()), so the arithmetic is the same IEEE
// operations natively and in WASM.
#pragma once
#include <vector>

#include "train/param_store.h"

namespace tfp::train {

struct AdamWConfig {
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weight_decay = 0.01;
};

class AdamW {
 public:
  explicit AdamW(AdamWConfig cfg = {}) : cfg_(cfg) {}
  // One update of every parameter of `store` from its .grad, with learning rate lr.
  // Does not zero the gradients (the caller does, before the next backward).
  void step(ParamStore<float>& store, double lr);
  long steps() const { return t_; }

 private:
  AdamWConfig cfg_;
  long t_ = 0;
  double beta1_pow_ = 1, beta2_pow_ = 1;
  std::vector<std::vector<float>> m_, v_;
};

// Scales every gradient by max_norm / ‖g‖ when the global L2 norm ‖g‖ over all parameters
// exceeds max_norm (max_norm <= 0: no clipping). Returns ‖g‖ before clipping.
template <class T>
double clip_grad_norm(ParamStore<T>& store, double max_norm);

}  // namespace tfp::train
