// A tfp_tensors list (what the C API's forward calls return) read by name in the tests;
// the list is freed with the reader.
#pragma once
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "api/tfp_api.h"
#include "core/tensor.h"

namespace tfp::testing {

struct Tensors {
  tfp_tensors* list = nullptr;
  Tensors() = default;
  Tensors(const Tensors&) = delete;
  Tensors& operator=(const Tensors&) = delete;
  ~Tensors() { tfp_tensors_free(list); }

  bool has(const std::string& name) const { return tfp_tensors_find(list, name.c_str()) >= 0; }
  /** The tensor's index; a test failure when the list has no such tensor. */
  int index(const std::string& name) const {
    const int i = tfp_tensors_find(list, name.c_str());
    REQUIRE_MESSAGE(i >= 0, name);
    return i;
  }
  std::vector<int> dims(const std::string& name) const {
    const int i = index(name);
    const int32_t* d = tfp_tensors_dims(list, i);
    return std::vector<int>(d, d + tfp_tensors_rank(list, i));
  }
  /** A copy of the tensor's values. */
  std::vector<float> data(const std::string& name) const {
    const int i = index(name);
    const float* p = tfp_tensors_data(list, i);
    return std::vector<float>(p, p + tfp_tensors_numel(list, i));
  }
  /** A view of the tensor in the list (valid while the list is). */
  TensorView get(const std::string& name) const {
    const int i = index(name);
    const int32_t* d = tfp_tensors_dims(list, i);
    return TensorView(tfp_tensors_data(list, i), Shape(d, d + tfp_tensors_rank(list, i)));
  }
};

}  // namespace tfp::testing
