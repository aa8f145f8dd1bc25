// Reference for matmul_int8: the weight dequantised element by element, f32 products
// summed in order, exactly as ref::matmul does on f32 B:
//   C[i, n] = alpha · Σ_k A[i, k] · (B8[n, k] · B8_scale[n]) + bias[n] (+ C[i, n])
// The fast kernel quantises A to int16 for its integer dot products; tests bound the
// difference by the activation rounding (see src/kernels/simd/gemm_int8.cpp).
#include "kernels/kernels.h"

namespace tfp::kernels::ref {

void matmul_int8(const MatmulArgs& a) {
  for (int i = 0; i < a.M; ++i) {
    for (int n = 0; n < a.N; ++n) {
      const int8_t* q = a.B8 + static_cast<int64_t>(n) * a.ldb;  // row n of B: (K)
      const float s = a.B8_scale[n];
      float acc = 0.0f;
      for (int k = 0; k < a.K; ++k) acc += a.A[static_cast<int64_t>(i) * a.lda + k] * (static_cast<float>(q[k]) * s);
      const float v = a.alpha * acc + (a.bias ? a.bias[n] : 0.0f);
      float& c = a.C[static_cast<int64_t>(i) * a.ldc + n];
      c = a.accumulate ? c + v : v;
    }
  }
}

}  // namespace tfp::kernels::ref
