#include "cli/text_input.h"

#include <iterator>

#include "core/error.h"
#include "io/file.h"

namespace tfp::cli {

std::string TextInput::read(const std::string& command, const std::string& option, const std::string& path) {
  if (path == "-") {
    TFP_CHECK(!stdin_read_, command, ": ", option, ": standard input ('-') was already read by another option");
    stdin_read_ = true;
    std::string text{std::istreambuf_iterator<char>(in_), std::istreambuf_iterator<char>()};
    TFP_CHECK(!in_.bad(), command, ": ", option, ": cannot read standard input");
    return text;
  }
  TFP_CHECK(!path.empty(), command, ": ", option, ": empty path (give a file, or - for standard input)");
  TFP_CHECK(!io::dir_exists(path), command, ": ", option, ": '", path, "' is a folder, expected a file");
  TFP_CHECK(io::file_exists(path), command, ": ", option, ": cannot read '", path, "' (no such file)");
  try {
    return io::read_text_file(path);
  } catch (const Error& e) {  // exists but unreadable (permissions, a device, ...)
    TFP_FAIL(command, ": ", option, ": cannot read '", path, "' (", e.what(), ")");
  }
}

std::optional<std::string> text_option(const Args& a, const std::string& command, const char* text_opt,
                                       const char* file_opt, TextInput& input) {
  TFP_CHECK(!(a.has(text_opt) && a.has(file_opt)), command, ": give one of ", text_opt, " and ", file_opt,
            ", not both");
  if (a.has(text_opt)) return *a.get(text_opt);
  if (a.has(file_opt)) return input.read(command, file_opt, *a.get(file_opt));
  return std::nullopt;
}

std::optional<std::vector<int32_t>> token_ids_option(const Args& a, const std::string& command, const Tokenizer* tok,
                                                     const std::string& source, const char* ids_opt,
                                                     const char* text_opt, const char* file_opt, TextInput& input) {
  const int given = int{a.has(ids_opt)} + int{a.has(text_opt)} + int{a.has(file_opt)};
  TFP_CHECK(given <= 1, command, ": give only one of ", ids_opt, ", ", text_opt, " and ", file_opt);
  if (given == 0) return std::nullopt;
  if (a.has(ids_opt)) return parse_int_list(ids_opt, *a.get(ids_opt));
  const char* used = a.has(text_opt) ? text_opt : file_opt;
  TFP_CHECK(tok != nullptr, command, ": ", used, " needs a tokenizer.json in '", source, "' (or give ", ids_opt, ")");
  return tok->encode(*text_option(a, command, text_opt, file_opt, input)).ids;
}

std::vector<int32_t> decoder_ids(const Args& a, const Tokenizer* tok, const std::string& source, int64_t start_id,
                                 TextInput& input) {
  std::optional<std::vector<int32_t>> ids =
      token_ids_option(a, "forward", tok, source, "--decoder-ids", "--decoder-text", "--decoder-text-file", input);
  TFP_CHECK(ids.has_value(), "forward: an encoder-decoder model needs the decoder's input too: --decoder-ids 1,2,3",
            start_id >= 0 ? " (starting with its decoder start token " + std::to_string(start_id) + ")" : "",
            ", --decoder-text TEXT or --decoder-text-file PATH");
  TFP_CHECK(!ids->empty(), "forward: no decoder input tokens");
  return std::move(*ids);
}

void write_tokens(JsonWriter& w, const char* key, const Tokenizer* tok, const std::vector<int32_t>& ids) {
  if (!tok) return;
  std::vector<std::string> tokens;
  for (int32_t id : ids) tokens.push_back(tok->id_to_token(id));
  w.key(key).values(tokens);
}

void alias_option(Args& a, const std::string& command, const char* old_name, const char* name) {
  const auto it = a.options.find(old_name);
  if (it == a.options.end()) return;
  TFP_CHECK(!a.options.count(name), command, ": give ", name, " or its older name ", old_name, ", not both");
  a.options[name] = it->second;
  a.options.erase(it);
}

}  // namespace tfp::cli
