// A small fixed pool of threads for the kernels (issue 14, "Threads").
//
//   parallel_for(n, fn)   runs fn(0) .. fn(n-1), each exactly once, on the calling thread
//                         and the pool's workers; returns when all are done. The first
//                         exception a task throws is rethrown here (after all finished).
//   set_threads(n)        the pool's size, the caller included: 1 = everything runs inline
//                         on the calling thread. Clamped to [1, max_threads()].
//
// Determinism: callers split work so that every output element is computed by exactly
// one task, with the arithmetic it would get single-threaded (same blocking, same
// summation order). Which thread runs a task never matters, so n threads give the
// 1-thread results bit for bit.
//
// Builds without threads (the single-threaded WebAssembly module) compile this to the
// inline loop, max_threads() = 1. A parallel_for inside a task (attention heads whose
// matmuls would split again), or from a second thread while the pool is busy, runs
// inline. Under Emscripten pthreads the workers come from PTHREAD_POOL_SIZE, so
// max_threads() is TFP_MAX_THREADS (the pool plus the caller; more would deadlock).
#pragma once
#include <cstdint>
#include <functional>

namespace tfp::kernels {

int set_threads(int n);  // returns the size now in effect
int threads();
int max_threads();

void parallel_for(int n_tasks, const std::function<void(int)>& fn);

// Whether work of `flops` multiply-adds is worth waking the pool for (measured: below
// it the wake-up and the split cost more than they save).
bool parallel_worth(int64_t flops);

// Columns [0, n) of a product of `flops` multiply-adds in blocks over the pool: fn(j0, j1)
// once per block, block edges at multiples of `align` (the last block ends at n), up to 4
// blocks a thread, claimed as threads come free (a thread that another process holds up
// leaves its blocks to the others). Returns false, running nothing, when the work is not
// worth it or has fewer than 2 aligned groups a thread: the caller then runs it whole.
bool parallel_column_blocks(int n, int64_t flops, int align, const std::function<void(int, int)>& fn);

}  // namespace tfp::kernels
