#include "core/tensor.h"

namespace tfp {

std::string shape_str(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

int64_t numel_of(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    TFP_CHECK(d >= 0, "negative dimension in shape ", shape_str(shape));
    n *= d;
  }
  return n;
}

static int64_t dim_of(const Shape& shape, int i) {
  const int r = static_cast<int>(shape.size());
  const int j = i < 0 ? i + r : i;
  TFP_CHECK(j >= 0 && j < r, "dim(", i, ") out of range for shape ", shape_str(shape));
  return shape[j];
}

int64_t TensorView::dim(int i) const { return dim_of(shape, i); }
int64_t Tensor::dim(int i) const { return dim_of(shape, i); }

Tensor::Tensor(Shape s, float fill) : shape(std::move(s)), data(static_cast<size_t>(numel_of(shape)), fill) {}

Tensor::Tensor(Shape s, std::vector<float> values) : shape(std::move(s)), data(std::move(values)) {
  TFP_CHECK(static_cast<int64_t>(data.size()) == numel_of(shape), "Tensor: ", data.size(),
            " values do not fill shape ", shape_str(shape));
}

Tensor& Tensor::reshape(Shape s) {
  TFP_CHECK(numel_of(s) == numel(), "reshape: cannot view ", shape_str(shape), " as ", shape_str(s));
  shape = std::move(s);
  return *this;
}

void expect_shape(const char* op, const char* what, const Shape& got, const Shape& expected) {
  bool ok = got.size() == expected.size();
  for (size_t i = 0; ok && i < got.size(); ++i) ok = expected[i] < 0 || expected[i] == got[i];
  TFP_CHECK(ok, op, ": ", what, " has shape ", shape_str(got), ", expected ", shape_str(expected));
}

}  // namespace tfp
