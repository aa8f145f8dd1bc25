// A small streaming JSON writer for the CLI: large float tensors (logits are T×V) are
// written straight to the stream as nested arrays, with 9 significant digits (enough to
// round-trip a float). Strings are escaped by nlohmann/json.
#pragma once
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "core/tensor.h"

namespace tfp::cli {

class JsonWriter {
 public:
  explicit JsonWriter(std::ostream& out) : out_(out) {}

  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(std::string_view k);

  JsonWriter& value(std::string_view s);
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(int64_t x);
  JsonWriter& value(int x) { return value(static_cast<int64_t>(x)); }
  JsonWriter& value(uint64_t x);
  JsonWriter& value(double x);  // non-finite → null
  JsonWriter& value(bool b);
  JsonWriter& null();
  JsonWriter& raw(std::string_view json);  // an already serialised JSON value

  template <typename T>
  JsonWriter& values(const std::vector<T>& xs) {
    begin_array();
    for (const T& x : xs) value(x);
    return end_array();
  }
  // A tensor as nested arrays following its shape ([] for a rank-0 tensor → the number).
  JsonWriter& tensor(const TensorView& t);

  void finish() { out_ << '\n'; }

 private:
  void separate();
  void tensor_rec(const float* data, const Shape& shape, size_t dim);

  std::ostream& out_;
  std::vector<bool> first_;  // per open container: nothing written in it yet
  bool after_key_ = false;
};

}  // namespace tfp::cli
