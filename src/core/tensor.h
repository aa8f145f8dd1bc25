// Tensors: an owning row-major float32 Tensor for activations and a non-owning
// TensorView for weights that live where they were loaded (a safetensors buffer).
// Deliberately minimal: no strides, no broadcasting, no autograd — ops take views and
// return Tensors, and shapes are checked by the op that uses them.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "core/error.h"

namespace tfp {

using Shape = std::vector<int64_t>;

int64_t numel_of(const Shape& shape);

// 16-bit floats (IEEE half or bfloat16) where a checkpoint stored them: weights the
// engine reads without an f32 copy (the kernels widen what they are about to use).
struct HalfView {
  const uint16_t* data = nullptr;
  bool bf16 = false;  // bfloat16 instead of IEEE half
  bool finite = false;  // checked to hold no infinity or NaN (the kernels may skip their check)
  bool empty() const { return data == nullptr; }
};

// A read-only window on float32 data owned by someone else (a loaded file, a Tensor).
struct TensorView {
  const float* data = nullptr;
  Shape shape;

  TensorView() = default;
  TensorView(const float* d, Shape s) : data(d), shape(std::move(s)) {}
  bool empty() const { return data == nullptr; }
  int rank() const { return static_cast<int>(shape.size()); }
  int64_t numel() const { return numel_of(shape); }
  // dim(-1) is the last dimension.
  int64_t dim(int i) const;
};

struct Tensor {
  Shape shape;
  std::vector<float> data;

  Tensor() = default;
  explicit Tensor(Shape s, float fill = 0.0f);
  Tensor(Shape s, std::vector<float> values);  // checks values.size() == numel

  bool empty() const { return data.empty(); }
  int rank() const { return static_cast<int>(shape.size()); }
  int64_t numel() const { return static_cast<int64_t>(data.size()); }
  int64_t dim(int i) const;
  float* ptr() { return data.data(); }
  const float* ptr() const { return data.data(); }
  // Row r of a tensor seen as (rows, last dim).
  float* row(int64_t r) { return data.data() + r * dim(-1); }
  const float* row(int64_t r) const { return data.data() + r * dim(-1); }
  TensorView view() const { return {data.data(), shape}; }
  operator TensorView() const { return view(); }
  Tensor& reshape(Shape s);  // same numel, in place
};

// Throws tfp::Error "<op>: <what> has shape [..], expected [..]" unless shapes match;
// -1 in `expected` matches any size.
void expect_shape(const char* op, const char* what, const Shape& got, const Shape& expected);

}  // namespace tfp
