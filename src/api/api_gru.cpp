// The C API for the recurrent encoder–decoder (see api_gru.h): argument checks, the
// info JSON and the tensor lists around model/gru_seq2seq.h. No maths here.
#include "api/api_gru.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "api/api_edge.h"

namespace tfp::api {

namespace {

// The info JSON with the keys every model reports (tfp_api.h), sized as the inspector
// sees the model: 0 encoder layers (the encoder is a GRU, not attention), 1 decoder
// "layer" whose only attention is cross-attention with 1 head. "recurrent" says what
// the layers really are.
std::string gru_info_json(const tfp_model& h) {
  using nlohmann::json;
  const model::GruSeq2SeqModel& m = *h.gru;
  const model::GruSeq2SeqConfig& c = m.config;
  int64_t parameters = 0;
  for (const auto& [name, shape] : model::gru_tensor_shapes(c)) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    parameters += n;
  }
  json j;
  j["source"] = h.source;
  j["family"] = "tfp";
  j["architecture"] = "encoder_decoder";
  j["model_type"] = "tfp_gru_seq2seq";
  j["head"] = "lm";  // next-token logits of the decoder, as a Transformer encoder-decoder's
  j["mask_token_id"] = m.tokenizer ? m.tokenizer->special_ids().mask : -1;
  j["self_attention"] = false;
  j["recurrent"] = {{"cell", "gru"},
                    {"bidirectional_encoder", c.bidirectional},
                    {"embed_dim", c.embed_dim},
                    {"encoder_hidden", c.encoder_hidden},
                    {"decoder_hidden", c.decoder_hidden},
                    {"attention", "additive"},
                    {"attention_dim", c.attention_dim}};
  j["config"] = json::parse(model::gru_config_to_json(c), nullptr, false);
  j["d_model"] = c.decoder_hidden;
  j["n_heads"] = 1;
  j["n_encoder_layers"] = 0;
  j["n_decoder_layers"] = 1;
  j["d_ff"] = 0;
  j["vocab_size"] = c.vocab_size;
  j["max_positions"] = c.max_source_positions;
  j["max_target_tokens"] = c.max_target_tokens;
  j["has_embeddings"] = true;
  j["parameters"] = parameters;
  j["eos_token_id"] = c.eos_token_id;
  j["decoder_start_token_id"] = c.decoder_start_token_id;
  j["tokenizer"] = tokenizer_info(m.tokenizer.get());
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

const model::GruSeq2SeqModel& gru_of(tfp_model* model) { return *model->gru; }

}  // namespace

tfp_model* load_gru_model(model::ModelFiles files) {
  auto handle = std::make_unique<tfp_model>();
  handle->source = files.name;
  handle->gru = std::make_shared<const model::GruSeq2SeqModel>(model::load_gru_seq2seq(
      files.config_json, std::move(files.safetensors), files.tokenizer_json, files.name));
  handle->info_json = gru_info_json(*handle);
  return handle.release();
}

int gru_model_forward(tfp_model* model, const int32_t* ids, int n, const int32_t* token_type_ids,
                      const int32_t* attention_mask, const int32_t* tgt_ids, int n_tgt, int want_attention,
                      tfp_tensors** out) {
  if (out) *out = nullptr;
  return guard("tfp_model_forward", [&] {
    TFP_API_REQUIRE(out != nullptr, "tfp_model_forward: out is NULL");
    TFP_API_REQUIRE(ids != nullptr && n > 0, "tfp_model_forward: no input tokens (n = ", n, ")");
    TFP_API_REQUIRE(!token_type_ids && !attention_mask,
                    "tfp_model_forward: token types and attention masks apply to encoder-only models");
    TFP_API_REQUIRE(tgt_ids != nullptr && n_tgt > 0,
                    "tfp_model_forward: an encoder-decoder model needs decoder input ids (tgt_ids)");
    model::GruForwardResult r =
        model::gru_forward(gru_of(model), std::span<const int32_t>(ids, static_cast<size_t>(n)),
                           std::span<const int32_t>(tgt_ids, static_cast<size_t>(n_tgt)));
    auto list = std::make_unique<tfp_tensors>();
    list->add_summaries(r.states, &r.logits);  // hidden_norm, argmax: as every token model's forward
    list->add("logits", std::move(r.logits));  // (T, V)
    list->add("hidden", std::move(r.states));  // (T, D) decoder states s_t
    if (want_attention) {
      const int64_t T = r.attention.shape[0], S = r.attention.shape[1];
      r.attention.shape = {1, T, S};           // one head
      list->add("dec.0.cross.probs", std::move(r.attention));
    }
    *out = list.release();
  });
}

int gru_model_translate(tfp_model* model, const int32_t* src_ids, int n, int beam_size, int max_tokens,
                        int start_id, int eos_id, int32_t* out_ids, int capacity, int* out_len,
                        tfp_tensors** alignment) {
  if (alignment) *alignment = nullptr;
  if (out_len) *out_len = 0;
  return guard("tfp_model_translate", [&] {
    TFP_API_REQUIRE(out_ids != nullptr && out_len != nullptr && alignment != nullptr,
                    "tfp_model_translate: out_ids, out_len or alignment is NULL");
    TFP_API_REQUIRE(src_ids != nullptr && n > 0, "tfp_model_translate: the source is empty (n = ", n, ")");
    model::DecodeOptions opt;
    opt.beam_size = beam_size;
    opt.max_tokens = max_tokens;
    opt.start_id = start_id;  // -1: config.json's decoder_start_token_id
    opt.eos_id = eos_id;      // -1: config.json's eos_token_id
    model::Translation t =
        model::gru_translate(gru_of(model), std::span<const int32_t>(src_ids, static_cast<size_t>(n)), opt);
    TFP_API_REQUIRE(static_cast<int>(t.ids.size()) <= capacity, "tfp_model_translate: the output has ",
                    t.ids.size(), " tokens, more than out_ids' capacity of ", capacity);
    auto list = std::make_unique<tfp_tensors>();
    list->add("alignment", std::move(t.alignment));
    list->add("dec.0.cross.probs", std::move(t.cross_probs[0]));
    std::copy(t.ids.begin(), t.ids.end(), out_ids);
    *out_len = static_cast<int>(t.ids.size());
    *alignment = list.release();
  });
}

}  // namespace tfp::api
