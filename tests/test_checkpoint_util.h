// Helpers shared by the checkpoint tests: fixture paths, expected.json, and comparing a
// tensor with nested JSON arrays under a max-abs-error tolerance.
#pragma once
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

#include "api/tfp_api.h"
#include "core/tensor.h"
#include "io/file.h"

namespace tfp::testing {

inline std::string checkpoint_dir(const std::string& name) {
  return std::string(TFP_FIXTURES_DIR) + "/checkpoints/" + name;
}

// A model folder (config.json, model.safetensors and, with_tokenizer, tokenizer.json)
// opened through the C API from memory, as the page opens a user's files; `weights`
// replaces the folder's model.safetensors when given.
inline tfp_model* open_through_api(const std::string& dir, const std::string& source, bool with_tokenizer = true,
                                   const std::vector<uint8_t>* weights = nullptr) {
  const std::string config = io::read_text_file(dir + "/config.json");
  const std::string tok = with_tokenizer ? io::read_text_file(dir + "/tokenizer.json") : std::string();
  const std::vector<uint8_t> own = weights ? std::vector<uint8_t>() : io::read_file(dir + "/model.safetensors");
  const std::vector<uint8_t>& w = weights ? *weights : own;
  tfp_model* m = nullptr;
  const int status = tfp_model_load_buffers(config.data(), config.size(), w.data(), w.size(),
                                            with_tokenizer ? tok.data() : nullptr, tok.size(), source.c_str(), &m);
  INFO(tfp_last_error());
  REQUIRE(status == TFP_OK);
  return m;
}

inline nlohmann::json read_json(const std::string& path) {
  const nlohmann::json j = nlohmann::json::parse(io::read_text_file(path), nullptr, false);
  REQUIRE_FALSE(j.is_discarded());
  return j;
}

inline void flatten(const nlohmann::json& j, std::vector<double>& out, Shape& shape, size_t depth = 0) {
  if (j.is_array()) {
    if (shape.size() <= depth) shape.push_back(static_cast<int64_t>(j.size()));
    for (const auto& x : j) flatten(x, out, shape, depth + 1);
  } else {
    out.push_back(j.get<double>());
  }
}

// Max |got - expected| over every element; shapes must match exactly.
inline double max_abs_diff(const TensorView& got, const nlohmann::json& expected) {
  std::vector<double> want;
  Shape shape;
  flatten(expected, want, shape);
  REQUIRE(got.shape == shape);
  double worst = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const double d = std::fabs(static_cast<double>(got.data[i]) - want[i]);
    worst = std::isnan(d) ? INFINITY : std::max(worst, d);
  }
  return worst;
}

template <typename T>
std::vector<T> json_list(const nlohmann::json& j) {
  return j.get<std::vector<T>>();
}

}  // namespace tfp::testing
