// One decode step's matrix-vector products (M = 1) of a GPT-2-small-shaped model, with the
// weights in f32, int8 (per-output-channel scales: kernels::matmul_int8) and f16
// (MatmulArgs::B16), in the (out, in) layout a model holds them in.
//   build/native/gemv_precision      node build/wasm/gemv_precision.js
// Prints the best of 8 runs per shape and the sum over one token (12 layers + LM head), from a
// second pass over the shapes (the first warms V8's optimising tier up).
// Each precision's matrix exists only while it is timed (the WASM bench heap is 256 MiB).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <vector>

#include "kernels/kernels.h"

using namespace tfp::kernels;

namespace {

template <class F>
double best_ms(F&& f) {
  double best = 1e30;
  for (int r = 0; r < 8; ++r) {
    const auto t = std::chrono::steady_clock::now();
    f();
    best = std::min(best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count());
  }
  return best;
}

}  // namespace

int main() {
  struct Shape { const char* what; int N, K, per_token; BLayout layout; };
  // (out, in) = NK throughout: a model holds GPT-2's Conv1D (in, out) matrices transposed,
  // f32 and 16-bit alike (model/weight_layout.h).
  const Shape shapes[] = {{"attn.c_attn", 2304, 768, 12, BLayout::NK}, {"attn.c_proj", 768, 768, 12, BLayout::NK},
                          {"mlp.c_fc", 3072, 768, 12, BLayout::NK},    {"mlp.c_proj", 768, 3072, 12, BLayout::NK},
                          {"lm_head (tied)", 50257, 768, 1, BLayout::NK}};
  std::printf("simd: %s\n%-16s %6s %5s  %9s %9s %9s\n", simd_arch_name(), "matrix", "N", "K", "f32 ms", "int8 ms", "f16 ms");
  double tot[3] = {0, 0, 0};
  std::mt19937 rng(1);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  for (int pass = 0; pass < 2; ++pass)
  for (const Shape& s : shapes) {
    const size_t n = static_cast<size_t>(s.N) * s.K;
    std::vector<float> x(static_cast<size_t>(s.K)), y(static_cast<size_t>(s.N));
    for (float& v : x) v = nd(rng);
    double t[3];
    {
      std::vector<float> w(n);
      for (float& v : w) v = 0.02f * nd(rng);
      t[0] = best_ms([&] { matmul(dense(1, s.N, s.K, x.data(), w.data(), y.data(), s.layout)); });
    }
    {  // int8 is always (N, K): the load transposes Conv1D weights once
      std::vector<int8_t> q(n);
      std::vector<float> scale(static_cast<size_t>(s.N), 0.02f / 127);
      for (int8_t& v : q) v = static_cast<int8_t>(static_cast<int>(rng() % 255) - 127);
      MatmulArgs a = dense(1, s.N, s.K, x.data(), nullptr, y.data(), BLayout::NK);
      a.B8 = q.data();
      a.B8_scale = scale.data();
      a.ldb = s.K;
      t[1] = best_ms([&] { matmul_int8(a); });
    }
    {
      std::vector<uint16_t> h(n);
      for (uint16_t& v : h) v = f32_to_f16_one(0.02f * nd(rng));
      MatmulArgs a = dense(1, s.N, s.K, x.data(), nullptr, y.data(), s.layout);
      a.B16 = h.data();
      a.ldb = s.layout == BLayout::KN ? s.N : s.K;
      a.B16_finite = true;  // as a model's are: checked for infinity/NaN at load
      t[2] = best_ms([&] { if (!matmul_b16_decode(a)) matmul(a); });  // as nn::linear calls them
    }
    if (pass == 0) continue;
    std::printf("%-16s %6d %5d  %9.3f %9.3f %9.3f\n", s.what, s.N, s.K, t[0], t[1], t[2]);
    for (int p = 0; p < 3; ++p) tot[p] += t[p] * s.per_token;
  }
  std::printf("one token (12 layers + head): f32 %.1f ms, int8 %.1f ms (%.2fx), f16 %.1f ms (%.2fx)\n", tot[0], tot[1],
              tot[1] / tot[0], tot[2], tot[2] / tot[0]);
  return 0;
}
