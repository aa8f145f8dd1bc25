// tfp tokenize DIR (TEXT | --text-file PATH) — ids, tokens and offsets; DIR needs only
// tokenizer.json. TEXT is always the text itself ("-" is a hyphen); --text-file - reads
// standard input. After "--" every argument is text: "tfp tokenize DIR -- --help".
#include "cli/args.h"
#include "cli/commands.h"
#include "model/model.h"

namespace tfp::cli {

void cmd_tokenize(const std::vector<std::string>& argv, JsonWriter& w, TextInput& input) {
  const Args a = parse_args(argv, 1, "tokenize", kAnyPositionals, {"--text-file"}, {"--no-special-tokens"},
                            "a text that starts with -- goes after --: tfp tokenize DIR -- --text");
  const size_t want = a.has("--text-file") ? 1 : 2;
  TFP_CHECK(a.positional.size() == want, "tokenize: expected ",
            want == 1 ? "DIR alone with --text-file" : "DIR and TEXT (or DIR --text-file PATH)", ", got ",
            a.positional.size(), " argument", a.positional.size() == 1 ? "" : "s", " (see tfp --help)");
  const Tokenizer tok = model::load_tokenizer_dir(a.positional[0]);
  std::string text;
  if (a.has("--text-file")) text = input.read("tokenize", "--text-file", *a.get("--text-file"));
  else text = a.positional[1];
  const Encoding enc = tok.encode(text, !a.has("--no-special-tokens"));
  w.begin_object();
  w.key("ids").values(enc.ids);
  w.key("tokens").values(enc.tokens);
  w.key("offsets").begin_array();  // byte offsets into the UTF-8 text, [begin, end)
  for (const Offset& o : enc.offsets) w.begin_array().value(int64_t{o.begin}).value(int64_t{o.end}).end_array();
  w.end_array();
  w.key("offsets_utf16").begin_array();  // the same spans in UTF-16 units (JavaScript indices)
  for (const Offset& o : enc.offsets_utf16) w.begin_array().value(int64_t{o.begin}).value(int64_t{o.end}).end_array();
  w.end_array();
  w.key("special_mask").values(std::vector<int>(enc.special_mask.begin(), enc.special_mask.end()));
  w.end_object();
}

}  // namespace tfp::cli
