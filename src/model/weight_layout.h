// Linear weights held (in, out) — GPT-2's Conv1D layout, WeightLayout::InOut — are turned
// into (out, in) in place once the checkpoint is bound, when they are f32.
//
// Why: a decode step (M = 1) reads every weight once from DRAM, and an (out, in) matrix
// is read row by row as one sequential stream of dot products, while (in, out) needs a
// pass over partial sums per few rows (kernels/simd/gemm.cpp gemv_nk vs gemv_kn). At
// GPT-2-small's shapes in WASM (node build/wasm/gemv.js, AMD EPYC) one layer's four
// matrices take 1.30 ms (out, in) against 1.66 ms (in, out); the prefill's packed GEMM is
// as fast on either (bench_gemm, M = 128). The transpose costs one matrix of scratch.
// 16-bit and int8 weights are left as they are (their kernels read both layouts; int8
// is already (out, in)).
#pragma once
#include "model/config.h"
#include "model/weights.h"

namespace tfp::model {

void hold_linear_weights_out_in(const ModelConfig& cfg, ModelWeights& w);

}  // namespace tfp::model
