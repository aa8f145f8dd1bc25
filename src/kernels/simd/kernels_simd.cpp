// TEMPORARY: forwards to the reference kernels until the xsimd versions land.
#include "kernels/kernels.h"
namespace tfp::kernels {
void matmul(const MatmulArgs& a) { ref::matmul(a); }
void softmax_rows(float* x, int rows, int cols, int64_t ld) { ref::softmax_rows(x, rows, cols, ld); }
void layernorm_rows(const float* x, const float* g, const float* b, float* y, int rows, int cols, float eps) { ref::layernorm_rows(x, g, b, y, rows, cols, eps); }
void relu(float* x, size_t n) { ref::relu(x, n); }
void gelu_tanh(float* x, size_t n) { ref::gelu_tanh(x, n); }
void gelu_erf(float* x, size_t n) { ref::gelu_erf(x, n); }
void add_inplace(float* y, const float* x, size_t n) { ref::add_inplace(y, x, n); }
void f16_to_f32(const uint16_t* s, float* d, size_t n) { ref::f16_to_f32(s, d, n); }
void bf16_to_f32(const uint16_t* s, float* d, size_t n) { ref::bf16_to_f32(s, d, n); }
const char* simd_arch_name() { return "ref"; }
}
