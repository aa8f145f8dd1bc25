// The kernels' thread pool (kernels/parallel.h) and what runs on it: parallel_for runs
// every task exactly once and rethrows a task's error; matmul and attention on n threads
// give the 1-thread results bit for bit (each output element is computed by one task with
// the 1-thread arithmetic), on odd shapes that cross every split: column blocks (N wide),
// row blocks (N narrow, M tall), the M <= 4 GEMV paths, 16-bit B, strides, bias, accumulate.
#include <doctest/doctest.h>

#include <atomic>
#include <cstring>
#include <random>
#include <stdexcept>
#include <vector>

#include "kernels/kernels.h"
#include "kernels/parallel.h"
#include "nn/attention.h"

using namespace tfp;
using namespace tfp::kernels;

namespace {

// Restores the thread count a test changed, whatever happens.
struct ThreadsScope {
  int before = threads();
  ~ThreadsScope() { set_threads(before); }
};

std::vector<float> randoms(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = u(rng);
  return v;
}

}  // namespace

TEST_CASE("kernels/threads: parallel_for runs each task once, rethrows, nests inline") {
  ThreadsScope keep;
  CHECK(set_threads(0) == 1);
  CHECK(set_threads(1 << 20) == max_threads());
  for (int t : {1, 2, 3}) {
    const int want = std::min(t, max_threads());
    REQUIRE(set_threads(t) == want);
    CHECK(threads() == want);
    for (int n : {0, 1, 2, 3, 7, 64}) {
      std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
      parallel_for(n, [&](int i) {
        // a nested split runs inline on the task's thread
        parallel_for(3, [&](int) {});
        hits[static_cast<size_t>(i)].fetch_add(1);
      });
      for (int i = 0; i < n; ++i) CHECK(hits[static_cast<size_t>(i)].load() == 1);
    }
    std::atomic<int> ran{0};
    CHECK_THROWS_WITH_AS(parallel_for(5, [&](int i) {
                           ran.fetch_add(1);
                           if (i == 3) throw std::runtime_error("task 3 failed");
                         }),
                         "task 3 failed", std::runtime_error);
    CHECK(ran.load() >= 4);  // inline (1 thread) stops at the throw; the pool finishes the rest
    std::atomic<int> after{0};
    parallel_for(4, [&](int) { after.fetch_add(1); });
    CHECK(after.load() == 4);
  }
}

TEST_CASE("kernels/threads: jobs right after the pool starts, while its threads are still starting") {
  // A worker joins from the first job published after it began running: jobs published
  // before neither wait for it nor lose a task (each runs exactly once either way).
  ThreadsScope keep;
  for (int round = 0; round < 200; ++round) {
    set_threads(1);
    set_threads(1 + round % 3);
    for (int job = 0; job < 3; ++job) {
      std::vector<std::atomic<int>> hits(17);
      parallel_for(17, [&](int i) { hits[static_cast<size_t>(i)].fetch_add(1); });
      for (const auto& h : hits) REQUIRE(h.load() == 1);
    }
  }
}

TEST_CASE("kernels/threads: matmul on 2 and 3 threads equals 1 thread bit for bit") {
  ThreadsScope keep;
  struct Shape { int M, N, K; };
  // column blocks, row blocks (N < 2 panels a thread), GEMV (M <= 4), K past KC, odd edges
  // (every shape but the last is above parallel_worth's 2^20 multiply-adds; 64^3 stays inline)
  const Shape shapes[] = {{1, 4099, 300}, {3, 1031, 513}, {4, 2049, 129}, {261, 37, 129},
                          {131, 1031, 257}, {7, 300, 513}, {400, 9, 300}, {64, 64, 64}};
  for (const Shape& s : shapes)
    for (BLayout layout : {BLayout::KN, BLayout::NK})
      for (int variant = 0; variant < 3; ++variant) {  // 0 plain, 1 strided+bias+accumulate, 2 16-bit B
        CAPTURE(s.M); CAPTURE(s.N); CAPTURE(s.K); CAPTURE(static_cast<int>(layout)); CAPTURE(variant);
        const bool strided = variant == 1;
        const int64_t lda = s.K + (strided ? 3 : 0), ldc = s.N + (strided ? 2 : 0);
        const int64_t ldb = (layout == BLayout::KN ? s.N : s.K) + (strided ? 5 : 0);
        const int64_t brows = layout == BLayout::KN ? s.K : s.N;
        const auto A = randoms(static_cast<size_t>(s.M * lda), 1);
        const auto B = randoms(static_cast<size_t>(brows * ldb), 2);
        const auto bias = randoms(static_cast<size_t>(s.N), 3);
        const auto C0 = randoms(static_cast<size_t>(s.M * ldc), 4);
        std::vector<uint16_t> B16(B.size());
        for (size_t i = 0; i < B.size(); ++i) B16[i] = f32_to_f16_one(B[i]);
        auto run = [&](int t) {
          set_threads(t);
          std::vector<float> C = C0;
          MatmulArgs a;
          a.M = s.M; a.N = s.N; a.K = s.K;
          a.A = A.data(); a.lda = lda;
          if (variant == 2) a.B16 = B16.data(); else a.B = B.data();
          a.ldb = ldb;
          a.C = C.data(); a.ldc = ldc;
          a.layout = layout;
          if (strided) { a.bias = bias.data(); a.accumulate = true; a.alpha = 0.5f; }
          matmul(a);
          return C;
        };
        const auto one = run(1);
        for (int t : {2, 3}) {
          const auto many = run(t);
          CHECK(std::memcmp(one.data(), many.data(), one.size() * sizeof(float)) == 0);
        }
      }
}

