// M = 1 (one token: a decode step, a T = 1 forward): kernels::matmul at GPT-2-small's weight
// shapes, in the two layouts checkpoints store (Conv1D (in, out) = KN, nn.Linear (out, in)
// = NK), and matmul_packed on the same weights packed once. A decode step reads every
// weight once, from memory rather than cache: each shape is measured over enough copies of
// its weights (>= 256 MB, as GPT-2-small's 12 layers) that they come from DRAM, and the
// figure that matters is the weight bytes streamed per second.
//   build/native/gemv [--rounds N]          node build/wasm/gemv.js [--rounds N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/kernels.h"

using namespace tfp::kernels;

namespace {

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Shape {
  const char* name;
  int K, N;
};

}  // namespace

int main(int argc, char** argv) {
  int rounds = 7;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--rounds") == 0) rounds = std::atoi(argv[i + 1]);
  const Shape shapes[] = {{"c_attn 768x2304", 768, 2304}, {"c_proj 768x768", 768, 768},
                          {"c_fc 768x3072", 768, 3072},   {"mlp.c_proj 3072x768", 3072, 768},
                          {"lm_head 768x50257", 768, 50257}};
  std::mt19937 rng(1);
  std::normal_distribution<float> nd(0.0f, 0.02f);
  std::printf("%-22s %-6s %9s %9s %9s\n", "shape (K x N)", "path", "ms", "GB/s", "GFLOP/s");
  for (const Shape& s : shapes) {
    const size_t one = static_cast<size_t>(s.K) * s.N;
    const int copies = static_cast<int>(std::max<size_t>(1, (size_t{64} << 20) / one));
    std::vector<float> w(one * copies), x(s.K), y(s.N), bias(s.N);
    for (float& v : w) v = nd(rng);
    for (float& v : x) v = nd(rng);
    for (float& v : bias) v = nd(rng);
    std::vector<PackedB> packed;
    for (int c = 0; c < copies; ++c) packed.push_back(pack_b(w.data() + c * one, s.N, s.N, s.K, BLayout::KN));
    for (const char* path : {"KN", "NK", "packed"}) {
      MatmulArgs a;
      a.M = 1, a.N = s.N, a.K = s.K, a.A = x.data(), a.lda = s.K, a.C = y.data(), a.ldc = s.N, a.bias = bias.data();
      a.layout = std::strcmp(path, "NK") == 0 ? BLayout::NK : BLayout::KN;
      a.ldb = a.layout == BLayout::NK ? s.K : s.N;
      std::vector<double> t;
      for (int r = 0; r < rounds + 1; ++r) {
        const double t0 = now_ms();
        for (int c = 0; c < copies; ++c) {
          a.B = w.data() + c * one;
          if (std::strcmp(path, "packed") == 0) matmul_packed(a, packed[c]);
          else matmul(a);
        }
        if (r >= 1) t.push_back((now_ms() - t0) / copies);
      }
      std::sort(t.begin(), t.end());
      const double ms = t[t.size() / 2];
      const double bytes = 4.0 * one, flops = 2.0 * one;
      std::printf("%-22s %-6s %9.3f %9.2f %9.2f\n", s.name, path, ms, bytes / ms / 1e6, flops / ms / 1e6);
    }
  }
  return 0;
}
