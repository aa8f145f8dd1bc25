// tfp_model_attention_steps (tfp_inspect_api.h): runs the model's forward pass with an
// observer that records one attention block's q, k, v and mask, then replays the
// chosen row with inspect::attention_steps. Argument checks and copies; no maths here.
#include <cmath>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "api/api_attention_steps.h"
#include "api/api_edge.h"
#include "api/api_model.h"
#include "api/api_tensors.h"
#include "api/api_token_inputs.h"
#include "api/tfp_inspect_api.h"
#include "inspect/attention_steps.h"
#include "inspect/head_mask.h"
#include "nn/observer.h"

using tfp::api::loaded_of;

namespace m = tfp::model;

namespace tfp::api {

std::string steps_block(const char* f, const m::ModelConfig& c, const char* set, int layer, int head,
                        int query, int enc_queries, int dec_queries, const char* enc_input,
                        const char* dec_input) {
  TFP_API_REQUIRE(set != nullptr, f, ": set is NULL (\"enc\", \"dec\" or \"cross\")");
  const std::string s(set);
  const bool enc_dec = c.architecture == m::Architecture::encoder_decoder;
  // A bare nn.TransformerDecoder is an encoder-decoder with no encoder layers: its memory
  // is an input, so it has "dec" and "cross" but no "enc".
  const bool has_enc = c.has_encoder() && c.n_encoder_layers > 0;
  std::string valid;
  if (has_enc) valid += "\"enc\"";
  if (c.has_decoder()) valid += std::string(valid.empty() ? "" : ", ") + "\"dec\"";
  if (enc_dec) valid += ", \"cross\"";
  const bool known = (s == "enc" && has_enc) || (s == "dec" && c.has_decoder()) || (s == "cross" && enc_dec);
  TFP_API_REQUIRE(known, f, ": set \"", s, "\" does not exist in this ",
                  m::architecture_name(c.architecture), " model (valid: ", valid, ")");
  const int64_t L = s == "enc" ? c.n_encoder_layers : c.n_decoder_layers;
  const char* stack = s == "enc" ? "encoder" : "decoder";
  TFP_API_REQUIRE(layer >= 0 && layer < L, f, ": layer ", layer, " is out of range: the model has ",
                  L, " ", stack, " layers (0..", L - 1, ")");
  TFP_API_REQUIRE(head >= 0 && head < c.n_heads, f, ": head ", head, " is out of range: the model has ",
                  c.n_heads, " heads (0..", c.n_heads - 1, ")");
  const bool enc_side = s == "enc";
  const int Tq = enc_side ? enc_queries : dec_queries;
  TFP_API_REQUIRE(query >= 0 && query < Tq, f, ": query ", query, " is out of range: the ",
                  enc_side ? enc_input : dec_input, " has ", Tq, " tokens (0..", Tq - 1, ")");
  return (s == "enc" ? "enc." : "dec.") + std::to_string(layer) + (s == "cross" ? ".cross" : ".attn");
}

std::vector<std::string> steps_records(const std::string& block) {
  return {block + ".q", block + ".k", block + ".v", block + ".mask"};
}

tfp_tensors* steps_result(const nn::RecordingObserver& obs, const std::string& block, int head,
                          int query, const m::ModelConfig& c) {
  const tfp::Tensor& q = obs.get(block + ".q");  // (H, Tq, D)
  // The scale and soft-cap the block itself used (nn::attention's defaults otherwise).
  const float scale = c.attn_scale > 0.0f ? c.attn_scale : 1.0f / std::sqrt(static_cast<float>(q.dim(2)));
  const bool cross = block.ends_with(".cross");
  const float softcap = cross ? 0.0f : c.attn_softcap;
  tfp::inspect::AttentionSteps st =
      tfp::inspect::attention_steps(q, obs.get(block + ".k"), obs.get(block + ".v"),
                                    obs.get(block + ".mask"), head, query, scale, softcap);
  auto list = std::make_unique<tfp_tensors>();
  list->add("q", std::move(st.q));
  list->add("k", std::move(st.k));
  list->add("v", std::move(st.v));
  list->add("scores", std::move(st.scores));
  list->add("scaled", std::move(st.scaled));
  list->add("capped", std::move(st.capped));
  list->add("bias", std::move(st.bias));
  list->add("mask", std::move(st.masked));
  list->add("logits", std::move(st.logits));
  list->add("probs", std::move(st.probs));
  list->add("weighted_v", std::move(st.weighted_v));
  list->add("out", std::move(st.out));
  list->add("scale", tfp::Tensor({1}, scale));
  list->add("softcap", tfp::Tensor({1}, softcap));
  // Which of q's and k's dimensions RoPE rotated (the first rotary_dims; the rest pass
  // unchanged), and the layer's local-attention window (0 = global).
  const bool rope = c.positional == m::Positional::rope && !cross;
  const double rotated = rope ? static_cast<double>(q.dim(2)) * c.rope.fraction : 0.0;
  list->add("rotary_dims", tfp::Tensor({1}, static_cast<float>(static_cast<int64_t>(rotated))));
  const size_t layer = static_cast<size_t>(std::stoi(block.substr(4, block.find('.', 4) - 4)));
  const int64_t window = cross ? 0 : c.layer_window(block.starts_with("enc."), layer);
  list->add("window", tfp::Tensor({1}, static_cast<float>(window)));
  return list.release();
}

}  // namespace tfp::api

extern "C" int tfp_model_attention_steps(tfp_model* model, const tfp_forward_params* p, const char* set, int layer,
                                         int head, int query, tfp_tensors** out) {
  if (out) *out = nullptr;
  if (!p) return tfp::api::null_params("tfp_model_attention_steps");
  const int32_t *ids = p->ids, *token_type_ids = p->token_type_ids, *attention_mask = p->attention_mask;
  const int32_t* tgt_ids = p->tgt_ids;
  const int32_t n = p->n, n_tgt = p->n_tgt;
  return tfp::api::guard("tfp_model_attention_steps", [&] {
    const char* f = "tfp_model_attention_steps";
    TFP_API_REQUIRE(out != nullptr, f, ": out is NULL");
    const m::LoadedModel& lm = loaded_of(model, f);
    const m::ModelConfig& c = lm.config();
    TFP_API_REQUIRE(c.has_embeddings, f, ": '", lm.source,
                    "' takes embeddings (a PyTorch nn.Transformer checkpoint), not token ids");
    const tfp::api::TokenInputs in =
        tfp::api::read_token_inputs(f, c, ids, n, token_type_ids, attention_mask, tgt_ids, n_tgt);
    const bool enc_dec = c.architecture == m::Architecture::encoder_decoder;
    // Queries: the encoder reads ids; an encoder-decoder's decoder reads tgt_ids.
    const std::string block =
        tfp::api::steps_block(f, c, set, layer, head, query, n, enc_dec ? n_tgt : n, "input",
                              enc_dec ? "decoder input (tgt_ids)" : "input");

    // Record exactly this block's q, k, v and mask (exact names: nothing else is copied).
    tfp::nn::RecordingObserver obs(tfp::api::steps_records(block));
    // Under the model's head mask (if any): later layers see the ablated heads' effect;
    // the chosen row's "out" is the head's own probs·v, before its factor.
    tfp::inspect::WithHeadMask masked(model->head_mask, &obs);
    tfp::api::run_tokens(c, lm.weights(), in, masked.get());

    *out = tfp::api::steps_result(obs, block, head, query, c);
  });
}
