// Scalar reference kernels: the clearest correct version of each op. Tests compare the
// SIMD kernels against these (and against double precision); tutorials show them.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "kernels/kernels.h"

namespace tfp::kernels::ref {

void matmul(const MatmulArgs& a) {
  for (int i = 0; i < a.M; ++i) {
    for (int j = 0; j < a.N; ++j) {
      float acc = 0.0f;
      for (int p = 0; p < a.K; ++p) {
        const float b = a.layout == BLayout::KN ? a.B[p * a.ldb + j] : a.B[j * a.ldb + p];
        acc += a.A[i * a.lda + p] * b;
      }
      float v = a.alpha * acc + (a.bias ? a.bias[j] : 0.0f);
      float& c = a.C[i * a.ldc + j];
      c = a.accumulate ? c + v : v;
    }
  }
}

void softmax_rows(float* x, int rows, int cols, int64_t ld) {
  for (int r = 0; r < rows; ++r) {
    float* row = x + r * ld;
    // Subtract the max so exp() never overflows: softmax(x) = softmax(x - max).
    float mx = -std::numeric_limits<float>::infinity();
    for (int c = 0; c < cols; ++c) mx = std::max(mx, row[c]);
    if (mx == -std::numeric_limits<float>::infinity()) {
      // Every key masked: no distribution exists; output zeros rather than 0/0 = NaN.
      for (int c = 0; c < cols; ++c) row[c] = 0.0f;
      continue;
    }
    float sum = 0.0f;
    for (int c = 0; c < cols; ++c) sum += (row[c] = std::exp(row[c] - mx));  // exp(-inf) = 0
    for (int c = 0; c < cols; ++c) row[c] /= sum;
  }
}

void layernorm_rows(const float* x, const float* gamma, const float* beta, float* y,
                    int rows, int cols, float eps) {
  for (int r = 0; r < rows; ++r) {
    const float* xr = x + static_cast<int64_t>(r) * cols;
    float* yr = y + static_cast<int64_t>(r) * cols;
    double mean = 0, var = 0;
    for (int c = 0; c < cols; ++c) mean += xr[c];
    mean /= cols;
    for (int c = 0; c < cols; ++c) var += (xr[c] - mean) * (xr[c] - mean);
    var /= cols;  // biased variance, as PyTorch's LayerNorm
    const float inv = static_cast<float>(1.0 / std::sqrt(var + eps));
    for (int c = 0; c < cols; ++c) {
      float v = (xr[c] - static_cast<float>(mean)) * inv;
      yr[c] = v * (gamma ? gamma[c] : 1.0f) + (beta ? beta[c] : 0.0f);
    }
  }
}

void relu(float* x, size_t n) {
  for (size_t i = 0; i < n; ++i) x[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

void gelu_tanh(float* x, size_t n) {
  const float k = 0.7978845608028654f;  // √(2/π)
  for (size_t i = 0; i < n; ++i) {
    const float v = x[i];
    x[i] = 0.5f * v * (1.0f + std::tanh(k * (v + 0.044715f * v * v * v)));
  }
}

void gelu_erf(float* x, size_t n) {
  for (size_t i = 0; i < n; ++i) x[i] = 0.5f * x[i] * (1.0f + std::erf(x[i] * 0.7071067811865476f));
}

void silu(float* x, size_t n) {
  for (size_t i = 0; i < n; ++i) x[i] = x[i] / (1.0f + std::exp(-x[i]));
}

void add_inplace(float* y, const float* x, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] += x[i];
}

void transpose(const float* src, int64_t rows, int64_t cols, float* dst) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) dst[c * rows + r] = src[r * cols + c];
}

// IEEE half: 1 sign, 5 exponent (bias 15), 10 mantissa bits.
static float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h >> 15) << 31;
  const uint32_t exp = (h >> 10) & 0x1f;
  const uint32_t man = h & 0x3ff;
  if (exp == 0) {  // zero or subnormal: man · 2^-24
    const float v = std::ldexp(static_cast<float>(man), -24);
    return sign ? -v : v;
  }
  uint32_t bits = exp == 0x1f ? (sign | 0x7f800000u | (man << 13))         // inf / NaN
                              : (sign | ((exp + 112) << 23) | (man << 13));  // 127 - 15 = 112
  return __builtin_bit_cast(float, bits);
}

void f16_to_f32(const uint16_t* src, float* dst, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] = half_to_float(src[i]);
}

// bfloat16 is the top half of an f32.
void bf16_to_f32(const uint16_t* src, float* dst, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] = __builtin_bit_cast(float, static_cast<uint32_t>(src[i]) << 16);
}

}  // namespace tfp::kernels::ref

namespace tfp::kernels {

MatmulArgs dense(int M, int N, int K, const float* A, const float* B, float* C, BLayout layout,
                 const float* bias) {
  MatmulArgs a;
  a.M = M; a.N = N; a.K = K;
  a.A = A; a.lda = K;
  a.B = B; a.ldb = layout == BLayout::KN ? N : K;
  a.C = C; a.ldc = N;
  a.layout = layout;
  a.bias = bias;
  return a;
}

uint16_t f32_to_bf16_one(float x) {
  uint32_t b = __builtin_bit_cast(uint32_t, x);
  if ((b & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((b >> 16) | 0x40);  // keep NaN
  b += 0x7fffu + ((b >> 16) & 1u);  // round to nearest even
  return static_cast<uint16_t>(b >> 16);
}

uint16_t f32_to_f16_one(float x) {
  const uint32_t b = __builtin_bit_cast(uint32_t, x);
  const uint16_t sign = static_cast<uint16_t>((b >> 16) & 0x8000u);
  const uint32_t absb = b & 0x7fffffffu;
  if (absb > 0x7f800000u) return sign | 0x7e00;   // NaN
  if (absb >= 0x477ff000u) return sign | 0x7c00;  // overflow → inf (≥ 65520 rounds up)
  if (absb < 0x38800000u) {                       // below 2^-14: subnormal half
    const float a = __builtin_bit_cast(float, absb);
    return sign | static_cast<uint16_t>(std::nearbyint(std::ldexp(a, 24)));  // man = a·2^24
  }
  uint32_t r = absb - 0x38000000u;  // rebias exponent 127 → 15
  r += 0xfffu + ((r >> 13) & 1u);   // round to nearest even on the dropped 13 bits
  return sign | static_cast<uint16_t>(r >> 13);
}

}  // namespace tfp::kernels
