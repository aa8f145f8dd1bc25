// Issue 32 through the tfp tool: an encoder–decoder whose config turns its LM head off (a
// segmentation fault in `tfp forward` before), and a config nested 100,000 levels deep (a
// stack overflow before) give output or a message. Folders made here from the fixtures.
#include <doctest/doctest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "io/file.h"
#include "test_checkpoint_util.h"
#include "test_cli_util.h"
#include "test_config_limits_util.h"

using namespace tfp;
using tfp::testing::checkpoint_dir;
using tfp::testing::gpt2_config_with;
using tfp::testing::nested;

namespace {

// A folder holding `from`'s files with its config.json replaced.
std::string folder_with_config(const std::string& from, const std::string& name, const std::string& config) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("tfp_config_limits_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const auto& e : fs::directory_iterator(from))
    if (e.path().filename() != "config.json" && e.is_regular_file()) fs::copy_file(e.path(), dir / e.path().filename());
  io::write_file((dir / "config.json").string(), config.data(), config.size());
  return dir.string();
}

}  // namespace

TEST_CASE("cli: an encoder-decoder whose config turns its LM head off: forward prints hidden states, translate refuses") {
  const std::string shipped = tfp::testing::repo_dir() + "/models/numbers-transformer";
  nlohmann::json c = nlohmann::json::parse(io::read_text_file(shipped + "/config.json"));
  c["lm_head"] = false;
  c["tied_lm_head"] = false;
  const std::string dir = folder_with_config(shipped, "no_lm_head", c.dump());
  const tfp::testing::CliRun r = tfp::testing::run_cli({"forward", dir, "--text", "forty two", "--decoder-ids", "2,5"});
  REQUIRE(r.code == 0);
  const nlohmann::json j = r.json();
  CHECK_FALSE(j.contains("logits"));
  REQUIRE(j.contains("hidden"));
  CHECK(j["hidden"].size() == 2);
  CHECK(j["hidden"][0].size() == 64);
  const tfp::testing::CliRun g = tfp::testing::run_cli({"generate", dir, "--prompt", "forty two"});
  CHECK(g.code == 1);
  CHECK(g.error() == "translate: needs an encoder-decoder model with token embeddings and an LM head, this one is "
                     "encoder_decoder without an LM head");
  std::filesystem::remove_all(dir);
}

TEST_CASE("cli: a config nested 100,000 levels deep is a message from info and forward") {
  const std::string dir =
      folder_with_config(checkpoint_dir("gpt2_tiny"), "deep", gpt2_config_with("n_embd", nested(100000)));
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"info", dir}, {"forward", dir, "--ids", "1,2"}}) {
    const tfp::testing::CliRun r = tfp::testing::run_cli(args);
    CHECK(r.code == 1);
    CHECK(r.error().find("config.json: JSON nested 100001 levels deep") != std::string::npos);
  }
  std::filesystem::remove_all(dir);
}
