// The order in which a decode GEMV reads B's rows from memory.
#pragma once

namespace tfp::kernels {

// Calls f(j) for every row j in [0, n), alternately from the first and the second half:
// two sequential streams far apart. On one core they keep more DRAM reads in flight than one
// stream does (WASM on AMD EPYC: a 50,257 x 768 f32 GEMV read 26.6 GB/s with one stream,
// 31-32 with two; GPT-2-small's decode step was 12 % faster; four streams were 18 % slower:
// bench/RESULTS.md). Only the order changes: each row is computed as before.
template <class F>
inline void two_streams(int n, F&& f) {
  const int first = (n + 1) / 2;
  for (int j = 0; j < first; ++j) {
    f(j);
    if (j + first < n) f(j + first);
  }
}

}  // namespace tfp::kernels
