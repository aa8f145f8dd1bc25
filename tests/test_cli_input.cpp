// How the tfp tool takes any text: "--" ends the options, --text-file reads a file's bytes
// as they are (a NUL byte, 200 kB — neither fits a command-line argument), --text-file -
// reads standard input; missing files are clear errors. Runs tfp::cli::run with a given stdin
// (tests/test_cli_util.h); the fixture is gpt2_tiny's byte-level BPE (byte 0 → "Ā" = id 0,
// "-" = id 45).
#include <doctest/doctest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "io/file.h"
#include "test_checkpoint_util.h"
#include "test_cli_util.h"

using tfp::testing::checkpoint_dir;
using tfp::testing::run_cli;

namespace {

// A scratch file that removes itself.
struct TempFile {
  std::string path;
  explicit TempFile(const std::string& name, const std::string& bytes)
      : path("/tmp/tfp_test_cli_" + std::to_string(reinterpret_cast<uintptr_t>(this)) + "_" + name) {
    tfp::io::write_file(path, bytes.data(), bytes.size());
  }
  ~TempFile() { std::remove(path.c_str()); }
};

const std::string kNul("a\0b", 3);

}  // namespace

TEST_CASE("cli input: -- ends the options; dashes that are no option are text") {
  const std::string dir = checkpoint_dir("gpt2_tiny");
  const nlohmann::json dashes = run_cli({"tokenize", dir, "--", "---"}).json();
  CHECK(dashes["ids"] == nlohmann::json({45, 45, 45}));
  CHECK(run_cli({"tokenize", dir, "---"}).json()["ids"] == dashes["ids"]);  // "---" is no option name
  CHECK(run_cli({"tokenize", dir, "-"}, "stdin is not read").json()["ids"] == nlohmann::json({45}));  // a hyphen
  CHECK(run_cli({"tokenize", dir, "--", "-"}).json()["ids"] == nlohmann::json({45}));
  // After --, an option's name is text too; before it, options still work.
  const nlohmann::json t = run_cli({"tokenize", dir, "--no-special-tokens", "--", "--attention"}).json();
  CHECK(t["tokens"][0] == "-");
  CHECK(t["ids"].size() >= 3);
  // forward and generate: -- ends their options (a positional after it is the folder).
  CHECK(run_cli({"forward", "--ids", "1,2", "--", dir}).code == 0);
  const tfp::testing::CliRun extra = run_cli({"tokenize", dir, "x", "--", "--ids"});
  CHECK(extra.code == 1);
  CHECK(extra.error() == "tokenize: expected DIR and TEXT (or DIR --text-file PATH), got 3 arguments (see tfp --help)");
  CHECK(run_cli({"tokenize", dir, "--colour"}).error() ==
        "tokenize: unknown option --colour (a text that starts with -- goes after --: tfp tokenize DIR -- --text)");
  CHECK(run_cli({"tokenize", dir, "--", "--colour"}).code == 0);
}

TEST_CASE("cli input: --text-file reads a NUL byte and 200 kB") {
  const std::string dir = checkpoint_dir("gpt2_tiny");
  const TempFile nul("nul.txt", kNul);
  const nlohmann::json tok = run_cli({"tokenize", dir, "--text-file", nul.path}).json();
  CHECK(tok["ids"] == nlohmann::json({97, 0, 98}));  // a, byte 0 (GPT-2's "Ā"), b
  CHECK(tok["offsets"][2] == nlohmann::json({2, 3}));
  // forward: the same as --ids of those tokens.
  const nlohmann::json f = run_cli({"forward", dir, "--text-file", nul.path}).json();
  CHECK(f["ids"] == tok["ids"]);
  CHECK(f["logits"] == run_cli({"forward", dir, "--ids", "97,0,98"}).json()["logits"]);
  // generate: the same as --ids.
  const nlohmann::json g =
      run_cli({"generate", dir, "--text-file", nul.path, "--max-tokens", "3", "--temperature", "0"}).json();
  CHECK(g["prompt_ids"] == tok["ids"]);
  CHECK(g["ids"] ==
        run_cli({"generate", dir, "--ids", "97,0,98", "--max-tokens", "3", "--temperature", "0"}).json()["ids"]);

  // 200 kB (more than one command-line argument may hold on Linux, 128 kB).
  std::string big;
  while (big.size() < 200000) big += "the cat sat. ";
  big.resize(200000);
  const TempFile large("large.txt", big);
  const nlohmann::json t = run_cli({"tokenize", dir, "--text-file", large.path}).json();
  REQUIRE(t["offsets"].size() == t["ids"].size());
  CHECK(t["ids"].size() > 50000);
  CHECK(t["offsets"].back()[1] == 200000);  // every byte covered, none lost
  // Longer than the model's context (32): a clear error naming it, no crash.
  const tfp::testing::CliRun too_long = run_cli({"forward", dir, "--text-file", large.path});
  CHECK(too_long.code == 1);
  CHECK(too_long.out.empty());
  CHECK(too_long.error().find("32") != std::string::npos);
}

