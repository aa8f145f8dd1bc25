// Shared by the libFuzzer targets in fuzz/: how an input is split into files, and the
// one rule every target enforces — the engine reports bad input as a tfp::Error (what
// the C API turns into a status and a message); anything else that escapes (an nlohmann
// exception, std::out_of_range, std::bad_alloc from a size taken on trust), a sanitizer
// report or a failed invariant below is a finding.
//
// Several targets take more than one file. Their inputs are the files joined by
// kFileSeparator (a line no JSON, safetensors header or tokenizer text in the seeds
// contains); fuzz/make_corpus.py writes the seeds in that form.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

namespace tfp::fuzz {

inline constexpr std::string_view kFileSeparator = "\n--tfp-fuzz-file--\n";

// The input cut at each separator: {config, weights, ...}. At most `max_parts`; the
// last part keeps any further separators.
inline std::vector<std::string_view> split_files(const uint8_t* data, size_t size, size_t max_parts) {
  std::vector<std::string_view> parts;
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  while (parts.size() + 1 < max_parts) {
    const size_t at = rest.find(kFileSeparator);
    if (at == std::string_view::npos) break;
    parts.push_back(rest.substr(0, at));
    rest.remove_prefix(at + kFileSeparator.size());
  }
  parts.push_back(rest);
  return parts;
}

inline std::vector<uint8_t> bytes_of(std::string_view s) { return std::vector<uint8_t>(s.begin(), s.end()); }

// An invariant the engine promises; a violation aborts, which libFuzzer reports as a crash.
#define TFP_FUZZ_ASSERT(cond)                                                        \
  do {                                                                               \
    if (!(cond)) {                                                                   \
      std::fprintf(stderr, "%s:%d: fuzz invariant failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                  \
    }                                                                                \
  } while (0)

// The longest refusal a target accepts. Messages quote what the file holds by a bounded
// prefix (io::text_excerpt) and list the first problems and a count, so none comes near
// this; a value echoed in full (the soak's 512 KiB dtype, a 1 MB tensor name) does.
inline constexpr size_t kMaxMessageBytes = 16 * 1024;

// A refused input, printed when TFP_FUZZ_VERBOSE is set (to see why a seed stops early).
// Its message must be bounded (kMaxMessageBytes): an echo of a long value is a finding.
inline void refused(const std::exception& e) {
  static const bool verbose = std::getenv("TFP_FUZZ_VERBOSE") != nullptr;
  if (verbose) std::fprintf(stderr, "refused: %s\n", e.what());
  const size_t bytes = std::string_view(e.what()).size();
  if (bytes > kMaxMessageBytes) {
    std::fprintf(stderr, "refused with a %zu-byte message (at most %zu): %.200s...\n", bytes, kMaxMessageBytes,
                 e.what());
  }
  TFP_FUZZ_ASSERT(bytes <= kMaxMessageBytes);
}

}  // namespace tfp::fuzz
