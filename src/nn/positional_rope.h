// Rotary position embedding, RoPE (Su et al. 2021, "RoFormer"): instead of adding a
// position code to the embeddings, rotate each head's queries and keys by an angle
// proportional to their position. Channel pair p turns by pos·θ_p with
//   θ_p = base^(-2p / R),   p = 0 .. R/2 - 1,   R = rotary_dim (even, <= D)
//   (x, y) → (x·cos − y·sin,  x·sin + y·cos)
// A rotation by m·θ on q and n·θ on k leaves q·k depending only on m − n: the score
// sees relative position although each vector was rotated by its absolute position.
//
// Two conventions pair the channels differently (same maths, different weights):
//   Interleaved (GPT-J, original RoFormer): pairs (0,1), (2,3), ..., (R-2, R-1)
//   HalfSplit   (GPT-NeoX, LLaMA, HF "rotate_half"): pairs (p, p + R/2)
// Channels R .. D-1 (partial rotary, GPT-J rotary_dim / NeoX rotary_pct) pass unchanged.
//
// Legend: T tokens, H heads, D head size, R rotated channels.
#pragma once
#include "core/tensor.h"
#include "nn/attention.h"

namespace tfp::nn {

enum class RopePairing { Interleaved, HalfSplit };

struct RopeConfig {
  RopePairing pairing = RopePairing::HalfSplit;
  int rotary_dim = 0;     // R; 0 = the whole head (R = D)
  double base = 10000.0;  // θ base (LLaMA 2: 10000; some models 500000)
};

// Rotates rows of a (T, D) block in place; row r has position pos0 + r; row stride ld >= D.
void apply_rope(float* x, int T, int D, int64_t ld, int64_t pos0, const RopeConfig& cfg);

// Rotated copy of x: (T, D) or (H, T, D) (every head at the same positions pos0 ..).
Tensor rope(const TensorView& x, int64_t pos0, const RopeConfig& cfg);

// The hook for multi_head_attention / scaled_dot_product_attention (AttentionHooks::rotate);
// positions come from the hook's pos0 (AttentionHooks::kv_pos0 for a KV cache).
AttentionHooks::RotateFn rope_rotation(const RopeConfig& cfg);

}  // namespace tfp::nn
