// The one kernel API. Every op here has two implementations with the same signature:
//   tfp::kernels::ref::*   clear scalar code (src/kernels/ref/), the oracle for tests and
//                          the version the tutorials show;
//   tfp::kernels::*        the fast xsimd version (src/kernels/simd/), written once over the
//                          architecture and compiled for native SIMD and for WASM SIMD128.
// Kernels take raw pointers and sizes and never allocate per call beyond scratch
// packing buffers; callers (src/nn/) check shapes and name the op in errors.
//
// Legend: M rows of A/C, N columns of C, K the shared (inner) dimension.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace tfp::kernels {

// How B is stored in a matmul.
enum class BLayout {
  KN,  // B is (K, N), row-major: C = A·B          (GPT-2 Conv1D weights, attention P·V)
  NK,  // B is (N, K), row-major: C = A·Bᵀ         (nn.Linear weights, attention Q·Kᵀ)
};

struct MatmulArgs {
  int M = 0, N = 0, K = 0;
  const float* A = nullptr;  int64_t lda = 0;  // (M, K), row stride lda >= K
  const float* B = nullptr;  int64_t ldb = 0;  // (K, N) or (N, K) per layout, row stride ldb
  float* C = nullptr;        int64_t ldc = 0;  // (M, N), row stride ldc >= N
  BLayout layout = BLayout::KN;
  const float* bias = nullptr;  // (N) added to every row, or null
  float alpha = 1.0f;           // C = alpha·A·op(B) (+ bias) (+ C if accumulate)
  bool accumulate = false;      // add into C instead of overwriting it
  // B kept as the checkpoint stored it, in 16-bit floats: when B16 is set it replaces B
  // (same layout, ldb in elements). matmul widens it block by block into L1/L2 scratch,
  // so results equal matmul on the widened f32 B bit for bit, and no f32 copy of the
  // weights exists (a decode step also reads half the bytes); for M = 1 see
  // matmul_b16_decode. Not for matmul_packed.
  const uint16_t* B16 = nullptr;
  bool B16_bf16 = false;        // bfloat16 instead of IEEE half
  // The caller vouches that the f16 B16 holds no infinity or NaN (a model refuses them at
  // load): matmul_b16_decode then skips its own check, ~9 % of an f16 decode step in WASM.
  bool B16_finite = false;
  // B as int8 with one scale per output column, for matmul_int8 only (layout NK):
  // B(n, k) = B8[n·ldb + k] · B8_scale[n]  (per-channel symmetric, nn/quantize_int8.h).
  const int8_t* B8 = nullptr;
  const float* B8_scale = nullptr;  // (N)
};

// C = alpha · A · op(B) + bias (+ C). f32 in, f32 accumulate.
void matmul(const MatmulArgs& args);

// The same product restricted to C's columns [j0, j1): every column-indexed pointer (B, B16,
// B8, B8_scale, bias, C) offset, N = j1 - j0. How the kernels split a product over threads.
MatmulArgs column_block(const MatmulArgs& a, int j0, int j1);

// B packed once for many matmuls with the same B (weights at inference): the fast
// kernel's panel layout, private to src/kernels/simd/. Saves the per-call packing.
struct PackedB {
  int N = 0, K = 0;
  int nr = 0;                 // panel width it was packed for
  std::vector<float> panels;  // K * round_up(N, nr) floats
};
PackedB pack_b(const float* B, int64_t ldb, int N, int K, BLayout layout);
// matmul with a pre-packed B: args.B, ldb and layout are ignored; args.N, args.K must
// equal b.N, b.K. Same results as matmul up to rounding.
void matmul_packed(const MatmulArgs& args, const PackedB& b);

// Convenience for contiguous matrices: lda = K, ldb = row length of B, ldc = N.
MatmulArgs dense(int M, int N, int K, const float* A, const float* B, float* C,
                 BLayout layout = BLayout::KN, const float* bias = nullptr);

// M = 1 on 16-bit B (args.B16) with the conversion inside the GEMV (4-lane builds: WASM,
// -msse4.1; simd/gemv_b16.cpp): the same bits as matmul. Returns false when not taken (M != 1,
// an 8-lane build, max|A| >= 2^16, an f16 inf/NaN in B unless B16_finite; C is left as it was): then call
// matmul. A separate entry,
// not a branch inside matmul: a call to it there made clang 14 compile matmul's M = 128
// GEMM 70 % slower in WASM (1,210 vs 705 ms for GPT-2-small's 12 layers).
bool matmul_b16_decode(const MatmulArgs& args);

