// GEMM benchmark: GFLOP/s of kernels::matmul at GPT-2-small shapes, as a fraction of
// a SIMD peak measured in the same run. Built natively and as WASM by CMake:
//   build/<dir>/bench_gemm            node build/<dir>-wasm/bench_gemm.js
// Columns: matmul (packs B on every call) best and median GFLOP/s, best as % of peak;
// matmul_packed (B packed once by pack_b, as weights are) best GFLOP/s and % of peak.
// Options: --quick (shorter), --seconds S (time per measurement), --ref (also time
// ref::matmul at one shape).
//
// Peak: the better of two register-resident loops over xsimd::fma (natively vfmadd;
// in WASM SIMD128 xsimd's fma is mul + add, the two instructions the GEMM microkernel
// issues per lane, so the ratio compares like with like):
//   12 dependent chains acc = acc·m + c   (covers FMA latency 4 × 2/cycle natively)
//    6 chains acc += x_i·y_t, y_t from L1 (products independent of acc, as in GEMM;
//                                          the faster form under V8)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include <xsimd/xsimd.hpp>

#include "kernels/kernels.h"

using namespace tfp::kernels;
using Clock = std::chrono::steady_clock;

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
// Node only (the bench is linked with ENVIRONMENT=node): user + system CPU time of the
// process in seconds. Single-threaded module; V8's helper threads are idle after warm-up.
EM_JS(double, process_cpu_seconds, (), {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
});
#else
#include <ctime>
double process_cpu_seconds() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}
#endif

namespace {

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Timing uses the CPU time of this thread (native) or process (WASM under Node), not wall
// time: on a shared machine a call longer than a scheduler slice (~3 ms) is almost always
// preempted, and wall time would measure the other tenants. Wall time bounds the loops.
struct CpuTimer {
  double t0 = process_cpu_seconds();
  double seconds() const { return process_cpu_seconds() - t0; }
};

// ---- peak ----------------------------------------------------------------------------
constexpr int kChains = 12;

template <class A>
__attribute__((noinline)) float peak_loop(long iters, float m, float c) {
  using B = xsimd::batch<float, A>;
  B acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = B(static_cast<float>(i) * 0.01f);
  const B vm(m), vc(c);
  for (long it = 0; it < iters; ++it)
    for (int i = 0; i < kChains; ++i) acc[i] = xsimd::fma(acc[i], vm, vc);
  B s(0.0f);
  for (int i = 0; i < kChains; ++i) s += acc[i];
  return xsimd::hadd(s);
}

// Second form, shaped like the GEMM inner loop: the products are independent of the
// accumulators (acc_i += x_i·y_t), y_t loaded from a 16-entry L1 table so the compiler
// cannot hoist x_i·y out of the loop. Only the adds chain: 6 chains cover it.
constexpr int kProd = 6;

template <class A>
__attribute__((noinline)) float peak_loop_indep(long iters, const float* table) {
  using B = xsimd::batch<float, A>;
  constexpr int W = B::size;
  B acc[kProd], x[kProd];
  for (int i = 0; i < kProd; ++i) {
    acc[i] = B(0.0f);
    x[i] = B(1e-3f * static_cast<float>(i + 1));
  }
  for (long it = 0; it < iters; ++it) {
    const B y = B::load_unaligned(table + (it & 15) * W);
    for (int i = 0; i < kProd; ++i) acc[i] = xsimd::fma(x[i], y, acc[i]);
  }
  B s(0.0f);
  for (int i = 0; i < kProd; ++i) s += acc[i];
  return xsimd::hadd(s);
}

// Best over many rounds of >= 5 ms CPU time (long enough for the microsecond CPU clock).
template <class Loop>
double best_rate(Loop loop, double flops_per_iter, double min_seconds) {
  volatile float sink = 0;
  long iters = 1 << 10;
  for (int i = 0; i < 3; ++i) sink = sink + loop(iters);  // warm-up
  for (;;) {  // calibrate: one round of at least 5 ms
    const CpuTimer t;
    sink = sink + loop(iters);
    if (t.seconds() >= 0.005) break;
    iters *= 2;
  }
  double best = 0;
  const auto start = Clock::now();
  while (seconds_since(start) < min_seconds / 2) {
    const CpuTimer t;
    sink = sink + loop(iters);
    best = std::max(best, flops_per_iter * static_cast<double>(iters) / t.seconds() * 1e-9);
  }
  return best;
}

// Peak = the better of the two loop forms.
double measure_peak(double min_seconds) {
  using A = xsimd::default_arch;
  constexpr int W = xsimd::batch<float, A>::size;
  volatile float vm = 0.999f, vc = 0.001f;  // volatile: the compiler must not fold the chains
  std::vector<float> table(16 * W);
  for (size_t i = 0; i < table.size(); ++i) table[i] = 1.0f + 1e-4f * static_cast<float>(i);
  const double chained = best_rate([&](long n) { return peak_loop<A>(n, vm, vc); },
                                   2.0 * W * kChains, min_seconds);
  const double indep = best_rate([&](long n) { return peak_loop_indep<A>(n, table.data()); },
                                 2.0 * W * kProd, min_seconds);
  std::printf("peak loops: %d dependent fma chains %.1f, %d independent products %.1f GFLOP/s\n",
              kChains, chained, kProd, indep);
  return std::max(chained, indep);
}

// ---- GEMM ----------------------------------------------------------------------------
struct Timing {
  double best_gflops, median_gflops;
  int reps;
};

template <class F>
Timing time_calls(F&& call, double flops, double min_seconds, int warmup) {
  for (int i = 0; i < warmup; ++i) call();  // V8 starts in its baseline tier: warm up
  std::vector<double> t;
  const auto start = Clock::now();
  while (t.size() < 5 || seconds_since(start) < min_seconds) {
    const CpuTimer ct;
    call();
    t.push_back(ct.seconds());
  }
  std::sort(t.begin(), t.end());
  return {flops / t.front() * 1e-9, flops / t[t.size() / 2] * 1e-9, static_cast<int>(t.size())};
}

struct Shape {
  int M, K, N;
};

}  // namespace

