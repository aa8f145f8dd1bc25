// The kernels' thread pool (parallel.h). One job at a time: the caller publishes it
// (function, task count, a new generation), wakes the workers, claims tasks from a
// shared counter like them, then waits until every worker has left the job.
#include "kernels/parallel.h"

#include <algorithm>
#include <atomic>
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
int set_threads(int) { return 1; }
int threads() { return 1; }
int max_threads() { return 1; }
void parallel_for(int n_tasks, const std::function<void(int)>& fn) {
  for (int i = 0; i < n_tasks; ++i) fn(i);
}

#else

namespace {

thread_local bool t_in_task = false;

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
      stop_ = true;
    }
    work_cv_.notify_all();
    for (std::thread& t : workers_) t.join();
    workers_.clear();
    stop_ = false;
    // A worker starts from the current generation: a job published before it first
    // takes the lock is still its to join (busy_ counts it).
    const uint64_t gen = generation_;
    // A thread the system refuses (Emscripten: the pthread pool is used up, which
    // PTHREAD_POOL_SIZE_STRICT=2 reports instead of deadlocking) leaves a smaller pool.
    for (int i = 1; i < n; ++i) {
      try {
        workers_.emplace_back([this, gen] { worker_loop(gen); });
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
    {
      std::lock_guard<std::mutex> lk(m_);
      fn_ = &fn;
      n_tasks_ = n_tasks;
      next_.store(0, std::memory_order_relaxed);
      busy_ = static_cast<int>(workers_.size());
      error_ = nullptr;
      ++generation_;
    }
    work_cv_.notify_all();
    claim_tasks();
    std::unique_lock<std::mutex> lk(m_);
    done_cv_.wait(lk, [this] { return busy_ == 0; });
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

  void worker_loop(uint64_t seen) {
    for (;;) {
      {
        std::unique_lock<std::mutex> lk(m_);
        work_cv_.wait(lk, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
      }
      claim_tasks();
      std::lock_guard<std::mutex> lk(m_);
      if (--busy_ == 0) done_cv_.notify_one();
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
  int busy_ = 0;
  uint64_t generation_ = 0;
  bool stop_ = false;
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
