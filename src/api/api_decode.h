// The decoding options of an encoder-decoder call, filled the one way tfp_model_translate
// documents (start_id -1: config.json's decoder_start_token_id, else the tokenizer's bos,
// else the model's eos; eos_id -1: the model's eos), so tfp_model_translate and
// tfp_model_head_mask_effect decode a source identically.
#pragma once
#include "api/api_edge.h"
#include "model/beam.h"
#include "model/model.h"

namespace tfp::api {

// `f` names the C function in the error (no token to start the decoder with).
inline tfp::model::DecodeOptions decode_options(const tfp::model::LoadedModel& lm, int beam_size, int max_tokens,
                                                int start_id, int eos_id, const char* f) {
  tfp::model::DecodeOptions opt;
  opt.beam_size = beam_size;
  opt.max_tokens = max_tokens;
  opt.eos_id = eos_id >= 0 ? eos_id : static_cast<int32_t>(lm.eos_token_id);
  opt.start_id = start_id;
  // The config's decoder_start_token_id first (as Hugging Face), then bos, then eos.
  if (opt.start_id < 0) opt.start_id = static_cast<int32_t>(lm.decoder_start_token_id);
  if (opt.start_id < 0 && lm.tokenizer) opt.start_id = lm.tokenizer->special_ids().bos;
  if (opt.start_id < 0) opt.start_id = static_cast<int32_t>(lm.eos_token_id);
  TFP_API_REQUIRE(opt.start_id >= 0, f, ": '", lm.source,
                  "' names no bos or eos token to start the decoder with: give start_id");
  return opt;
}

}  // namespace tfp::api
