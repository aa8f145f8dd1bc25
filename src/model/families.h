// The model families beyond GPT-2, BERT, nn.Transformer and our own: per family only a
// config mapping (Hugging Face config.json → ModelConfig) and a tensor-name table
// (checkpoint names → roles); the one builder in model/transformer.cpp runs them all.
//   family_llama.cpp    llama, mistral, qwen2, qwen3 (SmolLM and TinyLlama are llama)
//   family_gemma.cpp    gemma2, gemma3_text
//   family_gpt_neox.cpp gpt_neox (Pythia)
//   family_gpt_neo.cpp  gpt_neo (TinyStories)
//   family_bloom.cpp    bloom
//   family_t5.cpp       t5 (v1.0, v1.1, Flan-T5)
// Every mapping refuses, by name, options the engine does not implement.
#pragma once
#include <string>
#include <vector>

#include "model/config_fields.h"
#include "model/config_json.h"
#include "model/names_table.h"

namespace tfp::model {

ParsedConfig parse_llama_family(const Fields& f, const std::string& model_type);
ParsedConfig parse_gemma_family(const Fields& f, const std::string& model_type);
ParsedConfig parse_gpt_neox(const Fields& f);
ParsedConfig parse_gpt_neo(const Fields& f);
ParsedConfig parse_bloom(const Fields& f);
ParsedConfig parse_t5(const Fields& f);

const NameTable& names_llama();
// The rows Llama-style checkpoints share (model.layers.N.self_attn.*, mlp.*, embed_tokens,
// norm, lm_head); each table adds its own norms.
std::vector<NameRule> llama_layer_rules();
const NameTable& names_gemma();
const NameTable& names_gpt_neox();
const NameTable& names_gpt_neo();
const NameTable& names_bloom();
const NameTable& names_t5();

// HF "rope_theta" and "rope_scaling" (none/default, linear, llama3; anything else refused
// by name) into cfg.rope.
void parse_rope(const Fields& f, RopeSpec& rope, const char* theta_key = "rope_theta",
                double theta_default = 10000.0);

}  // namespace tfp::model
