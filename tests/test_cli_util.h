// Runs the tfp tool's logic (tfp::cli::run, all of src/cli/ but main.cpp) in process, with
// a given standard input, and reads its JSON: shared by tests/test_cli_*.cpp.
#pragma once
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.h"

namespace tfp::testing {

struct CliRun {
  int code;
  std::string out, err;
  nlohmann::json json() const {
    const nlohmann::json j = nlohmann::json::parse(out, nullptr, false);
    INFO("stdout: ", out.substr(0, 300), " stderr: ", err);
    REQUIRE_FALSE(j.is_discarded());
    return j;
  }
  std::string error() const {
    const nlohmann::json j = nlohmann::json::parse(err, nullptr, false);
    REQUIRE(j.is_object());
    return j.value("error", std::string("(no error field)"));
  }
};

inline CliRun run_cli(const std::vector<std::string>& args, const std::string& stdin_text = "") {
  std::ostringstream out, err;
  std::istringstream in(stdin_text);
  const int code = tfp::cli::run(args, out, err, in);
  return {code, out.str(), err.str()};
}

// A JSON array of integers as the CLI's "1,2,3".
inline std::string csv(const nlohmann::json& a) {
  std::string s;
  for (const auto& x : a) {
    if (!s.empty()) s += ',';
    s += std::to_string(x.get<long long>());
  }
  return s;
}

// The repository's root (tests/fixtures/../..).
inline std::string repo_dir() { return std::string(TFP_FIXTURES_DIR) + "/../.."; }

}  // namespace tfp::testing
