// See gemm.h. float → the engine kernel; double → a reference loop (gradient checks).
#include "train/gemm.h"

namespace tfp::train {

template <>
void gemm<float>(int M, int N, int K, const float* A, int64_t lda, const float* B, int64_t ldb,
                 BLayout layout, float* C, int64_t ldc, float alpha, bool accumulate) {
  if (M == 0 || N == 0) return;
  kernels::MatmulArgs a;
  a.M = M; a.N = N; a.K = K;
  a.A = A; a.lda = lda;
  a.B = B; a.ldb = ldb;
  a.C = C; a.ldc = ldc;
  a.layout = layout;
  a.alpha = alpha;
  a.accumulate = accumulate;
  kernels::matmul(a);
}

template <>
void gemm<double>(int M, int N, int K, const double* A, int64_t lda, const double* B,
                  int64_t ldb, BLayout layout, double* C, int64_t ldc, double alpha,
                  bool accumulate) {
  for (int i = 0; i < M; ++i) {
    for (int j = 0; j < N; ++j) {
      double acc = 0.0;
      for (int p = 0; p < K; ++p)
        acc += A[i * lda + p] * (layout == BLayout::KN ? B[p * ldb + j] : B[j * ldb + p]);
      double& c = C[i * ldc + j];
      c = accumulate ? c + alpha * acc : alpha * acc;
    }
  }
}

template <class T>
void transpose(const T* src, int rows, int cols, int64_t ld_src, T* dst) {
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) dst[static_cast<int64_t>(c) * rows + r] = src[r * ld_src + c];
}

template void transpose<float>(const float*, int, int, int64_t, float*);
template void transpose<double>(const double*, int, int, int64_t, double*);

}  // namespace tfp::train
