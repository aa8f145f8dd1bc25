// config.json → ModelConfig, for the model families the engine loads:
//
//   "model_type": "gpt2"   Hugging Face GPT-2: n_embd, n_head, n_layer, n_positions
//                          (or n_ctx), vocab_size, layer_norm_epsilon (1e-5),
//                          activation_function ("gelu_new"), n_inner (null = 4·n_embd).
//   "model_type": "bert"   Hugging Face BERT: hidden_size, num_attention_heads,
//                          num_hidden_layers, intermediate_size, max_position_embeddings,
//                          type_vocab_size, vocab_size, layer_norm_eps (1e-12),
//                          hidden_act ("gelu"); position_embedding_type must be "absolute".
//   "model_type": "torch_transformer"   our description of a PyTorch nn.Transformer /
//                          nn.TransformerEncoder / nn.TransformerDecoder state_dict, which
//                          carries no config of its own:
//        { "model_type": "torch_transformer",
//          "kind": "transformer" | "encoder" | "decoder",
//          "d_model": 32, "nhead": 4,
//          "num_encoder_layers": 2,     (transformer, encoder)
//          "num_decoder_layers": 2,     (transformer, decoder)
//          "dim_feedforward": 64,
//          "activation": "relu" | "gelu",   (default "relu", as PyTorch)
//          "norm_first": false,             (default false)
//          "layer_norm_eps": 1e-5,          (default 1e-5)
//          "final_norm": true }             (encoder.norm / decoder.norm present; nn.Transformer
//                                            always has them, the bare stacks only if norm= was given)
//        Tensor names follow the state_dict of that module: kind "transformer" uses
//        encoder.layers.i.* / decoder.layers.i.*, "encoder" and "decoder" use layers.i.*
//        (an "encoder." / "decoder." prefix is accepted). Inputs are embeddings (batch-first).
//   "model_type": llama, mistral, qwen2, qwen3, gemma2, gemma3_text, gpt_neox, gpt_neo,
//                 bloom, t5 — Hugging Face's configs, mapped in model/family_*.cpp.
//   "model_type": "tfp"    our own models (the trainer writes these): every ModelConfig
//                          field by its C++ name; tensor names are the role names.
//
// Parsing never lets an nlohmann exception escape: every field is type-checked and a
// bad or missing one is a tfp::Error naming the file and the field. The parsed config
// passes check_config().
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "model/config.h"

namespace tfp::model {

// What the config says beyond ModelConfig: the checkpoint naming scheme to bind with.
enum class CheckpointFamily {
  gpt2, bert, torch_transformer, torch_encoder, torch_decoder, tfp,
  llama, gemma, gpt_neox, gpt_neo, bloom, t5,  // model/families.h
};
const char* family_name(CheckpointFamily f);  // "gpt2", "bert", "torch_transformer", ...

struct ParsedConfig {
  ModelConfig config;
  CheckpointFamily family = CheckpointFamily::tfp;
  int64_t eos_token_id = -1;  // "eos_token_id" when the config names one (generation stops there)
  std::vector<int64_t> more_eos_token_ids;  // the rest of an "eos_token_id" list (Llama 3: [128001, 128009])
  int64_t decoder_start_token_id = -1;  // "decoder_start_token_id": first decoder input (seq2seq)
};

// `source` names the file in errors: "config.json: gpt2 config needs integer \"n_embd\"".
ParsedConfig parse_config_json(std::string_view text, const std::string& source = "config.json");

// A "model_type": "tfp" config.json that parse_config_json reads back to the same config.
std::string config_to_json(const ModelConfig& cfg);

}  // namespace tfp::model
