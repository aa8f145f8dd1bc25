// The one matrix product every backward pass is written with, for float (training) and
// double (gradient checks). float goes to the engine's kernel tfp::kernels::matmul, so
// training runs at the speed of the SIMD kernels; double runs a plain loop with the same
// semantics, so the very same backward code can be checked against finite differences
// in double precision (where they are accurate to ~1e-9).
//
// The three products of a linear layer y = x·Wᵀ (W stored (O, I) as in nn.Linear):
//   forward   Y  (T, O) = X  (T, I) · Wᵀ         gemm(.., BLayout::NK, B = W)
//   input     dX (T, I) = dY (T, O) · W          gemm(.., BLayout::KN, B = W)
//   weight    dW (O, I) += dYᵀ (O, T) · X (T, I) transpose dY, then KN with accumulate
// The kernel has no "transpose A" flag, so dYᵀ is materialised by transpose() — cheap
// next to the product itself (O·T copies vs O·T·I multiply-adds).
//
// Legend: M rows of A and C, N columns of C, K the inner dimension.
#pragma once
#include <cstdint>

#include "kernels/kernels.h"

namespace tfp::train {

using kernels::BLayout;

// C (M, N) = alpha · A (M, K) · op(B) (+ C if accumulate). Row strides lda, ldb, ldc.
// op(B) = B for BLayout::KN (B is (K, N)), Bᵀ for BLayout::NK (B is (N, K)).
template <class T>
void gemm(int M, int N, int K, const T* A, int64_t lda, const T* B, int64_t ldb, BLayout layout,
          T* C, int64_t ldc, T alpha = T(1), bool accumulate = false);

// dst (cols, rows) = src (rows, cols)ᵀ; src has row stride ld_src, dst is contiguous.
template <class T>
void transpose(const T* src, int rows, int cols, int64_t ld_src, T* dst);

}  // namespace tfp::train
