// Type-checked field readers for tokenizer.json (internal to src/tokenizer). nlohmann's
// get<> would throw its own exception on a wrong type; these check first and name the
// file and the field ("llama/tokenizer.json: normalizer.normalizers[1].content is not a
// string").
#pragma once
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "io/json_excerpt.h"

namespace tfp {

struct JsonReader {
  const std::string& source;
  using json = nlohmann::json;

  const json& field(const json& obj, const char* key, const std::string& where) const {
    TFP_CHECK(obj.is_object(), source, ": ", where, " is not an object");
    auto it = obj.find(key);
    TFP_CHECK(it != obj.end(), source, ": ", where, " lacks \"", key, "\"");
    return *it;
  }
  std::string str(const json& obj, const char* key, const std::string& where) const {
    const json& v = field(obj, key, where);
    TFP_CHECK(v.is_string(), source, ": ", where, ".", key, " is not a string");
    return v.get<std::string>();
  }
  // Optional: missing or null gives `fallback`.
  bool flag(const json& obj, const char* key, bool fallback, const std::string& where) const {
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) return fallback;
    TFP_CHECK(it->is_boolean(), source, ": ", where, ".", key, " is not true/false");
    return it->get<bool>();
  }
  std::string opt_str(const json& obj, const char* key, const std::string& fallback, const std::string& where) const {
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) return fallback;
    TFP_CHECK(it->is_string(), source, ": ", where, ".", key, " is not a string");
    return it->get<std::string>();
  }
  uint64_t count(const json& obj, const char* key, uint64_t fallback, const std::string& where) const {
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) return fallback;
    TFP_CHECK(it->is_number_unsigned() || (it->is_number_integer() && it->get<int64_t>() >= 0), source, ": ",
              where, ".", key, " is not a count");
    return it->get<uint64_t>();
  }
  // A token id: an integer in [0, id_bound()), the bound being what the file holds (its
  // model.vocab entries plus its added tokens, counted by load_tokenizer_json before any
  // id is read). Vocab and the added tokens size tables by id, so an id of 100,000,000 in
  // a 264-token file is refused here, by name, before anything is sized by it.
  bool valid_id(const json& v) const {
    return v.is_number_integer() && (v.is_number_unsigned() || v.get<int64_t>() >= 0) && v.get<uint64_t>() < id_bound();
  }
  int32_t id(const json& v, const std::string& where) const {
    TFP_CHECK(v.is_number_integer(), source, ": ", where, " is ", io::json_excerpt(v),
              ", not a token id (an integer)");
    TFP_CHECK(valid_id(v), source, ": ", where, " is ", io::json_excerpt(v), ", not a valid token id: ids must be below ",
              id_bound(), ", the number of model.vocab entries (", vocab_entries, ") and added tokens (",
              added_entries, ") the file holds");
    return static_cast<int32_t>(v.get<uint64_t>());
  }
  uint64_t vocab_entries = 0, added_entries = 0;  // set by load_tokenizer_json from the file
  uint64_t id_bound() const {
    constexpr uint64_t kMax = uint64_t{1} << 31;  // and an int32_t
    return vocab_entries + added_entries < kMax ? vocab_entries + added_entries : kMax;
  }
  const json& array(const json& obj, const char* key, const std::string& where) const {
    const json& v = field(obj, key, where);
    TFP_CHECK(v.is_array(), source, ": ", where, ".", key, " is not an array");
    return v;
  }
  std::string type_of(const json& obj, const std::string& where) const { return str(obj, "type", where); }
  // A string that must be exactly one character ("▁").
  char32_t one_char(const json& obj, const char* key, const std::string& where) const;
};

}  // namespace tfp
