#include "io/json_excerpt.h"

#include <vector>

namespace tfp::io {

namespace {

using nlohmann::json;

// Appends `v` to `out` until `out` holds more than `budget` characters. Iterative (an
// explicit stack of the containers being walked), so any depth is safe.
void put(const json& root, std::string& out, size_t budget) {
  struct Open {
    const json* v;
    json::const_iterator it;
    bool first;
  };
  std::vector<Open> stack;
  auto scalar = [&](const json& v) {
    if (v.is_string() && v.get_ref<const std::string&>().size() > budget) {
      // Only as much of a long string as can be shown.
      out += json(v.get_ref<const std::string&>().substr(0, budget)).dump(-1, ' ', false, json::error_handler_t::replace);
    } else {
      out += v.dump(-1, ' ', false, json::error_handler_t::replace);
    }
  };
  auto open = [&](const json& v) {
    if (!v.is_structured()) return scalar(v);
    out += v.is_object() ? '{' : '[';
    stack.push_back({&v, v.cbegin(), true});
  };
  open(root);
  while (!stack.empty() && out.size() <= budget) {
    Open& top = stack.back();
    if (top.it == top.v->cend()) {
      out += top.v->is_object() ? '}' : ']';
      stack.pop_back();
      continue;
    }
    if (!top.first) out += ", ";
    top.first = false;
    if (top.v->is_object()) out += json(top.it.key()).dump(-1, ' ', false, json::error_handler_t::replace) + ": ";
    const json& child = *top.it;
    ++top.it;
    open(child);  // may push: `top` is not used after this
  }
}

}  // namespace

std::string text_excerpt(std::string_view s, size_t max_chars) {
  if (s.size() <= max_chars) return std::string(s);
  size_t cut = max_chars;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 character
  return std::string(s.substr(0, cut)) + "…";
}

std::string json_excerpt(const json& v, size_t max_chars) {
  std::string out;
  put(v, out, max_chars);
  return text_excerpt(out, max_chars);
}

}  // namespace tfp::io