TEST_CASE("cli input: --text-file - reads standard input") {
  const std::string dir = checkpoint_dir("gpt2_tiny");
  const nlohmann::json want = run_cli({"tokenize", dir, " the cat"}).json();
  CHECK(run_cli({"tokenize", dir, "--text-file", "-"}, " the cat").json()["ids"] == want["ids"]);
  CHECK(run_cli({"tokenize", dir, "--text-file", "-"}, kNul).json()["ids"] == nlohmann::json({97, 0, 98}));
  CHECK(run_cli({"forward", dir, "--text-file", "-"}, " the cat").json()["ids"] == want["ids"]);
  const nlohmann::json g =
      run_cli({"generate", dir, "--text-file", "-", "--max-tokens", "6", "--temperature", "0"}, " tHel").json();
  const nlohmann::json p =
      run_cli({"generate", dir, "--prompt", " tHel", "--max-tokens", "6", "--temperature", "0"}).json();
  CHECK(g["prompt_ids"] == p["prompt_ids"]);
  CHECK(g["ids"] == p["ids"]);
  // An empty standard input is an empty text.
  CHECK(run_cli({"tokenize", dir, "--text-file", "-"}, "").json()["ids"] == nlohmann::json::array());
  // Standard input is read once: a second "-" in the same command is an error, not "".
  const std::string enc_dec = std::string(TFP_FIXTURES_DIR) + "/../../models/numbers-transformer";
  const tfp::testing::CliRun twice =
      run_cli({"forward", enc_dec, "--text-file", "-", "--decoder-text-file", "-"}, "forty-two");
  CHECK(twice.code == 1);
  CHECK(twice.error() == "forward: --decoder-text-file: standard input ('-') was already read by another option");
}

TEST_CASE("cli input: a missing or unreadable text file is a clear error") {
  const std::string dir = checkpoint_dir("gpt2_tiny");
  auto fails = [](std::vector<std::string> args, const std::string& message) {
    const tfp::testing::CliRun r = run_cli(std::move(args));
    CHECK(r.code == 1);
    CHECK(r.out.empty());
    CHECK(r.error() == message);
  };
  fails({"tokenize", dir, "--text-file", "/nonexistent/t.txt"},
        "tokenize: --text-file: cannot read '/nonexistent/t.txt' (no such file)");
  fails({"forward", dir, "--text-file", "/nonexistent/t.txt"},
        "forward: --text-file: cannot read '/nonexistent/t.txt' (no such file)");
  fails({"generate", dir, "--text-file", "/nonexistent/t.txt"},
        "generate: --text-file: cannot read '/nonexistent/t.txt' (no such file)");
  fails({"tokenize", dir, "--text-file", dir}, "tokenize: --text-file: '" + dir + "' is a folder, expected a file");
  fails({"tokenize", dir, "--text-file", ""},
        "tokenize: --text-file: empty path (give a file, or - for standard input)");
  fails({"tokenize", dir, "--text-file", "x", "y"},
        "tokenize: expected DIR alone with --text-file, got 2 arguments (see tfp --help)");
  fails({"forward", dir, "--text", "a", "--text-file", "x"}, "forward: give only one of --ids, --text and --text-file");
  fails({"generate", dir, "--prompt", "a", "--ids", "1"}, "generate: give only one of --ids, --prompt and --text-file");
}

#ifndef __EMSCRIPTEN__
#include <sys/wait.h>

// The built binary itself (main.cpp forwards argv and the real standard input), when the
// native build folder has it: a pipe into --text-file -, and "--" through a real argv.
TEST_CASE("cli input: the tfp binary reads a pipe and honours --") {
  const std::string tfp = tfp::testing::repo_dir() + "/build/native/tfp";
  if (!tfp::io::file_exists(tfp)) {
    MESSAGE("skipped: no ", tfp);
    return;
  }
  auto shell = [](const std::string& cmd) {
    std::string out;
    FILE* p = popen(cmd.c_str(), "r");
    REQUIRE(p != nullptr);
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    const int status = pclose(p);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    return nlohmann::json::parse(out, nullptr, false);
  };
  const std::string dir = checkpoint_dir("gpt2_tiny");
  CHECK(shell("printf 'a\\000b' | '" + tfp + "' tokenize '" + dir + "' --text-file -")["ids"] ==
        nlohmann::json({97, 0, 98}));
  CHECK(shell("'" + tfp + "' tokenize '" + dir + "' -- --- </dev/null")["ids"] == nlohmann::json({45, 45, 45}));
}
#endif
