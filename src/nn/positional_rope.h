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
#include <vector>

#include "core/tensor.h"
#include "nn/attention.h"

namespace tfp::nn {

enum class RopePairing { Interleaved, HalfSplit };

// Frequency scaling for contexts longer than training (HF config "rope_scaling"):
//   Linear (position interpolation): θ_p / factor for every pair
//   Llama3: pairs whose wavelength 2π/θ_p exceeds original_max_positions / low_freq_factor
//     turn factor times slower, those below original_max_positions / high_freq_factor keep
//     θ_p, the band between blends the two (Meta's Llama 3.1 recipe).
enum class RopeScaling { None, Linear, Llama3 };

struct RopeConfig {
  RopePairing pairing = RopePairing::HalfSplit;
  int rotary_dim = 0;     // R; 0 = the whole head (R = D)
  double base = 10000.0;  // θ base (LLaMA 2: 10000; some models 500000)
  RopeScaling scaling = RopeScaling::None;
  double factor = 1.0;                // Linear, Llama3
  double low_freq_factor = 1.0;       // Llama3
  double high_freq_factor = 4.0;      // Llama3
  int64_t original_max_positions = 0; // Llama3: the context length trained on
};

// θ_p for p = 0 .. R/2 - 1, scaling applied. Throws on a bad configuration.
std::vector<double> rope_inv_freq(const RopeConfig& cfg, int R);

// Rotates rows of a (T, D) block in place; row r has position pos0 + r; row stride ld >= D.
void apply_rope(float* x, int T, int D, int64_t ld, int64_t pos0, const RopeConfig& cfg);

// Rotated copy of x: (T, D) or (H, T, D) (every head at the same positions pos0 ..).
Tensor rope(const TensorView& x, int64_t pos0, const RopeConfig& cfg);

// The hook for multi_head_attention / scaled_dot_product_attention (AttentionHooks::rotate);
// positions come from the hook's pos0 (AttentionHooks::kv_pos0 for a KV cache).
AttentionHooks::RotateFn rope_rotation(const RopeConfig& cfg);

}  // namespace tfp::nn
