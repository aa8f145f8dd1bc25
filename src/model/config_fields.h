// Typed, exception-free reading of one config.json object, shared by every family's
// config mapping (model/config_json.cpp, model/family_*.cpp): each failure names the file,
// the family and the field, and no nlohmann exception escapes.
#pragma once
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "io/json_excerpt.h"
#include "nn/feed_forward.h"

namespace tfp::model {

using nlohmann::json;

// Typed, exception-free access to the fields of one config object. Every failure names
// the file, the family and the field.
struct Fields {
  const json& j;
  const std::string& source;
  const char* family;

  const json* find(const char* key) const {
    const auto it = j.find(key);
    return it == j.end() || it->is_null() ? nullptr : &*it;
  }
  template <typename... Parts>
  [[noreturn]] void fail(const Parts&... parts) const {
    TFP_FAIL(source, ": ", family, " config ", parts...);
  }

  int64_t integer(const char* key) const {
    const json* v = find(key);
    if (!v) fail("needs integer \"", key, "\"");
    return integer_value(key, *v);
  }
  int64_t integer(const char* key, int64_t fallback) const {
    const json* v = find(key);
    return v ? integer_value(key, *v) : fallback;
  }
  int64_t integer_value(const char* key, const json& v) const {
    if (!v.is_number_integer()) fail("field \"", key, "\" must be an integer, got ", io::json_excerpt(v));
    if (v.is_number_unsigned() && v.get<uint64_t>() > (uint64_t{1} << 40))
      fail("field \"", key, "\" is too large: ", io::json_excerpt(v));
    const int64_t x = v.get<int64_t>();
    if (x < 0) fail("field \"", key, "\" must not be negative, got ", x);
    return x;
  }
  float number(const char* key, float fallback) const {
    const json* v = find(key);
    if (!v) return fallback;
    if (!v->is_number()) fail("field \"", key, "\" must be a number, got ", io::json_excerpt(*v));
    const double x = v->get<double>();
    if (!std::isfinite(x)) fail("field \"", key, "\" must be finite");
    // A double beyond float's range (1e112) would become inf here (found by fuzz_config).
    if (!std::isfinite(static_cast<float>(x))) fail("field \"", key, "\" is out of float range: ", io::json_excerpt(*v));
    return static_cast<float>(x);
  }
  double real(const char* key, double fallback) const {
    const json* v = find(key);
    if (!v) return fallback;
    if (!v->is_number()) fail("field \"", key, "\" must be a number, got ", io::json_excerpt(*v));
    const double x = v->get<double>();
    if (!std::isfinite(x)) fail("field \"", key, "\" must be finite");
    return x;
  }
  // A nested object (e.g. "rope_scaling"), or null when absent or null.
  const json* object(const char* key) const {
    const json* v = find(key);
    if (v && !v->is_object()) fail("field \"", key, "\" must be an object, got ", io::json_excerpt(*v));
    return v;
  }
  bool boolean(const char* key, bool fallback) const {
    const json* v = find(key);
    if (!v) return fallback;
    if (!v->is_boolean()) fail("field \"", key, "\" must be true or false, got ", io::json_excerpt(*v));
    return v->get<bool>();
  }
  std::string string(const char* key, const char* fallback) const {
    const json* v = find(key);
    if (!v) {
      if (!fallback) fail("needs string \"", key, "\"");
      return fallback;
    }
    if (!v->is_string()) fail("field \"", key, "\" must be a string, got ", io::json_excerpt(*v));
    return v->get<std::string>();
  }
  // "id2label": {"0": "NOUN", "1": "VERB", ...} → the names by id; the ids must be
  // 0 … n−1, each once (as Hugging Face writes them).
  std::vector<std::string> labels() const {
    const json* v = find("id2label");
    if (!v) return {};
    if (!v->is_object()) fail("field \"id2label\" must be an object of id → name, got ", io::json_excerpt(*v));
    std::vector<std::string> names(v->size());
    std::vector<bool> seen(v->size());
    for (auto it = v->begin(); it != v->end(); ++it) {
      const std::string& key = it.key();
      const bool digits = !key.empty() && key.size() < 10 &&
                          key.find_first_not_of("0123456789") == std::string::npos;
      const size_t id = digits ? std::stoul(key) : names.size();
      if (id >= names.size() || seen[id])
        fail("field \"id2label\": key \"", io::text_excerpt(key), "\" is not one of the ids 0..", names.size() - 1, " (each once)");
      if (!it.value().is_string()) fail("field \"id2label\": label ", key, " must be a string, got ", io::json_excerpt(it.value()));
      names[id] = it.value().get<std::string>();
      seen[id] = true;
    }
    return names;
  }
  nn::Activation activation(const char* key, const char* fallback) const {
    const std::string name = string(key, fallback);
    try {
      return nn::activation_from_string(name);
    } catch (const Error&) {
      fail("field \"", key, "\": unsupported activation \"", io::text_excerpt(name),
           "\" (supported: relu, gelu, gelu_new, gelu_pytorch_tanh, silu)");
    }
  }
};

}  // namespace tfp::model
