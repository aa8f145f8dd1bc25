// tfp_model_tokenize / tfp_encoding_* / tfp_model_decode: the model's tokenizer.json
// behind the C API. The tokenizer itself validates UTF-8 and names the bad byte.
#include <nlohmann/json.hpp>

#include "api/api_edge.h"
#include "api/api_embeddings.h"
#include "api/api_model.h"
#include "tokenizer/word_split.h"

namespace {

const tfp::Tokenizer& tokenizer_of(tfp_model* model, const char* where) {
  TFP_API_REQUIRE(model != nullptr && (model->loaded || model->gru), where, ": model is NULL");
  const tfp::Tokenizer* tok = tfp::api::tokenizer_ptr(model);  // Transformer or GRU alike
  TFP_API_REQUIRE(tok != nullptr, where, ": '", model->source, "' has no tokenizer.json");
  return *tok;
}

}  // namespace

extern "C" {

int tfp_model_tokenize(tfp_model* model, const char* text, size_t bytes, int add_special_tokens,
                       tfp_encoding** out) {
  if (out) *out = nullptr;
  return tfp::api::guard("tfp_model_tokenize", [&] {
    TFP_API_REQUIRE(out != nullptr, "tfp_model_tokenize: out is NULL");
    TFP_API_REQUIRE(text != nullptr || bytes == 0, "tfp_model_tokenize: text is NULL");
    const std::string_view s(text ? text : "", bytes);
    auto e = std::make_unique<tfp_encoding>();
    // A model that reads vectors and came without tokenizer.json (a PyTorch
    // nn.Transformer checkpoint) is split into words (tokenizer/word_split.h).
    if (tfp::api::words_fallback(model)) e->enc = tfp::encode_words(s);
    else e->enc = tokenizer_of(model, "tfp_model_tokenize").encode(s, add_special_tokens != 0);
    for (size_t i = 0; i < e->enc.size(); ++i) {
      e->offsets_utf16.push_back(static_cast<int32_t>(e->enc.offsets_utf16[i].begin));
      e->offsets_utf16.push_back(static_cast<int32_t>(e->enc.offsets_utf16[i].end));
      e->offsets_bytes.push_back(static_cast<int32_t>(e->enc.offsets[i].begin));
      e->offsets_bytes.push_back(static_cast<int32_t>(e->enc.offsets[i].end));
    }
    e->tokens_json = nlohmann::json(e->enc.tokens).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    *out = e.release();
  });
}

void tfp_encoding_free(tfp_encoding* enc) { delete enc; }

int tfp_encoding_count(const tfp_encoding* enc) { return enc ? static_cast<int>(enc->enc.size()) : 0; }

const int32_t* tfp_encoding_ids(const tfp_encoding* enc) { return enc ? enc->enc.ids.data() : nullptr; }

const int32_t* tfp_encoding_offsets_utf16(const tfp_encoding* enc) {
  return enc ? enc->offsets_utf16.data() : nullptr;
}

const int32_t* tfp_encoding_offsets_bytes(const tfp_encoding* enc) {
  return enc ? enc->offsets_bytes.data() : nullptr;
}

const uint8_t* tfp_encoding_special_mask(const tfp_encoding* enc) {
  return enc ? enc->enc.special_mask.data() : nullptr;
}

const char* tfp_encoding_tokens_json(const tfp_encoding* enc) { return enc ? enc->tokens_json.c_str() : nullptr; }

const char* tfp_model_decode(tfp_model* model, const int32_t* ids, int n, int skip_special_tokens) {
  const char* result = nullptr;
  tfp::api::guard("tfp_model_decode", [&] {
    TFP_API_REQUIRE(n >= 0 && (ids != nullptr || n == 0), "tfp_model_decode: bad ids (n = ", n, ")");
    const tfp::Tokenizer& tok = tokenizer_of(model, "tfp_model_decode");
    model->decoded = tok.decode(std::vector<int32_t>(ids, ids + n), skip_special_tokens != 0);
    result = model->decoded.c_str();
  });
  return result;
}

const char* tfp_model_id_to_token(tfp_model* model, int32_t id) {
  const tfp::Tokenizer* tok = tfp::api::tokenizer_ptr(model);
  if (!tok) return nullptr;
  const char* result = nullptr;
  tfp::api::guard("tfp_model_id_to_token", [&] {
    model->token = tok->id_to_token(id);
    result = model->token.c_str();
  });
  return result;
}

}  // extern "C"
