// config.json's token-id fields read and checked (issue 32): eos_token_id, bos_token_id,
// pad_token_id and decoder_start_token_id are each absent, null, or an integer inside the
// vocabulary (0 … vocab_size − 1); eos_token_id may also be a list of them (Llama 3:
// [128001, 128008, 128009]). Anything else (1.5, "2", [[2]], an id past the vocabulary, a
// negative one) is refused by the field's name instead of being ignored or used.
// (Hugging Face's PretrainedConfig stores whatever is there; generation then fails or
// never stops.) A model without token embeddings (nn.Transformer on embeddings) has no
// vocabulary to check against: only the types are checked.
#pragma once
#include "model/config_fields.h"
#include "model/config_json.h"

namespace tfp::model {

// Sets p.eos_token_id, p.more_eos_token_ids and p.decoder_start_token_id (when given) from
// `f`; checks every id field against p.config.vocab_size.
void read_token_ids(const Fields& f, ParsedConfig& p);

}  // namespace tfp::model
