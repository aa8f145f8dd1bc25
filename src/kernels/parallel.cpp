// The kernels' thread pool (parallel.h). One job at a time: the caller publishes it
// (function, task count, a new generation), wakes the workers, claims tasks from a
// shared counter like them, then waits until every worker has left the job.
// Waiting spins for a while before it sleeps: a decode step runs ~50 small jobs back to
// back, and a sleeping worker's wake-up (a futex round trip; in WebAssembly
// Atomics.wait/notify across Web Workers) costs more than a GEMV's share of the work.
#include "kernels/parallel.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <utility>

#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
#define TFP_NO_THREADS 1
#else
#include <condition_variable>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>
#endif

#ifndef TFP_MAX_THREADS
#define TFP_MAX_THREADS 8
#endif

namespace tfp::kernels {

#ifdef TFP_NO_THREADS

bool parallel_worth(int64_t) { return false; }
bool parallel_column_blocks(int, int64_t, int, const std::function<void(int, int)>&) { return false; }
int set_threads(int) { return 1; }
int threads() { return 1; }
int max_threads() { return 1; }
void parallel_for(int n_tasks, const std::function<void(int)>& fn) {
  for (int i = 0; i < n_tasks; ++i) fn(i);
}

#else

namespace {

thread_local bool t_in_task = false;

// How long a worker keeps looking for the next job, and the caller for the workers' end,
// before sleeping: longer than the gaps between one forward pass's jobs, short enough that
// an idle pool gives its cores back at once.
constexpr std::chrono::microseconds kSpin{1000};

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Polls ready() until it holds (true) or kSpin has passed (false).
template <class Ready>
bool spin_until(Ready&& ready) {
  const auto until = std::chrono::steady_clock::now() + kSpin;
  for (unsigned i = 1;; ++i) {
    if (ready()) return true;
    if (i % 64 == 0 && std::chrono::steady_clock::now() > until) return false;
    cpu_relax();
  }
}

class Pool {
 public:
  ~Pool() { resize(1); }

  int size() const { return size_.load(std::memory_order_relaxed); }

  int resize(int n) {
    n = std::clamp(n, 1, TFP_MAX_THREADS);
    std::lock_guard<std::mutex> job(job_mutex_);  // no job runs while workers change
    if (n == size()) return n;
    {
      std::lock_guard<std::mutex> lk(m_);
      stop_.store(true, std::memory_order_release);
    }
    work_cv_.notify_all();
    for (std::thread& t : workers_) t.join();
    workers_.clear();
    live_ = 0;
    stop_.store(false, std::memory_order_relaxed);
    // A thread the system refuses (Emscripten: the pthread pool is used up, which
    // PTHREAD_POOL_SIZE_STRICT=2 reports instead of deadlocking) leaves a smaller pool.
    for (int i = 1; i < n; ++i) {
      try {
        workers_.emplace_back([this] { worker_loop(); });
      } catch (const std::system_error&) {
        break;
      }
    }
    size_.store(1 + static_cast<int>(workers_.size()), std::memory_order_relaxed);
    return size();
  }

  void run(int n_tasks, const std::function<void(int)>& fn) {
    std::unique_lock<std::mutex> job(job_mutex_, std::try_to_lock);
    if (!job.owns_lock() || workers_.empty()) {  // busy (another thread's job) or 1 thread
      for (int i = 0; i < n_tasks; ++i) fn(i);
      return;
    }
    bool wake = false;
    {
      std::lock_guard<std::mutex> lk(m_);
      fn_ = &fn;
      n_tasks_ = n_tasks;
      next_.store(0, std::memory_order_relaxed);
      busy_.store(live_, std::memory_order_relaxed);  // the workers running now; one still
                                                      // starting joins from the next job
      error_ = nullptr;
      generation_.fetch_add(1, std::memory_order_release);  // spinning workers start here
      wake = sleepers_ > 0;
    }
    if (wake) work_cv_.notify_all();
    claim_tasks();
    if (!spin_until([this] { return busy_.load(std::memory_order_acquire) == 0; })) {
      std::unique_lock<std::mutex> lk(m_);
      done_cv_.wait(lk, [this] { return busy_.load(std::memory_order_acquire) == 0; });
    }
    std::lock_guard<std::mutex> lk(m_);
    fn_ = nullptr;
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  }

