// Command-line arguments of one sub-command: positionals, "--name value" options and
// "--flag" switches, each checked against what the command accepts. An option is "--"
// and a letter; any other argument ("---", "-->", "-", "x") is positional. A lone "--"
// ends the options: everything after it is positional, even "--attention".
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace tfp::cli {

struct Args {
  std::vector<std::string> positional;
  std::map<std::string, std::string> options;  // "--ids" → "1,2,3"
  std::set<std::string> flags;                 // "--attention"

  bool has(const std::string& name) const { return options.count(name) || flags.count(name); }
  std::optional<std::string> get(const std::string& name) const;
  // Typed option values; throw tfp::Error "--top-k: 'x' is not an integer".
  int64_t get_int(const std::string& name, int64_t fallback) const;
  uint64_t get_u64(const std::string& name, uint64_t fallback) const;
  float get_float(const std::string& name, float fallback) const;
};

// n_positional for a command that checks the count itself.
inline constexpr size_t kAnyPositionals = static_cast<size_t>(-1);

// Throws tfp::Error naming an unknown option, a missing value or a wrong positional count.
Args parse_args(const std::vector<std::string>& argv, size_t first, const std::string& command,
                size_t n_positional, const std::set<std::string>& value_options,
                const std::set<std::string>& flag_options, const char* unknown_hint = nullptr);

// "1,2,3" → {1, 2, 3}; throws naming the option on anything else.
std::vector<int32_t> parse_int_list(const std::string& option, const std::string& text);

}  // namespace tfp::cli
