// libFuzzer target: tokenisation of arbitrary bytes with real tokenizers.
// Loaded once, from the committed fixtures (TFP_FIXTURES_DIR): GPT-2-style byte-level BPE,
// BERT WordPiece, a T5 Unigram with a SentencePiece charsmap, Mistral's BPE with byte
// fallback, BLOOM, GPT-NeoX, Falcon, a byte-fallback Unigram and a WordLevel file.
// Input: the first byte picks the tokenizer, the rest is the text. Invalid UTF-8 must be
// refused with a tfp::Error; valid text must encode with spans inside the text, and
// decoding any ids (the encoding's, and the input's bytes read as ids) must not fail.
#include <memory>

#include "core/error.h"
#include "fuzz_util.h"
#include "io/safetensors.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/tokenizer_json.h"

namespace {

const std::vector<std::unique_ptr<tfp::Tokenizer>>& tokenizers() {
  static const std::vector<std::unique_ptr<tfp::Tokenizer>> all = [] {
    std::vector<std::unique_ptr<tfp::Tokenizer>> t;
    const std::string dir = TFP_FIXTURES_DIR;
    for (const char* f : {"/checkpoints/gpt2_tiny/tokenizer.json", "/tokenizer/bert_tiny.json",
                          "/tokenizer/shapes/t5.json", "/tokenizer/shapes/mistral.json",
                          "/tokenizer/shapes/bloom.json", "/tokenizer/shapes/neox.json",
                          "/tokenizer/shapes/falcon.json", "/tokenizer/shapes/unigram_byte_fallback.json",
                          "/tokenizer/shapes/word_level.json", "/tokenizer/shapes/wordpiece.json"})
      t.push_back(std::make_unique<tfp::Tokenizer>(tfp::load_tokenizer_file(dir + f)));
    return t;
  }();
  return all;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const auto& all = tokenizers();
  const tfp::Tokenizer& tok = *all[data[0] % all.size()];
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  const bool utf8 = tfp::io::valid_utf8(text);
  try {
    const tfp::Encoding e = tok.encode(text, (data[0] / all.size()) % 2 == 0);
    TFP_FUZZ_ASSERT(utf8);  // invalid UTF-8 is refused
    TFP_FUZZ_ASSERT(e.tokens.size() == e.ids.size() && e.offsets.size() == e.ids.size() &&
                    e.offsets_utf16.size() == e.ids.size() && e.special_mask.size() == e.ids.size());
    for (size_t i = 0; i < e.ids.size(); ++i) {
      TFP_FUZZ_ASSERT(e.ids[i] >= 0 && static_cast<size_t>(e.ids[i]) < tok.vocab_size());
      TFP_FUZZ_ASSERT(e.offsets[i].begin <= e.offsets[i].end && e.offsets[i].end <= text.size());
      TFP_FUZZ_ASSERT(e.offsets_utf16[i].begin <= e.offsets_utf16[i].end &&
                      e.offsets_utf16[i].end <= text.size());
    }
    (void)tok.decode(e.ids, true);
    (void)tok.decode(e.ids, false);
  } catch (const tfp::Error& e) {  // invalid UTF-8, or a text a tokenizer refuses by name
    tfp::fuzz::refused(e);
  }
  // Arbitrary ids (a page's or a generator's), including ones past the vocabulary.
  std::vector<int32_t> ids;
  for (size_t i = 1; i + 1 < size && ids.size() < 256; i += 2)
    ids.push_back(static_cast<int32_t>((data[i] | (data[i + 1] << 8)) % (tok.vocab_size() + 8)));
  try {
    const std::string s = tok.decode(ids, (data[0] & 1) != 0);
    TFP_FUZZ_ASSERT(tfp::io::valid_utf8(s));
  } catch (const tfp::Error& e) {
    tfp::fuzz::refused(e);
  }
  return 0;
}
