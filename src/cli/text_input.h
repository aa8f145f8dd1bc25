// Texts the CLI reads from somewhere other than its own arguments: `--text-file PATH`
// reads a file's bytes exactly as they are (NUL bytes, invalid UTF-8, any length, a final
// newline included), and PATH "-" reads standard input (a text argument "-" stays a
// hyphen). A text given as an argument can hold neither a NUL byte nor more than the
// system's argument limit (about 2 MB on Linux, 128 kB for one argument); a file or a
// pipe can.
#pragma once
#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <vector>

#include "cli/args.h"
#include "cli/json_writer.h"
#include "tokenizer/tokenizer.h"

namespace tfp::cli {

class TextInput {
 public:
  explicit TextInput(std::istream& in) : in_(in) {}

  // The bytes of `path`, or of standard input for "-" (once per command: a second "-"
  // is an error, not an empty text). Errors name the option and the path:
  //   "tokenize: --text-file: cannot read 'x.txt' (no such file)".
  std::string read(const std::string& command, const std::string& option, const std::string& path);

 private:
  std::istream& in_;
  bool stdin_read_ = false;
};

// The one text given by `text_opt` (the text itself) or `file_opt` (a file, "-" = stdin);
// nothing when neither is given; an error when both are.
std::optional<std::string> text_option(const Args& a, const std::string& command, const char* text_opt,
                                       const char* file_opt, TextInput& input);

// Token ids from at most one of ids_opt ("1,2,3"), text_opt (a text, tokenised with
// `tok`, special tokens added as the tokenizer's post-processor says) and file_opt (a
// file's text, tokenised); nothing when none is given. A text needs a tokenizer: the
// error names the folder `source`.
std::optional<std::vector<int32_t>> token_ids_option(const Args& a, const std::string& command, const Tokenizer* tok,
                                                     const std::string& source, const char* ids_opt,
                                                     const char* text_opt, const char* file_opt, TextInput& input);

// The decoder's input of an encoder–decoder forward pass: exactly one of --decoder-ids,
// --decoder-text and --decoder-text-file (the error names the decoder start token, which
// the ids should begin with, when the model has one).
std::vector<int32_t> decoder_ids(const Args& a, const Tokenizer* tok, const std::string& source, int64_t start_id,
                                 TextInput& input);

// `key`: the tokens' strings, when there is a tokenizer (nothing is written otherwise).
void write_tokens(JsonWriter& w, const char* key, const Tokenizer* tok, const std::vector<int32_t>& ids);

// Renames an option given under its older name (--tgt-ids → --decoder-ids); both is an error.
void alias_option(Args& a, const std::string& command, const char* old_name, const char* name);

}  // namespace tfp::cli
