// Linear weights held (in, out) — GPT-2's Conv1D layout, WeightLayout::InOut — are turned
// into (out, in) in place once the checkpoint is bound, f32 and 16-bit alike.
//
// Why: a decode step (M = 1) reads every weight once from DRAM, and an (out, in) matrix
// is read row by row as one sequential stream of dot products, while (in, out) needs a
// pass over partial sums per few rows (kernels/simd/gemm.cpp gemv_nk vs gemv_kn). At
// GPT-2-small's shapes in WASM (node build/wasm/gemv.js, AMD EPYC) one layer's four
// matrices take 1.30 ms (out, in) against 1.66 ms (in, out); with f16 weights, 12 layers'
// matrices 13.0 ms against 21.5 ms (bench/RESULTS.md, 2026-11-26). The prefill's packed
// GEMM is as fast on either (bench_gemm, M = 128). The transpose costs one matrix of
// scratch. int8 weights are bound (out, in) already.
#pragma once
#include "model/config.h"
#include "model/weights.h"

namespace tfp::model {

void hold_linear_weights_out_in(const ModelConfig& cfg, ModelWeights& w);

}  // namespace tfp::model
