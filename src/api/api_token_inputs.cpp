#include "api/api_token_inputs.h"

#include "api/api_edge.h"

namespace tfp::api {

namespace m = tfp::model;

std::vector<uint8_t> key_padding(const char* f, const int32_t* attention_mask, int n) {
  std::vector<uint8_t> padding;
  if (!attention_mask) return padding;
  padding.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    TFP_API_REQUIRE(attention_mask[i] == 0 || attention_mask[i] == 1, f,
                    ": attention_mask values must be 0 or 1, got ", attention_mask[i], " at position ", i);
    padding.push_back(attention_mask[i] == 0 ? 1 : 0);
  }
  return padding;
}

TokenInputs read_token_inputs(const char* f, const m::ModelConfig& c, const int32_t* ids, int n,
                              const int32_t* token_type_ids, const int32_t* attention_mask,
                              const int32_t* tgt_ids, int n_tgt) {
  TFP_API_REQUIRE(ids != nullptr && n > 0, f, ": no input tokens (n = ", n, ")");
  TokenInputs in;
  in.ids = std::span<const int32_t>(ids, static_cast<size_t>(n));
  if (c.architecture == m::Architecture::encoder_only) {
    if (token_type_ids) in.token_types.assign(token_type_ids, token_type_ids + n);
    in.padding = key_padding(f, attention_mask, n);
    return in;
  }
  TFP_API_REQUIRE(!token_type_ids && !attention_mask, f,
                  ": token types and attention masks apply to encoder-only models");
  if (c.architecture == m::Architecture::encoder_decoder) {
    TFP_API_REQUIRE(tgt_ids != nullptr && n_tgt > 0, f,
                    ": an encoder-decoder model needs decoder input ids (tgt_ids)");
    in.tgt_ids = std::span<const int32_t>(tgt_ids, static_cast<size_t>(n_tgt));
  }
  return in;
}

m::ForwardResult run_tokens(const m::ModelConfig& c, const m::ModelWeights& w, const TokenInputs& in,
                            nn::Observer* obs, int64_t last_logits) {
  switch (c.architecture) {
    case m::Architecture::decoder_only: return m::forward_decoder_only(c, w, in.ids, obs, last_logits);
    case m::Architecture::encoder_only:
      return m::forward_encoder_only(c, w, in.ids, in.token_types, in.padding, obs, last_logits);
    case m::Architecture::encoder_decoder:
      return m::forward_encoder_decoder(c, w, in.ids, in.tgt_ids, {}, obs, last_logits);
  }
  argument_error("run_tokens: unknown architecture");
}

}  // namespace tfp::api
