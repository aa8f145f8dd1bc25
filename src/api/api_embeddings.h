// The embeddings path of the C API (api_forward_embeddings.cpp): models that read vectors
// of width d_model instead of token ids — PyTorch nn.Transformer, nn.TransformerEncoder
// and nn.TransformerDecoder checkpoints (config.json "model_type": "torch_transformer").
// Shared by tfp_model_forward_embeddings, tfp_model_attention_steps_embeddings and the
// tokenizer's words fallback (api_tokenizer.cpp).
#pragma once
#include <cstdint>

#include "api/tfp_api.h"
#include "nn/observer.h"
#include "model/model.h"
#include "model/torch_inputs.h"

namespace tfp::api {

// True when tfp_model_tokenize splits text into words (tokenizer/word_split.h): the
// model takes embeddings (it has no vocabulary) and came without tokenizer.json.
bool words_fallback(const tfp_model* model);

// Which nn.Transformer* module a model without embeddings is, from its shape alone (so a
// random model of the same config, whose family is "tfp", runs the same way):
//   encoder_only                          → torch_encoder     (src)
//   encoder_decoder with encoder layers   → torch_transformer (src, tgt)
//   encoder_decoder without (bare stack)  → torch_decoder     (tgt, memory = src)
// A decoder_only stack without embeddings has no such module: an error naming `f`.
model::CheckpointFamily embedding_module(const model::ModelConfig& c, const char* f);

// The arguments of tfp_model_forward_embeddings, checked (C = d_model, lengths, values,
// padding, flags) and run through model::run_torch; records go to `obs`. `f` names the
// C function in messages.
model::TorchResult run_embeddings(const model::LoadedModel& lm, const char* f, int C, const float* src,
                                  int S, const float* tgt, int T, const uint8_t* src_padding,
                                  const uint8_t* tgt_padding, int flags, nn::Observer* obs);

}  // namespace tfp::api
