// The recurrent encoder–decoder (model/gru_seq2seq.h, models/numbers-gru) behind the
// same tfp_model handle as the Transformers: loading, its info JSON, forward (teacher
// forcing) and translate. The C functions in api_model.cpp, api_forward.cpp and
// api_generate.cpp hand a GRU handle to these; everything else refuses it by name
// (api_model.h loaded_of).
//
// How the inspector sees it: an encoder–decoder with no self-attention and one
// cross-attention "layer" of one "head" — the additive (Bahdanau) attention α_t over
// the encoder states, named "dec.0.cross.probs" (1, T, S) like a Transformer's.
#pragma once
#include <cstdint>

#include "api/api_model.h"
#include "api/api_tensors.h"

namespace tfp::api {

// Parses and binds config.json + model.safetensors (+ tokenizer.json) of a
// tfp_gru_seq2seq model; throws tfp::Error naming the file and tensor.
tfp_model* load_gru_model(tfp::model::ModelFiles files);

// tfp_model_forward and tfp_model_translate for a GRU handle (same arguments, same
// status conventions; they run inside their own guard).
int gru_model_forward(tfp_model* model, const int32_t* ids, int n, const int32_t* token_type_ids,
                      const int32_t* attention_mask, const int32_t* tgt_ids, int n_tgt, int want_attention,
                      tfp_tensors** out);
int gru_model_translate(tfp_model* model, const int32_t* src_ids, int n, int beam_size, int max_tokens,
                        int start_id, int eos_id, int32_t* out_ids, int capacity, int* out_len,
                        tfp_tensors** alignment);

}  // namespace tfp::api
