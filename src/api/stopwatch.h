// Timing helpers for the Learn chapters that measure the engine (timing, efficiency,
// generation). Header-only: each caller times its own lambdas.
//
// Why batches: the browser's clock is coarse (100 µs or worse), so a short call is
// repeated until a batch lasts long enough to read. Why interleaved rounds: other work
// on the machine only ever adds time and comes in bursts, so contenders timed in turn,
// round after round, see the same bursts, and the fastest round of each is the least
// disturbed — a burst during one contender's block would otherwise make it look slower.
#pragma once

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>

namespace tfp::api {

using clock_type = std::chrono::steady_clock;

inline double elapsed_ms(clock_type::time_point since) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - since).count();
}

// Milliseconds per call of `op`, one batch of `k` calls.
template <typename Op>
double batch_ms(const Op& op, int64_t k) {
  const auto t0 = clock_type::now();
  for (int64_t i = 0; i < k; ++i) op();
  return elapsed_ms(t0) / double(k);
}

// How many calls make one batch of `op` last min_batch_ms: doubles k until it does (a
// clock that reads 0 for a short batch only makes k grow). One untimed call first.
template <typename Op>
int64_t calls_per_batch(const Op& op, double min_batch_ms) {
  op();
  int64_t k = 1;
  while (k < (int64_t{1} << 24) && batch_ms(op, k) * double(k) < min_batch_ms) k *= 2;
  return k;
}

// The fastest batch of each op over `rounds` rounds, the ops timed in turn within each
// round; batches sized by calls_per_batch.
template <typename... Ops>
std::array<double, sizeof...(Ops)> interleaved_best_ms(int rounds, double min_batch_ms, const Ops&... ops) {
  const std::array<int64_t, sizeof...(Ops)> k{calls_per_batch(ops, min_batch_ms)...};
  std::array<double, sizeof...(Ops)> best;
  best.fill(1e300);
  for (int r = 0; r < rounds; ++r) {
    size_t i = 0;
    ((best[i] = std::min(best[i], batch_ms(ops, k[i])), ++i), ...);
  }
  return best;
}

}  // namespace tfp::api
