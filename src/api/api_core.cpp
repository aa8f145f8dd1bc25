// The C API's housekeeping: the last-error string, build information and buffers.
#include <cstdlib>
#include <string>

#if defined(__EMSCRIPTEN__) || defined(__GLIBC__)
#include <malloc.h>
#endif
#ifdef __EMSCRIPTEN__
#include <emscripten/heap.h>
#include <unistd.h>
#endif

#include "api/api_edge.h"
#include "kernels/kernels.h"
#include "tokenizer/unicode.h"

namespace {
// One message per thread: a failure on one thread never overwrites another's.
thread_local std::string g_last_error;
}  // namespace

namespace tfp::api {

void set_last_error(int status, const std::string& message) {
  (void)status;
  try {
    g_last_error = message;
  } catch (...) {
    g_last_error.clear();  // out of memory while copying the message: say nothing wrong
  }
}

}  // namespace tfp::api

extern "C" {

const char* tfp_last_error(void) { return g_last_error.c_str(); }

const char* tfp_version(void) { return "0.1.0"; }

const char* tfp_unicode_version(void) { return tfp::unicode::unicode_versions(); }

const char* tfp_simd_arch(void) { return tfp::kernels::simd_arch_name(); }

void* tfp_alloc(size_t bytes) {
  void* p = nullptr;
  const int status = tfp::api::guard("tfp_alloc", [&] {
    TFP_API_REQUIRE(bytes > 0, "tfp_alloc: 0 bytes requested");
    // malloc's alignment (max_align_t) covers float and int64 on both targets.
    p = std::malloc(bytes);
    if (!p) throw std::bad_alloc();
  });
  return status == TFP_OK ? p : nullptr;
}

void tfp_free(void* ptr) { std::free(ptr); }

void tfp_memory_stats(double* out) {
  out[0] = out[1] = out[2] = 0;
#ifdef __EMSCRIPTEN__
  out[0] = static_cast<double>(emscripten_get_heap_size());
  // dlmalloc here is built with MORECORE_CANNOT_TRIM: the break is a high-water mark.
  out[1] = static_cast<double>(reinterpret_cast<uintptr_t>(sbrk(0)));
#endif
#if defined(__EMSCRIPTEN__)
  out[2] = static_cast<double>(mallinfo().uordblks);
#elif defined(__GLIBC__)
  out[2] = static_cast<double>(mallinfo2().uordblks);
#endif
}

}  // extern "C"
