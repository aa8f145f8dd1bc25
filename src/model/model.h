// A model as loaded from files: config.json + model.safetensors (+ tokenizer.json).
//
// LoadedModel owns everything the forward pass reads: the safetensors buffer (the f32
// weights are views into it; f16/bf16 ones are its converted copies), the config, the
// weights bound by the checkpoint's name table (model/names_table.h), and the tokenizer
// when the folder has one. It loads from a folder (native: CLI, tests) or from bytes
// already in memory (the browser hands over dropped or fetched files) — same code after
// the bytes are in hand. An f32 Linear weight stored (in, out) (GPT-2's Conv1D) is
// transposed to (out, in) inside that buffer (model/weight_layout.h): `tensors` then
// holds it transposed under its stored name and shape.
//
// Sharded checkpoints (model.safetensors.index.json + model-0000k-of-0000n.safetensors)
// load as one set of tensors. Not supported: pytorch_model.bin (pickle); the error says so.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "io/safetensors.h"
#include "model/config_json.h"
#include "model/names_table.h"
#include "model/precision.h"
#include "model/transformer.h"
#include "tokenizer/tokenizer.h"

namespace tfp::model {

struct LoadedModel {
  Model model;  // config + weights; model.backing keeps `tensors` alive
  CheckpointFamily family = CheckpointFamily::tfp;
  std::shared_ptr<const io::SafeTensors> tensors;
  std::unique_ptr<Tokenizer> tokenizer;  // null when there was no tokenizer.json
  BindReport report;
  int64_t eos_token_id = -1;  // from config.json (its first, when it lists several), else the tokenizer's eos, else -1
  std::vector<int64_t> eos_token_ids;  // every id that ends generation (eos_token_id first); empty = none
  int64_t decoder_start_token_id = -1;  // from config.json; -1 when it names none
  std::string source;         // the folder, or the name given to the buffers

  const ModelConfig& config() const { return model.config; }
  const ModelWeights& weights() const { return model.weights; }
};

// The browser case: the files' bytes, already read.
struct ModelFiles {
  std::string config_json;
  std::vector<uint8_t> safetensors;  // one file; or, for a sharded checkpoint:
  std::optional<std::string> index_json;  // model.safetensors.index.json
  std::vector<std::pair<std::string, std::vector<uint8_t>>> shards;  // file name, bytes
  std::optional<std::string> tokenizer_json;
  std::string name = "<memory>";  // shown in errors ("<name>/config.json")
  Precision precision = Precision::stored;  // what the matrices are held as (model/precision.h)
};

LoadedModel load_model(ModelFiles files);
// dir/config.json, dir/model.safetensors, dir/tokenizer.json (optional).
LoadedModel load_model_dir(const std::string& dir, Precision precision = Precision::stored);

// The inverse of load_model_dir: creates dir if needed and writes config.json,
// model.safetensors and tokenizer.json (the trainer's export, every recipe alike).
void save_model_dir(const std::string& dir, const std::string& config_json,
                    const std::vector<uint8_t>& safetensors, const std::string& tokenizer_json);

// dir/tokenizer.json alone (a folder with only a tokenizer is enough for tokenising).
Tokenizer load_tokenizer_dir(const std::string& dir);

// The weights of a model, named by role, as a safetensors file our loader reads back
// with the config from config_to_json (our trainer's export format).
std::vector<uint8_t> save_weights_by_role(const ModelConfig& cfg, const ModelWeights& w,
                                          io::DType stored = io::DType::F32);

}  // namespace tfp::model
