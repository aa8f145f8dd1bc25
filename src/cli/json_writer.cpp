#include "cli/json_writer.h"

#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

namespace tfp::cli {

void JsonWriter::separate() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.empty()) {
    if (!first_.back()) out_ << ',';
    first_.back() = false;
  }
}

JsonWriter& JsonWriter::begin_object() {
  separate();
  out_ << '{';
  first_.push_back(true);
  return *this;
}
JsonWriter& JsonWriter::end_object() {
  first_.pop_back();
  out_ << '}';
  return *this;
}
JsonWriter& JsonWriter::begin_array() {
  separate();
  out_ << '[';
  first_.push_back(true);
  return *this;
}
JsonWriter& JsonWriter::end_array() {
  first_.pop_back();
  out_ << ']';
  return *this;
}
JsonWriter& JsonWriter::key(std::string_view k) {
  separate();
  out_ << nlohmann::json(std::string(k)).dump() << ':';
  after_key_ = true;
  return *this;
}
JsonWriter& JsonWriter::value(std::string_view s) {
  separate();
  // Invalid UTF-8 (a byte-level token split mid-character) is replaced, never thrown.
  out_ << nlohmann::json(std::string(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return *this;
}
JsonWriter& JsonWriter::value(int64_t x) {
  separate();
  out_ << x;
  return *this;
}
JsonWriter& JsonWriter::value(uint64_t x) {
  separate();
  out_ << x;
  return *this;
}
JsonWriter& JsonWriter::value(double x) {
  separate();
  if (!std::isfinite(x)) {
    out_ << "null";
    return *this;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", x);
  out_ << buf;
  return *this;
}
JsonWriter& JsonWriter::value(bool b) {
  separate();
  out_ << (b ? "true" : "false");
  return *this;
}
JsonWriter& JsonWriter::null() {
  separate();
  out_ << "null";
  return *this;
}
JsonWriter& JsonWriter::raw(std::string_view json) {
  separate();
  out_ << json;
  return *this;
}

void JsonWriter::tensor_rec(const float* data, const Shape& shape, size_t dim) {
  if (dim == shape.size()) {
    value(static_cast<double>(*data));
    return;
  }
  int64_t stride = 1;
  for (size_t d = dim + 1; d < shape.size(); ++d) stride *= shape[d];
  begin_array();
  for (int64_t i = 0; i < shape[dim]; ++i) tensor_rec(data + i * stride, shape, dim + 1);
  end_array();
}

JsonWriter& JsonWriter::tensor(const TensorView& t) {
  if (t.data == nullptr) return null();  // an empty Tensor (no shape, no data): nothing to read
  tensor_rec(t.data, t.shape, 0);
  return *this;
}

}  // namespace tfp::cli
