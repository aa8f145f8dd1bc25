#include "io/json_depth.h"

#include "core/error.h"

namespace tfp::io {

JsonNesting json_nesting(std::string_view text) {
  JsonNesting n;
  size_t depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;  // the escaped character, whatever it is
      else if (c == '"') in_string = false;
      continue;
    }
    switch (c) {
      case '"': in_string = true; break;
      case '[':
      case '{':
        if (++depth > n.depth) n = {depth, i};
        break;
      case ']':
      case '}':
        if (depth > 0) --depth;
        break;
      default: break;
    }
  }
  return n;
}

void check_json_depth(std::string_view text, const std::string& source) {
  const JsonNesting n = json_nesting(text);
  TFP_CHECK(n.depth <= kMaxJsonDepth, source, ": JSON nested ", n.depth, " levels deep (at byte ", n.at,
            "); at most ", kMaxJsonDepth, " are read");
}

}  // namespace tfp::io
