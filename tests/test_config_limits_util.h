// What tests/test_config_limits.cpp and tests/test_cli_config_limits.cpp share: JSON nested
// deep, and gpt2_tiny's config.json with one field replaced.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "io/file.h"
#include "test_checkpoint_util.h"

namespace tfp::testing {

inline std::string nested(size_t depth, char open = '[', char close = ']') {
  return std::string(depth, open) + std::string(depth, close);
}

inline std::string nested_objects(size_t depth) {
  std::string s;
  for (size_t i = 0; i < depth; ++i) s += "{\"a\":";
  s += "1";
  s += std::string(depth, '}');
  return s;
}

// gpt2_tiny's config.json with `key` set to `value` (raw JSON text).
inline std::string gpt2_config_with(const std::string& key, const std::string& value) {
  nlohmann::json j = nlohmann::json::parse(io::read_text_file(checkpoint_dir("gpt2_tiny") + "/config.json"));
  std::string text = j.dump();
  const std::string field = "\"" + key + "\":";
  const size_t at = text.find(field);
  if (at == std::string::npos) return "{" + field + value + "," + text.substr(1);
  size_t end = at + field.size();
  // The old value: a scalar (these fields are numbers, strings, null) up to the next , or }.
  while (end < text.size() && text[end] != ',' && text[end] != '}') ++end;
  return text.substr(0, at) + field + value + text.substr(end);
}

}  // namespace tfp::testing
