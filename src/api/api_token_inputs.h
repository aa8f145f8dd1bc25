// The token inputs of a token model's C calls (ids, token types, attention mask, decoder
// ids), checked once for the model's architecture, and one forward pass on them. Every
// call that runs a token model's forward pass (tfp_model_forward, the drill-down, fill-mask)
// reads its inputs here, so they accept and refuse exactly the same things.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "nn/observer.h"
#include "model/transformer.h"

namespace tfp::api {

struct TokenInputs {
  std::span<const int32_t> ids{};
  std::vector<int32_t> token_types{};  // empty = all 0
  std::vector<uint8_t> padding{};      // 1 = padding (the engine's sense); empty = none
  std::span<const int32_t> tgt_ids{};  // encoder-decoder only: the decoder's input
};

// Hugging Face's attention_mask (1 = real token, 0 = padding; NULL = none) as the engine's
// key padding. `f` names the C function in the error.
std::vector<uint8_t> key_padding(const char* f, const int32_t* attention_mask, int n);

// Checks the inputs against the model: ids present; token types and attention mask only
// for encoder-only models; decoder ids required by (and only by) encoder-decoders.
TokenInputs read_token_inputs(const char* f, const model::ModelConfig& c, const int32_t* ids, int n,
                              const int32_t* token_type_ids, const int32_t* attention_mask,
                              const int32_t* tgt_ids, int n_tgt);

// One forward pass of the model on checked inputs, reporting to `obs` (may be null);
// last_logits: which rows get logits (model::logit_rows; -1 none).
model::ForwardResult run_tokens(const model::ModelConfig& c, const model::ModelWeights& w,
                                const TokenInputs& in, nn::Observer* obs, int64_t last_logits = 0);

}  // namespace tfp::api