int main(int argc, char** argv) {
  bool quick = false, with_ref = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) quick = true;
    if (!std::strcmp(argv[i], "--ref")) with_ref = true;
  }
  double min_s = quick ? 0.2 : 1.0;
  for (int i = 1; i + 1 < argc; ++i)
    if (!std::strcmp(argv[i], "--seconds")) min_s = std::atof(argv[i + 1]);

  std::printf("simd: %s\n", simd_arch_name());
  const double peak = measure_peak(min_s);
  std::printf("peak: %.1f GFLOP/s\n\n", peak);

  const Shape shapes[] = {{1, 768, 768}, {1, 768, 3072}, {128, 768, 768}, {128, 768, 3072}};
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);

  std::printf("%-22s %-3s %10s %8s %7s %5s | %14s %7s\n", "shape [M,K]x[K,N]", "B",
              "best GF/s", "median", "%peak", "reps", "prepacked GF/s", "%peak");
  for (const Shape& s : shapes) {
    std::vector<float> A(static_cast<size_t>(s.M) * s.K), B(static_cast<size_t>(s.K) * s.N),
        C(static_cast<size_t>(s.M) * s.N), bias(s.N);
    for (auto& v : A) v = u(rng);
    for (auto& v : B) v = u(rng);
    for (auto& v : bias) v = u(rng);
    const double flops = 2.0 * s.M * s.N * s.K;
    for (BLayout layout : {BLayout::KN, BLayout::NK}) {
      const MatmulArgs args = dense(s.M, s.N, s.K, A.data(), B.data(), C.data(), layout);
      const Timing t = time_calls([&] { matmul(args); }, flops, min_s, 3);
      const PackedB pb = pack_b(B.data(), args.ldb, s.N, s.K, layout);  // weights, packed once
      const Timing tp = time_calls([&] { matmul_packed(args, pb); }, flops, min_s, 3);
      char name[64];
      std::snprintf(name, sizeof name, "[%d,%d]x[%d,%d]", s.M, s.K, s.K, s.N);
      std::printf("%-22s %-3s %10.2f %8.2f %6.1f%% %5d | %14.2f %6.1f%%\n", name,
                  layout == BLayout::KN ? "KN" : "NK", t.best_gflops, t.median_gflops,
                  100.0 * t.best_gflops / peak, t.reps, tp.best_gflops,
                  100.0 * tp.best_gflops / peak);
    }
  }
  if (with_ref) {
    const Shape s{128, 768, 768};
    std::vector<float> A(static_cast<size_t>(s.M) * s.K, 0.5f), B(static_cast<size_t>(s.K) * s.N, 0.25f),
        C(static_cast<size_t>(s.M) * s.N);
    const MatmulArgs args = dense(s.M, s.N, s.K, A.data(), B.data(), C.data());
    const Timing t = time_calls([&] { ref::matmul(args); }, 2.0 * s.M * s.N * s.K, 0.5, 1);
    std::printf("\nref::matmul [128,768]x[768,768] KN: %.2f GFLOP/s\n", t.best_gflops);
  }
  return 0;
}
