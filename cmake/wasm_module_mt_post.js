// --post-js of the threaded module (tfp_mt.mjs, cmake/wasm_module.cmake).
// A pool thread that grows the memory (a kernel's scratch, an attention head's buffer)
// replaces the shared buffer, but only the thread that grew it refreshes its heap views:
// the main thread's Module.HEAPU8 would keep the old, shorter buffer. The pages and tests
// read Module.HEAPU8 at every use (tfp_module.d.mts), so make that read refresh the views
// when the buffer has changed, as Emscripten's own GROWABLE_HEAP_U8() does.
Object.defineProperty(Module, 'HEAPU8', {
  configurable: true,
  enumerable: true,
  get() {
    if (wasmMemory && wasmMemory.buffer !== buffer) updateGlobalBufferAndViews(wasmMemory.buffer);
    return HEAPU8;
  },
  set(_) {},  // updateGlobalBufferAndViews assigns it: HEAPU8 (the variable) is the truth
});

// Ends the pool's workers (Node tests and benchmarks: worker_threads keep the process
// alive). The module cannot run on more than 1 thread afterwards.
Module['terminateThreads'] = function () {
  PThread.terminateAllThreads();
};

// Resolves once every worker of the pool has loaded the module. The pool loads in the
// background (-sPTHREAD_POOL_DELAY_LOAD): the module is usable at once, on 1 thread.
// Call tfp_set_threads(n > 1) only after this: Emscripten starts a pthread on a worker
// only when that worker's 'loaded' message reaches this thread's event loop, which a job
// waiting for the pthread would keep blocked for ever.
Module['tfpPoolLoaded'] = function () {
  return new Promise(function (resolve) {
    (function poll() {
      if (PThread.unusedWorkers.every(function (w) { return w.loaded; })) resolve();
      else setTimeout(poll, 2);
    })();
  });
};