 private:
  void claim_tasks() {
    t_in_task = true;
    for (int i; (i = next_.fetch_add(1, std::memory_order_relaxed)) < n_tasks_;) {
      try {
        (*fn_)(i);
      } catch (...) {
        std::lock_guard<std::mutex> lk(m_);
        if (!error_) error_ = std::current_exception();
      }
    }
    t_in_task = false;
  }

  void worker_loop() {
    // Counted from the next job on: a job published before this thread ran (a Web Worker's
    // pthread can take milliseconds to start, right when the first requests run) neither
    // waits for it nor is joined by it.
    uint64_t seen;
    {
      std::lock_guard<std::mutex> lk(m_);
      if (stop_.load(std::memory_order_relaxed)) return;
      ++live_;
      seen = generation_.load(std::memory_order_relaxed);
    }
    auto has_news = [&] {
      return stop_.load(std::memory_order_acquire) || generation_.load(std::memory_order_acquire) != seen;
    };
    for (;;) {
      if (!spin_until(has_news)) {
        std::unique_lock<std::mutex> lk(m_);
        ++sleepers_;
        work_cv_.wait(lk, has_news);
        --sleepers_;
      }
      if (stop_.load(std::memory_order_acquire)) return;
      seen = generation_.load(std::memory_order_acquire);
      claim_tasks();
      if (busy_.fetch_sub(1, std::memory_order_acq_rel) == 1) {  // the last one out wakes the caller
        std::lock_guard<std::mutex> lk(m_);
        done_cv_.notify_one();
      }
    }
  }

  std::mutex job_mutex_;  // held by the thread running a job (and by resize)
  std::mutex m_;          // guards the fields below
  std::condition_variable work_cv_, done_cv_;
  std::vector<std::thread> workers_;
  std::atomic<int> size_{1};
  const std::function<void(int)>* fn_ = nullptr;
  int n_tasks_ = 0;
  std::atomic<int> next_{0};
  std::atomic<int> busy_{0};           // workers still in the current job
  std::atomic<uint64_t> generation_{0};  // bumped once per job, after its fields are set
  std::atomic<bool> stop_{false};
  int sleepers_ = 0;                     // workers asleep on work_cv_
  int live_ = 0;                         // workers that have started their loop
  std::exception_ptr error_;
};

Pool& pool() {
  static Pool p;
  return p;
}

}  // namespace

// 1 M multiply-adds: 25-100 us on one thread (native AVX2 .. WASM SIMD128), many times an
// empty parallel_for's round trip (5.7 us natively, 2 threads). Measured natively on the
// shared 2-core machine (load 4.5): 2 threads lost up to 2 M multiply-adds (a second thread
// waits for a core there), so this is a floor; an idle machine gains from about here on.
// Inside a task the answer is no: the split already happened one level up.
bool parallel_worth(int64_t flops) {
  return !t_in_task && threads() > 1 && flops >= (int64_t{1} << 20);
}

bool parallel_column_blocks(int n, int64_t flops, int align, const std::function<void(int, int)>& fn) {
  if (!parallel_worth(flops)) return false;
  const int t = threads();
  const int groups = (n + align - 1) / align;
  if (groups < 2 * t) return false;
  const int blocks = std::min(groups / 2, 4 * t);  // >= 2 groups a block
  parallel_for(blocks, [&](int i) {
    const int j0 = static_cast<int>(static_cast<int64_t>(groups) * i / blocks) * align;
    const int j1 = std::min(n, static_cast<int>(static_cast<int64_t>(groups) * (i + 1) / blocks) * align);
    fn(j0, j1);
  });
  return true;
}

int set_threads(int n) { return pool().resize(n); }
int threads() { return pool().size(); }
int max_threads() { return TFP_MAX_THREADS; }

void parallel_for(int n_tasks, const std::function<void(int)>& fn) {
  if (n_tasks <= 0) return;
  if (n_tasks == 1 || t_in_task || threads() == 1) {
    for (int i = 0; i < n_tasks; ++i) fn(i);
    return;
  }
  pool().run(n_tasks, fn);
}

#endif

}  // namespace tfp::kernels
