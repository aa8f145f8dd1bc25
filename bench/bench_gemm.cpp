// GEMM benchmark: GFLOP/s of kernels::matmul at GPT-2-small shapes, as a fraction of
// a SIMD peak measured in the same run. Built natively and as WASM by CMake:
//   build/<dir>/bench_gemm            node build/<dir>-wasm/bench_gemm.js
// Options: --quick (fewer repetitions), --ref (also time ref::matmul at one shape).
//
// Peak: a register-resident loop of kChains independent xsimd::fma chains
// (acc = acc·m + c). Natively that is vfmadd (2 flops/lane); in WASM SIMD128 xsimd's fma
// is mul + add, the same two instructions the GEMM microkernel issues per lane, so the
// ratio compares like with like. kChains = 12 covers the latency × throughput of both
// (FMA: 4 cycles × 2/cycle = 8 in flight; mul→add chain: 8 cycles × 1 pair/cycle).
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

// Best over many rounds of >= 5 ms CPU time (long enough for the microsecond CPU clock).
double measure_peak(double min_seconds) {
  using A = xsimd::default_arch;
  constexpr int W = xsimd::batch<float, A>::size;
  // volatile operands: the compiler must not see the constants (and fold the chains)
  volatile float vm = 0.999f, vc = 0.001f, sink = 0;
  long iters = 1 << 10;
  for (int i = 0; i < 3; ++i) sink = sink + peak_loop<A>(iters, vm, vc);  // warm-up
  for (;;) {  // calibrate: one round of at least 5 ms
    const CpuTimer t;
    sink = sink + peak_loop<A>(iters, vm, vc);
    if (t.seconds() >= 0.005) break;
    iters *= 2;
  }
  double best = 0;
  const auto start = Clock::now();
  while (seconds_since(start) < min_seconds) {
    const CpuTimer t;
    sink = sink + peak_loop<A>(iters, vm, vc);
    best = std::max(best, 2.0 * W * kChains * iters / t.seconds() * 1e-9);
  }
  return best;
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
  std::printf("peak (register-resident %d-chain fma loop): %.1f GFLOP/s\n\n", kChains, peak);

  const Shape shapes[] = {{1, 768, 768}, {1, 768, 3072}, {128, 768, 768}, {128, 768, 3072}};
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);

  std::printf("%-22s %-6s %10s %10s %8s %5s\n", "shape [M,K]x[K,N]", "B", "best GF/s",
              "median", "%peak", "reps");
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
      char name[64];
      std::snprintf(name, sizeof name, "[%d,%d]x[%d,%d]", s.M, s.K, s.K, s.N);
      std::printf("%-22s %-6s %10.2f %10.2f %7.1f%% %5d\n", name,
                  layout == BLayout::KN ? "KN" : "NK", t.best_gflops, t.median_gflops,
                  100.0 * t.best_gflops / peak, t.reps);
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
