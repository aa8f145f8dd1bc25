// --pre-js of the threaded module (tfp_mt.mjs, cmake/wasm_module.cmake): the size of the
// pthread pool started with the module (-sPTHREAD_POOL_SIZE=tfpPoolSize). The page passes
// Module.tfpPoolSize = the threads it will use - 1 (engine/load_module.ts), so a 2-core
// machine starts 1 worker, not 3; without it, 3 (TFP_MAX_THREADS - 1: Node tests, bench).
// At least 1: with an empty pool Emscripten 3.1.6 never finishes starting the module.
var tfpPoolSize = typeof Module['tfpPoolSize'] == 'number' ? Math.max(1, Module['tfpPoolSize']) : 3;
