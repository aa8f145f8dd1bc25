#include "io/json_text.h"

#include <nlohmann/json.hpp>

#include "io/json_excerpt.h"

namespace tfp::io {

namespace {

// nlohmann quotes the token it stopped at whole ("...; last read: '<token>'", "number
// overflow parsing '<number>'"): a 600 KB string made a 600 KB message (issue 32's soak).
// The quoted token after `marker` keeps its first characters (text_excerpt); a message
// without the marker is cut to 400 bytes.
std::string bound_quote(const std::string& what, std::string_view marker) {
  const size_t at = what.find(marker);
  if (at == std::string::npos) return text_excerpt(what, 400);
  const size_t from = at + marker.size();
  // The token ends at the last quote: nlohmann may add "; expected <token type>" after it.
  size_t end = what.rfind('\'');
  if (end == std::string::npos || end < from) end = what.size();
  const std::string_view token = std::string_view(what).substr(from, end - from);
  return what.substr(0, from) + text_excerpt(token) + what.substr(end);
}

}  // namespace

std::string json_syntax_error(std::string_view text) {
  try {
    [[maybe_unused]] const nlohmann::json parsed = nlohmann::json::parse(text.begin(), text.end());
    return {};
  } catch (const nlohmann::json::parse_error& e) {
    // what() = "[json.exception.parse_error.101] parse error at line L, column C: ..."
    const std::string what = e.what();
    const size_t at = what.find("parse error ");
    return bound_quote(at == std::string::npos ? what : what.substr(at + 12), "; last read: '");
  } catch (const nlohmann::json::exception& e) {
    // Not a syntax error: a number too large for a double ("[json.exception.out_of_range.406]
    // number overflow parsing '1e999'"). Found by fuzz/fuzz_tokenizer_json.
    const std::string what = e.what();
    const size_t at = what.find("] ");
    return bound_quote(at == std::string::npos ? what : what.substr(at + 2), " parsing '");
  }
}

}  // namespace tfp::io
