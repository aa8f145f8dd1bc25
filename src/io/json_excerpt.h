// A JSON value as an error message shows it: at most a few dozen characters, whatever the
// value holds (a field given a 10 MB string or an array of a million numbers is echoed by
// its first characters and "…", not in full), found without dumping the whole value.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace tfp::io {

inline constexpr size_t kJsonExcerptChars = 60;

// e.g. 1.5, "abc", [[[[[[[[[[[[[[[[[[…, {"a": 1, "b": [1, 2, 3…
std::string json_excerpt(const nlohmann::json& v, size_t max_chars = kJsonExcerptChars);

// A string from a file as a message quotes it (a "type" or a name): its first max_chars
// bytes, cut at a UTF-8 character's start, then "…".
std::string text_excerpt(std::string_view s, size_t max_chars = kJsonExcerptChars);

}  // namespace tfp::io
