// How deep a JSON text nests, found by a scan before it is parsed: nlohmann's parser is
// iterative, but copying, comparing and dumping a parsed value recurse once per level, so a
// value nested 100,000 levels deep (an array in place of a config field) overflowed the
// stack (issue 32). Every JSON the engine reads (config.json, tokenizer.json, the
// safetensors header, the shard index, the trainer's options) is checked here first.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace tfp::io {

// Deeper than any file Hugging Face writes (a config or tokenizer.json nests < 10 levels);
// serde_json, which Hugging Face's tokenizers parse with, stops at 128 too.
inline constexpr size_t kMaxJsonDepth = 128;

struct JsonNesting {
  size_t depth = 0;  // the deepest level of arrays and objects (0: a scalar)
  size_t at = 0;     // the byte where that depth is first reached
};

// One pass over `text` that skips strings (escapes included); brackets are not matched
// (a malformed text is the parser's to report), only counted.
JsonNesting json_nesting(std::string_view text);

// Throws tfp::Error "<source>: JSON nested <depth> levels deep (at byte <at>); at most 128
// are read" when `text` nests deeper than kMaxJsonDepth.
void check_json_depth(std::string_view text, const std::string& source);

}  // namespace tfp::io
