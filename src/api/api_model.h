// The structs behind the model-side handles of the C API (tfp_model, tfp_model_files,
// tfp_encoding, tfp_generator), shared by the api_*.cpp files that implement them.
#pragma once
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "api/tfp_api.h"
#include "inspect/head_mask.h"
#include "model/generate.h"
#include "model/gru_seq2seq.h"
#include "model/model.h"
#include "model/weights_stream.h"

struct tfp_model_files {
  tfp::model::ModelFiles files;
  std::unique_ptr<tfp::model::WeightsStream> stream;  // tfp_model_files_stream_begin: the weights as they arrive
  std::string stream_shard;  // the shard `stream` receives (tfp_model_files_stream_shard_begin); "" = model.safetensors
  bool taken = false;  // the weights were handed to tfp_model_load
};

struct tfp_model {
  // Shared: generators hold a reference, so freeing the model never pulls the weights
  // from under a generation in progress.
  std::shared_ptr<tfp::model::LoadedModel> loaded;
  // Instead of `loaded`: the recurrent encoder–decoder (model_type tfp_gru_seq2seq),
  // served by api_gru.cpp. Exactly one of the two is set.
  std::shared_ptr<const tfp::model::GruSeq2SeqModel> gru;
  std::string source;     // the folder or name given at load (for messages)
  std::string info_json;  // built once at load
  std::string decoded;    // the latest tfp_model_decode result
  std::string token;      // the latest tfp_model_id_to_token result
  // Heads switched off or scaled (tfp_model_set_head_mask): every later forward pass on
  // this handle runs under it (api_head_mask.cpp); empty = the model as loaded.
  tfp::inspect::HeadMask head_mask;
};

struct tfp_encoding {
  tfp::Encoding enc;
  std::vector<int32_t> offsets_utf16, offsets_bytes;  // (count, 2)
  std::string tokens_json;
};

struct tfp_generator {
  std::shared_ptr<tfp::model::LoadedModel> loaded;
  std::optional<tfp::model::Generator> gen;
  std::vector<int32_t> output;  // every generated id so far
  std::string emitted;          // the decoded text handed out so far
  std::string text;             // what the latest token added
  tfp::model::GeneratorStep last;
  // The model's head mask when the generator was made, null if none: every step runs
  // under it (`gen` borrows it through GeneratorOptions::observer; never used after).
  std::unique_ptr<tfp::inspect::HeadMaskObserver> head_mask;
};

namespace tfp::api {

// The Transformer behind the handle; for a GRU model a clear "does not apply" error
// naming `where` (TFP_ERR_INVALID_ARGUMENT), so functions that do not dispatch to
// api_gru.cpp refuse it by name.
tfp::model::LoadedModel& loaded_of(tfp_model* model, const char* where);
// The "tokenizer" value of the info JSON: null, or { "vocab_size", "special": {...} }.
nlohmann::json tokenizer_info(const tfp::Tokenizer* tok);
// The model's tokenizer, whichever kind it is; null without tokenizer.json (or model).
const tfp::Tokenizer* tokenizer_ptr(const tfp_model* model);
// Builds the handle (and its info JSON) around a freshly loaded model.
tfp_model* wrap_model(tfp::model::LoadedModel m);

}  // namespace tfp::api
