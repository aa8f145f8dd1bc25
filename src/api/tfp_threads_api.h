/* Threads (issue 14): how many threads the engine's kernels use. The conventions of
 * tfp_api.h hold. Exported from the WASM module like tfp_api.h (cmake/wasm_module.cmake).
 *
 * The single-threaded module (tfp.mjs) always runs on 1 thread: tfp_max_threads() is 1
 * there and tfp_set_threads answers 1. The threaded module (tfp_mt.mjs, Emscripten
 * pthreads, needs a cross-origin isolated page or Node) runs GEMMs, attention heads and
 * the LM head on up to tfp_max_threads() threads, the caller's included. Results are the
 * same bits whatever the thread count. */
#ifndef TFP_THREADS_API_H
#define TFP_THREADS_API_H

#include "api/tfp_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Sets the thread count, clamped to 1..tfp_max_threads(); returns the count now in use.
 * Never call it while another engine call runs on a second thread. */
int tfp_set_threads(int n);
/* The thread count in use (1 until tfp_set_threads asks for more). */
int tfp_threads(void);
/* The most this build can use: 1 without pthreads, the pthread pool size + 1 with them. */
int tfp_max_threads(void);

#ifdef __cplusplus
}
#endif

#endif /* TFP_THREADS_API_H */
