// tfp_model_*: loading a model from bytes (staged so the weights are copied once), a
// random model of a given config, the info JSON, and freeing.
#include <algorithm>

#include <nlohmann/json.hpp>

#include "api/api_edge.h"
#include "api/api_gru.h"
#include "api/api_model.h"
#include "io/file.h"
#include "model/weights.h"
#include "tokenizer/word_split.h"

namespace tfp::api {

tfp::model::LoadedModel& loaded_of(tfp_model* model, const char* where) {
  TFP_API_REQUIRE(model != nullptr && (model->loaded || model->gru), where, ": model is NULL");
  TFP_API_REQUIRE(model->loaded, where, ": does not apply to '", model->source,
                  "', a recurrent (GRU) encoder-decoder with additive attention (tfp_gru_seq2seq): it has "
                  "no self-attention layers and no decoder-only generation; use tfp_model_translate, "
                  "tfp_model_forward (with tgt_ids) or the tokenizer functions");
  return *model->loaded;
}

const tfp::Tokenizer* tokenizer_ptr(const tfp_model* model) {
  if (!model) return nullptr;
  if (model->gru) return model->gru->tokenizer.get();
  return model->loaded ? model->loaded->tokenizer.get() : nullptr;
}

namespace {

std::string info_json(const tfp::model::LoadedModel& m) {
  using nlohmann::json;
  const tfp::model::ModelConfig& c = m.config();
  int64_t parameters = 0;
  for (const tfp::model::WeightSlot& s :
       tfp::model::weight_slots(c, const_cast<tfp::model::ModelWeights&>(m.weights())))
    if (!s.empty()) parameters += s.view->numel();
  json j;
  j["source"] = m.source;
  j["family"] = tfp::model::family_name(m.family);
  j["architecture"] = tfp::model::architecture_name(c.architecture);
  j["config"] = json::parse(tfp::model::config_to_json(c), nullptr, false);
  j["d_model"] = c.d_model;
  j["n_heads"] = c.n_heads;
  j["n_encoder_layers"] = c.n_encoder_layers;
  j["n_decoder_layers"] = c.n_decoder_layers;
  j["d_ff"] = c.d_ff;
  j["vocab_size"] = c.vocab_size;
  j["max_positions"] = c.max_positions;
  j["has_embeddings"] = c.has_embeddings;
  j["parameters"] = parameters;
  // The matrices as held (model/precision.h): "f32", "f16", "bf16", "int8" or "mixed", and
  // the bytes of every weight as held.
  j["precision"] = tfp::model::weights_precision_held(c, const_cast<tfp::model::ModelWeights&>(m.weights()));
  j["weights_bytes"] = tfp::model::weights_bytes_held(c, const_cast<tfp::model::ModelWeights&>(m.weights()));
  j["eos_token_id"] = m.eos_token_id;
  j["decoder_start_token_id"] = m.decoder_start_token_id;
  // What the output is: "lm" (decoders: next-token logits), "masked_lm" (BERT with
  // cls.predictions: vocabulary logits per token), "token_classifier", "none" (hidden).
  const bool decoder_lm = c.has_decoder() && c.has_embeddings && c.lm_head;
  j["head"] = decoder_lm ? "lm"
              : c.architecture != tfp::model::Architecture::encoder_only ? "none"
              : c.encoder_head == tfp::model::EncoderHead::masked_lm ? "masked_lm"
              : c.encoder_head == tfp::model::EncoderHead::token_classifier ? "token_classifier"
                                                                            : "none";
  j["mask_token_id"] = m.tokenizer ? m.tokenizer->special_ids().mask : -1;
  j["self_attention"] = true;  // a Transformer (a GRU model says false: api_gru.cpp)
  // Tensors of the file its family's table ignores (buffers, HF's ignore lists; model/names_table.h):
  // the first kIgnoredTensorsShown names, and how many there are.
  const std::vector<std::string>& ignored = m.report.ignored;
  j["ignored_tensors"] = std::vector<std::string>(
      ignored.begin(), ignored.begin() + static_cast<std::ptrdiff_t>(std::min(ignored.size(), tfp::model::kIgnoredTensorsShown)));
  j["ignored_tensor_count"] = ignored.size();
  j["tokenizer"] = tokenizer_info(m.tokenizer.get());
  // How tfp_model_tokenize splits text when there is no tokenizer.json: "words" for a
  // model that takes embeddings (tokenizer/word_split.h), else null (it refuses).
  j["tokenizer_fallback"] = !m.tokenizer && !c.has_embeddings ? json(tfp::kWordsFallbackName) : json(nullptr);
  // Replace (never throw on) invalid UTF-8 in a file name.
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace

nlohmann::json tokenizer_info(const tfp::Tokenizer* tok) {
  if (!tok) return nullptr;
  const tfp::SpecialIds& s = tok->special_ids();
  return {{"vocab_size", tok->vocab_size()},
          {"special", {{"unk", s.unk}, {"pad", s.pad}, {"cls", s.cls}, {"sep", s.sep},
                       {"mask", s.mask}, {"bos", s.bos}, {"eos", s.eos}}}};
}

tfp_model* wrap_model(tfp::model::LoadedModel m) {
  auto handle = std::make_unique<tfp_model>();
  handle->loaded = std::make_shared<tfp::model::LoadedModel>(std::move(m));
  handle->info_json = info_json(*handle->loaded);
  handle->source = handle->loaded->source;
  return handle.release();
}

}  // namespace tfp::api

using tfp::api::loaded_of;

extern "C" {

int tfp_model_files_create(size_t weights_bytes, tfp_model_files** out) {
  if (out) *out = nullptr;
  return tfp::api::guard("tfp_model_files_create", [&] {
    TFP_API_REQUIRE(out != nullptr, "tfp_model_files_create: out is NULL");
    auto f = std::make_unique<tfp_model_files>();
    try {
      f->files.safetensors.resize(weights_bytes);
    } catch (const std::bad_alloc&) {
      throw;
    } catch (const std::length_error&) {
      throw std::bad_alloc();
    }
    *out = f.release();
  });
}

void tfp_model_files_free(tfp_model_files* files) { delete files; }

uint8_t* tfp_model_files_weights(tfp_model_files* files) {
  if (!files || files->taken) return nullptr;
  return files->files.safetensors.data();
}

int tfp_model_files_add_shard(tfp_model_files* files, const char* name, size_t bytes, uint8_t** data) {
  if (data) *data = nullptr;
  return tfp::api::guard("tfp_model_files_add_shard", [&] {
    const char* f = "tfp_model_files_add_shard";
    TFP_API_REQUIRE(files != nullptr && data != nullptr && name != nullptr, f, ": files, name or data is NULL");
    TFP_API_REQUIRE(!files->taken, f, ": these files were already loaded (stage them again)");
    std::vector<uint8_t> buffer;
    try {
      buffer.resize(bytes);
    } catch (const std::length_error&) {
      throw std::bad_alloc();
    }
    files->files.shards.emplace_back(name, std::move(buffer));
    *data = files->files.shards.back().second.data();  // the vector's storage stays put when moved
  });
}

int tfp_model_files_set_index(tfp_model_files* files, const char* text, size_t bytes) {
  return tfp::api::guard("tfp_model_files_set_index", [&] {
    TFP_API_REQUIRE(files != nullptr, "tfp_model_files_set_index: files is NULL");
    TFP_API_REQUIRE(text != nullptr || bytes == 0, "tfp_model_files_set_index: text is NULL");
    files->files.index_json = std::string(text, bytes);
  });
}

int tfp_model_files_set_config(tfp_model_files* files, const char* text, size_t bytes) {
  return tfp::api::guard("tfp_model_files_set_config", [&] {
    TFP_API_REQUIRE(files != nullptr, "tfp_model_files_set_config: files is NULL");
    TFP_API_REQUIRE(text != nullptr || bytes == 0, "tfp_model_files_set_config: text is NULL");
    files->files.config_json.assign(text ? text : "", bytes);
  });
}

int tfp_model_files_set_tokenizer(tfp_model_files* files, const char* text, size_t bytes) {
  return tfp::api::guard("tfp_model_files_set_tokenizer", [&] {
    TFP_API_REQUIRE(files != nullptr, "tfp_model_files_set_tokenizer: files is NULL");
    if (text) files->files.tokenizer_json = std::string(text, bytes);
    else files->files.tokenizer_json.reset();
  });
}

int tfp_model_files_set_name(tfp_model_files* files, const char* name) {
  return tfp::api::guard("tfp_model_files_set_name", [&] {
    TFP_API_REQUIRE(files != nullptr && name != nullptr, "tfp_model_files_set_name: files or name is NULL");
    files->files.name = name;
  });
}

int tfp_model_files_set_precision(tfp_model_files* files, const char* precision) {
  return tfp::api::guard("tfp_model_files_set_precision", [&] {
    TFP_API_REQUIRE(files != nullptr, "tfp_model_files_set_precision: files is NULL");
    TFP_API_REQUIRE(tfp::model::precision_from_name(precision ? precision : "", &files->files.precision),
                    "tfp_model_files_set_precision: '", precision, "' is not one of stored, f32, f16, int8");
  });
}

int tfp_model_files_stream_begin(tfp_model_files* files, size_t weights_bytes) {
  return tfp::api::guard("tfp_model_files_stream_begin", [&] {
    const char* f = "tfp_model_files_stream_begin";
    TFP_API_REQUIRE(files != nullptr, f, ": files is NULL");
    TFP_API_REQUIRE(!files->taken && !files->stream && files->files.safetensors.empty() && files->files.shards.empty(),
                    f, ": these files already hold weights (create them with weights_bytes 0)");
    files->stream = std::make_unique<tfp::model::WeightsStream>(
        weights_bytes, tfp::io::join_path(files->files.name, "model.safetensors"), files->files.config_json,
        files->files.precision);
  });
}

namespace {

// The stream's file, once all its bytes are in: model.safetensors, or the shard it receives.
void end_stream(tfp_model_files* files) {
  if (!files->stream) return;
  const std::unique_ptr<tfp::model::WeightsStream> stream = std::move(files->stream);
  if (files->stream_shard.empty()) files->files.safetensors = stream->finish();
  else files->files.shards.emplace_back(std::move(files->stream_shard), stream->finish());
  files->stream_shard.clear();
}

}  // namespace

int tfp_model_files_stream_shard_begin(tfp_model_files* files, const char* name, size_t bytes) {
  return tfp::api::guard("tfp_model_files_stream_shard_begin", [&] {
    const char* f = "tfp_model_files_stream_shard_begin";
    TFP_API_REQUIRE(files != nullptr && name != nullptr && *name, f, ": files or name is NULL or empty");
    TFP_API_REQUIRE(!files->taken && files->files.safetensors.empty() && (!files->stream || !files->stream_shard.empty()),
                    f, ": these files hold model.safetensors (create them with weights_bytes 0)");
    end_stream(files);
    files->stream = std::make_unique<tfp::model::WeightsStream>(
        bytes, tfp::io::join_path(files->files.name, name), files->files.config_json, files->files.precision);
    files->stream_shard = name;
  });
}

int tfp_model_files_stream_next(tfp_model_files* files, size_t n, uint8_t** where) {
  if (where) *where = nullptr;
  return tfp::api::guard("tfp_model_files_stream_next", [&] {
    const char* f = "tfp_model_files_stream_next";
    TFP_API_REQUIRE(files != nullptr && where != nullptr, f, ": files or where is NULL");
    TFP_API_REQUIRE(files->stream && !files->taken, f, ": no stream begun (tfp_model_files_stream_begin)");
    *where = files->stream->next(n);
  });
}

int tfp_model_files_stream_commit(tfp_model_files* files, size_t n) {
  return tfp::api::guard("tfp_model_files_stream_commit", [&] {
    const char* f = "tfp_model_files_stream_commit";
    TFP_API_REQUIRE(files != nullptr, f, ": files is NULL");
    TFP_API_REQUIRE(files->stream && !files->taken, f, ": no stream begun (tfp_model_files_stream_begin)");
    files->stream->commit(n);
  });
}

int tfp_model_load(tfp_model_files* files, tfp_model** out) {
  if (out) *out = nullptr;
  return tfp::api::guard("tfp_model_load", [&] {
    TFP_API_REQUIRE(files != nullptr && out != nullptr, "tfp_model_load: files or out is NULL");
    TFP_API_REQUIRE(!files->taken, "tfp_model_load: these files were already loaded (stage them again)");
    files->taken = true;
    end_stream(files);
    tfp::model::ModelFiles f = std::move(files->files);
    files->files = {};
    if (tfp::model::is_gru_config_json(f.config_json)) *out = tfp::api::load_gru_model(std::move(f));
    else *out = tfp::api::wrap_model(tfp::model::load_model(std::move(f)));
  });
}

int tfp_model_load_buffers(const char* config_json, size_t config_bytes, const uint8_t* weights,
                           size_t weights_bytes, const char* tokenizer_json, size_t tokenizer_bytes,
                           const char* name, tfp_model** out) {
  if (out) *out = nullptr;
  return tfp::api::guard("tfp_model_load_buffers", [&] {
    TFP_API_REQUIRE(out != nullptr, "tfp_model_load_buffers: out is NULL");
    TFP_API_REQUIRE(config_json != nullptr, "tfp_model_load_buffers: config_json is NULL");
    TFP_API_REQUIRE(weights != nullptr || weights_bytes == 0, "tfp_model_load_buffers: weights is NULL");
    tfp::model::ModelFiles f;
    f.config_json.assign(config_json, config_bytes);
    f.safetensors.assign(weights, weights + weights_bytes);
    if (tokenizer_json) f.tokenizer_json = std::string(tokenizer_json, tokenizer_bytes);
    if (name) f.name = name;
    if (tfp::model::is_gru_config_json(f.config_json)) *out = tfp::api::load_gru_model(std::move(f));
    else *out = tfp::api::wrap_model(tfp::model::load_model(std::move(f)));
  });
}

int tfp_config_check(const char* config_json, size_t config_bytes, const char* name) {
  return tfp::api::guard("tfp_config_check", [&] {
    TFP_API_REQUIRE(config_json != nullptr, "tfp_config_check: config_json is NULL");
    const std::string_view text(config_json, config_bytes);
    const std::string source = std::string(name ? name : "<memory>") + "/config.json";
    // The loader's own parse: what it refuses here it would refuse after the weights.
    if (tfp::model::is_gru_config_json(text)) return;
    (void)tfp::model::parse_config_json(text, source);
  });
}

int tfp_model_create_random(const char* config_json, size_t config_bytes, const char* tokenizer_json,
                            size_t tokenizer_bytes, uint32_t seed, tfp_model** out) {
  if (out) *out = nullptr;
  return tfp::api::guard("tfp_model_create_random", [&] {
    TFP_API_REQUIRE(out != nullptr && config_json != nullptr, "tfp_model_create_random: config_json or out is NULL");
    TFP_API_REQUIRE(!tfp::model::is_gru_config_json(std::string_view(config_json, config_bytes)),
                    "tfp_model_create_random: random weights are made for Transformer configs only, not for "
                    "tfp_gru_seq2seq (load its files with tfp_model_load)");
    // Random weights by role, written as our own safetensors and loaded like any file:
    // one path for every model, whatever its origin.
    const tfp::model::ParsedConfig parsed =
        tfp::model::parse_config_json(std::string_view(config_json, config_bytes), "<random>/config.json");
    const tfp::model::ModelWeights w = tfp::model::random_weights(parsed.config, seed);
    tfp::model::ModelFiles f;
    f.name = "<random>";
    f.config_json = tfp::model::config_to_json(parsed.config);
    if (parsed.eos_token_id >= 0) {
      nlohmann::json j = nlohmann::json::parse(f.config_json, nullptr, false);
      j["eos_token_id"] = parsed.eos_token_id;
      f.config_json = j.dump();
    }
    f.safetensors = tfp::model::save_weights_by_role(parsed.config, w);
    if (tokenizer_json) f.tokenizer_json = std::string(tokenizer_json, tokenizer_bytes);
    *out = tfp::api::wrap_model(tfp::model::load_model(std::move(f)));
  });
}

void tfp_model_free(tfp_model* model) { delete model; }

const char* tfp_model_info_json(tfp_model* model) { return model ? model->info_json.c_str() : nullptr; }

}  // extern "C"
