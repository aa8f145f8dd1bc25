// y = x·Wᵀ + b as one matmul kernel call. The two checkpoint layouts map onto the two
// B layouts of the kernel, so neither needs a transposed copy:
//   OutIn (nn.Linear, W is (O, I)):  y = x·Wᵀ → BLayout::NK with ldb = I
//   InOut (Conv1D,    W is (I, O)):  y = x·W  → BLayout::KN with ldb = O
// A slice of output features [o0, o1) is a row range of W for OutIn and a column range
// for InOut; both are a pointer offset plus the original row stride.
//
// Legend: T rows (tokens), I input features, O output features.
#include "nn/linear.h"

#include <climits>

#include "kernels/kernels.h"

namespace tfp::nn {

static void check_layer(const Linear& layer, const char* op) {
  TFP_CHECK(!layer.empty(), op, ": linear layer has no weight");
  TFP_CHECK(layer.weight.rank() == 2, op, ": weight must be 2-D, got ",
            shape_str(layer.weight.shape));
  if (!layer.bias.empty()) {
    TFP_CHECK(layer.bias.rank() == 1 && layer.bias.shape[0] == layer.out_features(), op,
              ": bias has shape ", shape_str(layer.bias.shape), ", expected [",
              layer.out_features(), "] for weight ", shape_str(layer.weight.shape),
              layer.layout == WeightLayout::OutIn ? " (out, in)" : " (in, out)");
  }
}

int64_t Linear::in_features() const {
  TFP_CHECK(weight.rank() == 2, "linear: weight must be 2-D, got ", shape_str(weight.shape));
  return layout == WeightLayout::OutIn ? weight.shape[1] : weight.shape[0];
}

int64_t Linear::out_features() const {
  TFP_CHECK(weight.rank() == 2, "linear: weight must be 2-D, got ", shape_str(weight.shape));
  return layout == WeightLayout::OutIn ? weight.shape[0] : weight.shape[1];
}

namespace {

// The checks of a slice and its output shape (..., o_end - o_begin).
Shape slice_shape(const TensorView& x, const Linear& layer, int64_t o_begin, int64_t o_end, const char* op) {
  check_layer(layer, op);
  const int64_t I = layer.in_features(), O = layer.out_features();
  TFP_CHECK(x.rank() >= 1, op, ": input must have at least 1 dimension, got ",
            shape_str(x.shape));
  TFP_CHECK(x.dim(-1) == I, op, ": input has shape ", shape_str(x.shape),
            " but the weight ", shape_str(layer.weight.shape),
            layer.layout == WeightLayout::OutIn ? " (out, in)" : " (in, out)", " expects ", I,
            " input features");
  TFP_CHECK(0 <= o_begin && o_begin < o_end && o_end <= O, op, ": output slice [", o_begin,
            ", ", o_end, ") is not inside the ", O, " output features of weight ",
            shape_str(layer.weight.shape));
  const int64_t rows = I > 0 ? x.numel() / I : numel_of(Shape(x.shape.begin(), x.shape.end() - 1));
  const int64_t N = o_end - o_begin;
  TFP_CHECK(rows <= INT_MAX && N <= INT_MAX && I <= INT_MAX, op, ": sizes too large for the kernel: ",
            shape_str(x.shape));
  Shape out_shape = x.shape;
  out_shape.back() = N;
  return out_shape;
}

// The product itself, once slice_shape has checked it: out (rows, o_end - o_begin).
void run_slice(const TensorView& x, const Linear& layer, int64_t o_begin, int64_t o_end, const Shape& out_shape,
               float* out, const char* op) {
  const int64_t I = layer.in_features(), O = layer.out_features();
  const int64_t N = o_end - o_begin, rows = numel_of(out_shape) / N;
  if (rows == 0) return;

  kernels::MatmulArgs a;
  a.M = static_cast<int>(rows);
  a.N = static_cast<int>(N);
  a.K = static_cast<int>(I);
  a.A = x.data;
  a.lda = I;
  // W (O, I): rows o_begin.. are the slice; W (I, O): columns o_begin.., row stride stays O
  const bool out_in = layer.layout == WeightLayout::OutIn;
  const int64_t first = out_in ? o_begin * I : o_begin;
  a.ldb = out_in ? I : O;
  a.layout = out_in ? kernels::BLayout::NK : kernels::BLayout::KN;
  if (!layer.weight8.empty()) {  // int8 rows o_begin.. with their scales (always OutIn)
    TFP_CHECK(out_in, op, ": an int8 weight must be (out, in)");
    a.B8 = layer.weight8.q + first;
    a.B8_scale = layer.weight8.scale + o_begin;
  } else if (layer.weight16.empty()) {
    a.B = layer.weight.data + first;
  } else {
    a.B16 = layer.weight16.data + first;
    a.B16_bf16 = layer.weight16.bf16;
    a.B16_finite = layer.weight16.finite;
  }
  a.C = out;
  a.ldc = N;
  a.bias = layer.bias.empty() ? nullptr : layer.bias.data + o_begin;
  if (I == 0) {  // an empty sum: y = bias (the kernel need not handle K = 0)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < N; ++c) out[r * N + c] = a.bias ? a.bias[c] : 0.0f;
    return;
  }
  if (a.B8) kernels::matmul_int8(a);
  else if (!(a.B16 && a.M == 1 && kernels::matmul_b16_decode(a))) kernels::matmul(a);
}

}  // namespace

void linear_slice_into(const TensorView& x, const Linear& layer, int64_t o_begin, int64_t o_end, float* out,
                       const char* op) {
  run_slice(x, layer, o_begin, o_end, slice_shape(x, layer, o_begin, o_end, op), out, op);
}

Tensor linear_slice(const TensorView& x,  // (..., I)
                    const Linear& layer, int64_t o_begin, int64_t o_end, const char* op) {
  const Shape out_shape = slice_shape(x, layer, o_begin, o_end, op);
  Tensor y(out_shape);  // (..., o_end - o_begin)
  run_slice(x, layer, o_begin, o_end, out_shape, y.ptr(), op);
  return y;
}

Tensor linear(const TensorView& x,  // (..., I)
              const Linear& layer, const char* op) {
  check_layer(layer, op);
  const int64_t O = layer.out_features();
  if (O == 0) {
    Shape s = x.shape;
    if (!s.empty()) s.back() = 0;
    return Tensor(s);
  }
  return linear_slice(x, layer, 0, O, op);
}

}  // namespace tfp::nn
