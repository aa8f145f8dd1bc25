// The decoders of tokenizer.json: token strings -> text. As in Hugging Face, each step
// maps a list of strings to a list of strings (decode_chain) and the final list is
// concatenated; with no decoder at all, tokens are joined with " ".
//
//   Sequence      each step in order
//   ByteLevel     stand-in characters -> bytes -> UTF-8 (invalid bytes -> U+FFFD); one string
//   ByteFallback  runs of "<0xNN>" tokens -> their bytes as UTF-8, or one U+FFFD per byte
//                 when the run is not valid UTF-8
//   Replace       pattern -> content inside every token
//   Fuse          all tokens -> one string
//   Strip         remove up to `start` leading and `stop` trailing `content` characters
//                 from every token
//   Metaspace     replacement ("▁") -> ' '; in the first token it is dropped instead
//                 unless prepend_scheme is "never"
//   WordPiece     "##" continuations glued to the previous token, others after a space;
//                 optional clean-up of spaces before punctuation
//   BPEDecoder    the end-of-word suffix -> " " (nothing after the last token)
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "tokenizer/pattern.h"
#include "tokenizer/pre_tokenizers.h"

namespace tfp {

class Decoder {
 public:
  virtual ~Decoder() = default;
  virtual void decode_chain(std::vector<std::string>& tokens) const = 0;
};
using DecoderPtr = std::shared_ptr<const Decoder>;

DecoderPtr make_sequence_decoder(std::vector<DecoderPtr> steps);
DecoderPtr make_byte_level_decoder();
DecoderPtr make_byte_fallback_decoder();
DecoderPtr make_replace_decoder(TextPattern pattern, const std::string& content);
DecoderPtr make_fuse_decoder();
DecoderPtr make_strip_decoder(char32_t content, size_t start, size_t stop);
DecoderPtr make_metaspace_decoder(char32_t replacement, PrependScheme scheme);
DecoderPtr make_wordpiece_decoder(const std::string& prefix, bool cleanup);
DecoderPtr make_bpe_suffix_decoder(const std::string& suffix);

}  // namespace tfp
