// Where a JSON text stops being JSON, for error messages that point at the problem
// (config.json, tokenizer.json): nlohmann's parser reports the line and column.
#pragma once
#include <string>
#include <string_view>

namespace tfp::io {

// "" when `text` is valid JSON, else e.g. "at line 3, column 14: syntax error while parsing
// object - unexpected end of input; expected '}'".
std::string json_syntax_error(std::string_view text);

}  // namespace tfp::io
