// tfp tokenize DIR TEXT — ids, tokens and offsets; DIR needs only tokenizer.json.
#include "cli/args.h"
#include "cli/commands.h"
#include "model/model.h"

namespace tfp::cli {

void cmd_tokenize(const std::vector<std::string>& argv, JsonWriter& w) {
  const Args a = parse_args(argv, 1, "tokenize", 2, {}, {"--no-special-tokens"});
  const Tokenizer tok = model::load_tokenizer_dir(a.positional[0]);
  const Encoding enc = tok.encode(a.positional[1], !a.has("--no-special-tokens"));
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