// matmul with int8 B (args.B8, args.B8_scale; layout NK; B and B16 are ignored). M <= 4
// (decode): A's rows are quantised to int16 on the fly and multiplied in integers (SIMD128
// i32x4.dot_i16x8_s), |C - ref| <= (max|A row| / 65534) · Σ_k |B(n, k)| beyond f32 rounding;
// M > 4: blocks of B are dequantised to f32 and run through matmul. A row holding NaN/inf
// gives what f32 would. See src/kernels/simd/gemm_int8.cpp.
void matmul_int8(const MatmulArgs& args);

// q[i] = x[i] / s rounded half away from zero (as std::round), clamped to [-127, 127]; s > 0
// and x finite (nn::quantize_int8_channels checks both). One row of per-channel int8 weights.
void quantize_row_int8(const float* x, int64_t n, float s, int8_t* q);

// Index of the first NaN in x[0:n], or -1 when there is none.
int64_t first_nan(const float* x, int64_t n);

// Index of the first maximum of x[0:n] (ties go to the lower index, as torch.argmax),
// -1 when n == 0. x must hold no NaN (first_nan says); -inf entries are fine.
int64_t argmax(const float* x, int64_t n);

// Σ exp(x[i] - shift) over x[0:n], each term as softmax_rows computes it (so
// exp(x[j] - max) / sum_exp(x, n, max) is softmax_rows' p_j up to the order of the sum).
float sum_exp(const float* x, int64_t n, float shift);

// Row-wise softmax in place over (rows, cols) with row stride ld (>= cols).
// Subtracts the row max first (exp never overflows). Masked entries are -inf on input
// and come out exactly 0; a row that is entirely -inf comes out all 0, never NaN.
void softmax_rows(float* x, int rows, int cols, int64_t ld);

// y = (x - mean) / sqrt(var + eps) * gamma + beta per row of (rows, cols).
// gamma/beta may be null (1 and 0). x and y may alias.
void layernorm_rows(const float* x, const float* gamma, const float* beta, float* y,
                    int rows, int cols, float eps);

// Activations in place over n floats.
void relu(float* x, size_t n);
void gelu_tanh(float* x, size_t n);  // 0.5x(1+tanh(√(2/π)(x+0.044715x³)))  GPT-2 "gelu_new"
void gelu_erf(float* x, size_t n);   // 0.5x(1+erf(x/√2))                 BERT, PyTorch "gelu"
void silu(float* x, size_t n);       // x·sigmoid(x) = x/(1+e^-x)          Llama's SwiGLU gate

// y[i] += x[i] over n floats (residual connections).
void add_inplace(float* y, const float* x, size_t n);

// dst (cols, rows) = the transpose of src (rows, cols), both dense; src and dst distinct.
void transpose(const float* src, int64_t rows, int64_t cols, float* dst);
void transpose16(const uint16_t* src, int64_t rows, int64_t cols, uint16_t* dst);  // 16-bit floats, as bits

// Half-precision storage formats → f32.
void f16_to_f32(const uint16_t* src, float* dst, size_t n);
void bf16_to_f32(const uint16_t* src, float* dst, size_t n);
uint16_t f32_to_f16_one(float x);   // round to nearest even (writer, tests)
uint16_t f32_to_bf16_one(float x);  // round to nearest even

// Name of the SIMD instruction set this build's fast kernels use ("avx2", "sse4.1/wasm128").
const char* simd_arch_name();

namespace ref {
void matmul(const MatmulArgs& args);
void matmul_int8(const MatmulArgs& args);  // dequantised weights, f32 sums in order
void softmax_rows(float* x, int rows, int cols, int64_t ld);
void layernorm_rows(const float* x, const float* gamma, const float* beta, float* y,
                    int rows, int cols, float eps);
void relu(float* x, size_t n);
void gelu_tanh(float* x, size_t n);
void gelu_erf(float* x, size_t n);
void silu(float* x, size_t n);
void add_inplace(float* y, const float* x, size_t n);
void transpose(const float* src, int64_t rows, int64_t cols, float* dst);
void f16_to_f32(const uint16_t* src, float* dst, size_t n);
void bf16_to_f32(const uint16_t* src, float* dst, size_t n);
}  // namespace ref

}  // namespace tfp::kernels
