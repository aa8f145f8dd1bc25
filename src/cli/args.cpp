#include "cli/args.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "core/error.h"

namespace tfp::cli {

std::optional<std::string> Args::get(const std::string& name) const {
  const auto it = options.find(name);
  if (it == options.end()) return std::nullopt;
  return it->second;
}

int64_t Args::get_int(const std::string& name, int64_t fallback) const {
  const auto v = get(name);
  if (!v) return fallback;
  errno = 0;
  char* end = nullptr;
  const long long x = std::strtoll(v->c_str(), &end, 10);
  TFP_CHECK(!v->empty() && *end == '\0' && errno == 0, name, ": '", *v, "' is not an integer");
  return x;
}

uint64_t Args::get_u64(const std::string& name, uint64_t fallback) const {
  const auto v = get(name);
  if (!v) return fallback;
  errno = 0;
  char* end = nullptr;
  const unsigned long long x = std::strtoull(v->c_str(), &end, 10);
  TFP_CHECK(!v->empty() && (*v)[0] != '-' && *end == '\0' && errno == 0, name, ": '", *v,
            "' is not a non-negative integer");
  return x;
}

float Args::get_float(const std::string& name, float fallback) const {
  const auto v = get(name);
  if (!v) return fallback;
  char* end = nullptr;
  const double x = std::strtod(v->c_str(), &end);
  TFP_CHECK(!v->empty() && *end == '\0' && std::isfinite(x), name, ": '", *v, "' is not a number");
  return static_cast<float>(x);
}

Args parse_args(const std::vector<std::string>& argv, size_t first, const std::string& command,
                size_t n_positional, const std::set<std::string>& value_options,
                const std::set<std::string>& flag_options, const char* unknown_hint) {
  Args a;
  bool options_ended = false;
  for (size_t i = first; i < argv.size(); ++i) {
    const std::string& s = argv[i];
    if (options_ended) {
      a.positional.push_back(s);
    } else if (s == "--") {  // the end of the options: "tfp tokenize DIR -- ---"
      options_ended = true;
    } else if (s.size() > 2 && s.starts_with("--") && std::isalpha(static_cast<unsigned char>(s[2]))) {
      if (flag_options.count(s)) {
        a.flags.insert(s);
      } else if (value_options.count(s)) {
        TFP_CHECK(i + 1 < argv.size(), command, ": ", s, " needs a value");
        TFP_CHECK(!a.options.count(s), command, ": ", s, " given twice");
        a.options[s] = argv[++i];
      } else {
        TFP_FAIL(command, ": unknown option ", s, unknown_hint ? " (" : "", unknown_hint ? unknown_hint : "",
                 unknown_hint ? ")" : "");
      }
    } else {
      a.positional.push_back(s);
    }
  }
  TFP_CHECK(n_positional == kAnyPositionals || a.positional.size() == n_positional, command, ": expected ",
            n_positional, " argument", n_positional == 1 ? "" : "s", ", got ", a.positional.size(),
            " (see tfp --help)");
  return a;
}

std::vector<int32_t> parse_int_list(const std::string& option, const std::string& text) {
  std::vector<int32_t> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    if (comma == std::string::npos) comma = text.size();
    const std::string item = text.substr(pos, comma - pos);
    errno = 0;
    char* end = nullptr;
    const long long x = std::strtoll(item.c_str(), &end, 10);
    TFP_CHECK(!item.empty() && *end == '\0' && errno == 0 && x >= std::numeric_limits<int32_t>::min() &&
                  x <= std::numeric_limits<int32_t>::max(),
              option, ": '", text, "' is not a comma-separated list of integers (item ", out.size(), ": '", item,
              "')");
    out.push_back(static_cast<int32_t>(x));
    pos = comma + 1;
  }
  return out;
}

}  // namespace tfp::cli