TEST_CASE("kernels/threads: the decode paths (16-bit B at M = 1, int8 B at M <= 4) split by columns, same bits") {
  ThreadsScope keep;
  struct Shape { int M, N, K; };
  // wide (column blocks), K not a multiple of 32 or 8, N not a multiple of 16, M = 1 .. 4
  const Shape shapes[] = {{1, 4099, 300}, {1, 2305, 771}, {3, 1031, 1025}, {4, 2049, 129}, {1, 50, 64}};
  for (const Shape& s : shapes)
    for (int variant = 0; variant < 5; ++variant) {  // 0 f16 NK, 1 f16 KN, 2 bf16 NK, 3 bf16 KN, 4 int8 (NK)
      if (variant < 4 && s.M != 1) continue;
      CAPTURE(s.M); CAPTURE(s.N); CAPTURE(s.K); CAPTURE(variant);
      const BLayout layout = variant == 1 || variant == 3 ? BLayout::KN : BLayout::NK;
      const int64_t ldb = (layout == BLayout::KN ? s.N : s.K) + 3;
      const int64_t brows = layout == BLayout::KN ? s.K : s.N;
      const auto A = randoms(static_cast<size_t>(s.M) * s.K, 5);
      const auto B = randoms(static_cast<size_t>(brows * ldb), 6);
      const auto bias = randoms(static_cast<size_t>(s.N), 7);
      const auto C0 = randoms(static_cast<size_t>(s.M) * s.N, 8);
      std::vector<uint16_t> B16(B.size());
      std::vector<int8_t> B8(B.size());
      for (size_t i = 0; i < B.size(); ++i) {
        B16[i] = variant >= 2 ? f32_to_bf16_one(B[i]) : f32_to_f16_one(B[i]);
        B8[i] = static_cast<int8_t>(static_cast<int>(B[i] * 127.0f));
      }
      const auto scales = randoms(static_cast<size_t>(s.N), 9);
      auto run = [&](int t) {
        set_threads(t);
        std::vector<float> C = C0;
        MatmulArgs a = dense(s.M, s.N, s.K, A.data(), nullptr, C.data(), layout, bias.data());
        a.ldb = ldb;
        a.alpha = 0.75f;
        a.accumulate = true;
        if (variant == 4) {
          a.B8 = B8.data();
          a.B8_scale = scales.data();
          matmul_int8(a);
        } else {
          a.B16 = B16.data();
          a.B16_bf16 = variant >= 2;
          if (!matmul_b16_decode(a)) matmul(a);  // 8-lane builds take matmul (split the same way)
        }
        return C;
      };
      const auto one = run(1);
      for (int t : {2, 3}) {
        const auto many = run(t);
        CHECK(std::memcmp(one.data(), many.data(), one.size() * sizeof(float)) == 0);
      }
    }
}

TEST_CASE("kernels/threads: attention heads on 2 threads equal 1 thread bit for bit") {
  ThreadsScope keep;
  const int64_t H = 4, T = 97, D = 24;  // 4·97·97·48 = 1.8 M multiply-adds: split by heads
  Tensor q({H, T, D}), k({H, T, D}), v({H, T, D});
  const auto r = randoms(static_cast<size_t>(3 * H * T * D), 5);
  std::memcpy(q.ptr(), r.data(), sizeof(float) * H * T * D);
  std::memcpy(k.ptr(), r.data() + H * T * D, sizeof(float) * H * T * D);
  std::memcpy(v.ptr(), r.data() + 2 * H * T * D, sizeof(float) * H * T * D);
  nn::AttentionMask mask;
  mask.causal = true;
  for (bool probs : {true, false}) {
    set_threads(1);
    const auto one = nn::scaled_dot_product_attention(q, k, v, mask, 0.2f, probs);
    set_threads(2);
    const auto two = nn::scaled_dot_product_attention(q, k, v, mask, 0.2f, probs);
    REQUIRE(one.out.numel() == two.out.numel());
    CHECK(std::memcmp(one.out.ptr(), two.out.ptr(), sizeof(float) * one.out.numel()) == 0);
    REQUIRE(one.probs.numel() == two.probs.numel());
    if (probs) CHECK(std::memcmp(one.probs.ptr(), two.probs.ptr(), sizeof(float) * one.probs.numel()) == 0);
  }
}
