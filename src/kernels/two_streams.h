// The order in which a decode GEMV reads B's rows from memory.
#pragma once

#include <algorithm>

namespace tfp::kernels {

// Calls f(j0, j1) for the blocks [j0, j1) of `block` rows that cover [n0, n1), taking them
// alternately from the first and the second half: two sequential streams far apart. On one
// core they keep more DRAM reads in flight than one stream does (WASM on AMD EPYC: a
// 50,257 x 768 f32 GEMV read 26.6 GB/s with one stream, 31-32 with two; GPT-2-small's decode
// step was 12 % faster; four streams were 18 % slower: bench/RESULTS.md). Only the order
// changes: each block is computed as before.
template <class F>
inline void two_streams(int n0, int n1, int block, F&& f) {
  const int blocks = (n1 - n0 + block - 1) / block;
  const int first = (blocks + 1) / 2;
  for (int b = 0; b < first; ++b) {
    const int j0 = n0 + b * block;
    f(j0, std::min(j0 + block, n1));
    if (b + first < blocks) {
      const int k0 = n0 + (b + first) * block;
      f(k0, std::min(k0 + block, n1));
    }
  }
}

}  // namespace tfp::kernels
