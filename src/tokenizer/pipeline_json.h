// Reading the pipeline steps of tokenizer.json: "normalizer", "pre_tokenizer",
// "decoder", "post_processor" (internal to src/tokenizer; tokenizer_json.h lists what
// is supported). Each reader refuses an unknown type by name, listing the known ones.
#pragma once
#include <string>
#include <vector>

#include "tokenizer/decoders.h"
#include "tokenizer/json_reader.h"
#include "tokenizer/normalizers.h"
#include "tokenizer/pre_tokenizers.h"

namespace tfp {

NormalizerPtr read_normalizer(const JsonReader& r, const nlohmann::json& j, const std::string& where);
PreTokenizerPtr read_pre_tokenizer(const JsonReader& r, const nlohmann::json& j, const std::string& where);
DecoderPtr read_decoder(const JsonReader& r, const nlohmann::json& j, const std::string& where);
// Fills the tokens put before and after the sequence: at most kMaxPostProcessorTokens in
// all (real files add one to three; a template whose pieces expand to more is refused by
// name before its tokens are copied).
inline constexpr size_t kMaxPostProcessorTokens = 1024;
void read_post_processor(const JsonReader& r, const nlohmann::json& j, const std::string& where,
                         std::vector<std::string>& prefix, std::vector<std::string>& suffix);

}  // namespace tfp
