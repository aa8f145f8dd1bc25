// libFuzzer target: tokenizer.json loading (tokenizer/tokenizer_json.h) on arbitrary text.
// A file that loads is then used once: a fixed text with an added-token-like piece, ASCII,
// accents, CJK and an emoji is encoded and decoded, the file is written back with
// to_tokenizer_json, and that must load again (our writer's output is a file we read).
#include "core/error.h"
#include "fuzz_util.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/tokenizer_json.h"

namespace {

void check_encoding(const tfp::Encoding& e, size_t text_bytes) {
  TFP_FUZZ_ASSERT(e.tokens.size() == e.ids.size() && e.offsets.size() == e.ids.size() &&
                  e.offsets_utf16.size() == e.ids.size() && e.special_mask.size() == e.ids.size());
  for (const tfp::Offset& o : e.offsets) TFP_FUZZ_ASSERT(o.begin <= o.end && o.end <= text_bytes);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const tfp::Tokenizer tok = tfp::load_tokenizer_json(text, "fuzz/tokenizer.json");
    static const std::string sample = "Hello, world! <s>[CLS] caf\xC3\xA9 \xE4\xB8\xAD\xE6\x96\x87 \xF0\x9F\x99\x82 42\n";
    const tfp::Encoding e = tok.encode(sample);
    check_encoding(e, sample.size());
    (void)tok.decode(e.ids, true);
    (void)tok.decode(e.ids, false);
    for (const int32_t id : e.ids) (void)tok.id_to_token(id);
    const std::string back = tfp::to_tokenizer_json(tok);
    (void)tfp::load_tokenizer_json(back, "fuzz/written.json");
  } catch (const tfp::Error& e) {
    tfp::fuzz::refused(e);
  }
  return 0;
}
