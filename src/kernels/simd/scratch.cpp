// Per-thread scratch buffers for the SIMD kernels (packing panels, partial sums).
// The only mutable state of the kernels; thread_local so calls on different
// threads never share a buffer.
#include <vector>

#include "kernels/simd/simd.h"

namespace tfp::kernels::simd {

namespace {
constexpr int kSlots = 4;
using AlignedVec = std::vector<float, xsimd::aligned_allocator<float, 64>>;
thread_local AlignedVec t_scratch[kSlots];
}  // namespace

float* scratch(int slot, size_t n) {
  AlignedVec& v = t_scratch[slot];
  if (v.size() < n) {
    v.clear();
    v.shrink_to_fit();
    v.resize(n);
  }
  return v.data();
}

}  // namespace tfp::kernels::simd
