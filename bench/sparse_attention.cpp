// Sparse attention against full attention at T = 1024 (issue 12): does the sparse path
// skip the work its pattern masks? Times, on the same seeded per-head q, k, v:
//   full     scaled_dot_product_attention, every (query, key) pair
//   masked   the same with the pattern as a dense -inf mask (computes, then discards)
//   sparse   sparse_attention, only the allowed pairs
//   linear   linear_attention (φ(x) = elu(x) + 1, O(T))
// through tfp_learn_efficiency_timing (the call the Learn chapter makes; best of 7
// rounds, each ≥ 2 ms). Usage: sparse_attention [T=1024] [d=128] [heads=4]
#include <cstdio>
#include <cstdlib>

#include "api/tfp_learn_efficiency_api.h"

int main(int argc, char** argv) {
  const int T = argc > 1 ? std::atoi(argv[1]) : 1024;
  const int d = argc > 2 ? std::atoi(argv[2]) : 128;
  const int heads = argc > 3 ? std::atoi(argv[3]) : 4;
  struct Case {
    const char* name;
    int kind, window, dilation, n_global;
  } cases[] = {{"window w=64", 0, 64, 1, 0},       {"window w=16", 0, 16, 1, 0},
               {"dilated w=16 d=4", 1, 16, 4, 0},  {"global w=64 g=4", 2, 64, 1, 4},
               {"window w=256", 0, 256, 1, 0}};
  std::printf("T = %d, d_model = %d, heads = %d (D = %d); milliseconds, best of 7\n", T, d, heads, d / heads);
  std::printf("| pattern | pairs/head | full | masked | sparse | full/sparse | linear | max|sparse-masked| |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const Case& c : cases) {
    double row[TFP_EFF_COLUMNS];
    tfp_learn_efficiency_params p;
    tfp_learn_efficiency_params_init(&p);  // best of 7 rounds, seed 1
    p.d = d;
    p.heads = heads;
    p.lengths = &T;
    p.n_lengths = 1;
    p.kind = c.kind;
    p.window = c.window;
    p.dilation = c.dilation;
    p.n_global = c.n_global;
    if (tfp_learn_efficiency_timing(&p, row) != TFP_OK) {
      std::fprintf(stderr, "%s\n", tfp_last_error());
      return 1;
    }
    std::printf("| %s | %.0f | %.2f | %.2f | %.2f | %.1fx | %.2f | %.1e |\n", c.name, row[TFP_EFF_SPARSE_PAIRS],
                row[TFP_EFF_FULL_MS], row[TFP_EFF_MASKED_MS], row[TFP_EFF_SPARSE_MS],
                row[TFP_EFF_FULL_MS] / row[TFP_EFF_SPARSE_MS], row[TFP_EFF_LINEAR_MS], row[TFP_EFF_SPARSE_DIFF]);
  }
  return 0;
}
