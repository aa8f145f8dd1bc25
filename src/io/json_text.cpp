#include "io/json_text.h"

#include <nlohmann/json.hpp>

namespace tfp::io {

std::string json_syntax_error(std::string_view text) {
  try {
    [[maybe_unused]] const nlohmann::json parsed = nlohmann::json::parse(text.begin(), text.end());
    return {};
  } catch (const nlohmann::json::parse_error& e) {
    // what() = "[json.exception.parse_error.101] parse error at line L, column C: ..."
    const std::string what = e.what();
    const size_t at = what.find("parse error ");
    return at == std::string::npos ? what : what.substr(at + 12);
  } catch (const nlohmann::json::exception& e) {
    // Not a syntax error: a number too large for a double ("[json.exception.out_of_range.406]
    // number overflow parsing '1e999'"). Found by fuzz/fuzz_tokenizer_json.
    const std::string what = e.what();
    const size_t at = what.find("] ");
    return at == std::string::npos ? what : what.substr(at + 2);
  }
}

}  // namespace tfp::io
