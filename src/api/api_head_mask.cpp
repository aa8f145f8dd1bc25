// tfp_model_set_head_mask / tfp_model_clear_head_mask (the head mask every later call on
// the handle runs under, inspect/head_mask.h) and tfp_model_logit_lens
// (inspect/logit_lens.h), and tfp_model_head_mask_effect (the model with and without the
// mask, side by side: the same outputs the page shows - next-token probabilities, the
// fillers of each [MASK], per-token labels, the translation with the page's beam).
// Argument checks and copies; the maths is in inspect/ and model/.
#include <algorithm>
#include <cmath>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "api/api_decode.h"
#include "api/api_edge.h"
#include "api/api_model.h"
#include "api/api_tensors.h"
#include "api/api_token_inputs.h"
#include "api/tfp_inspect_api.h"
#include "inspect/head_mask.h"
#include "inspect/logit_lens.h"
#include "model/beam.h"
#include "model/fill_mask.h"
#include "model/generate.h"
#include "model/sampling.h"

using tfp::api::loaded_of;
namespace m = tfp::model;

extern "C" {

int tfp_model_set_head_mask(tfp_model* model, const char* set, int layer, const float* scales, int n_heads) {
  return tfp::api::guard("tfp_model_set_head_mask", [&] {
    const char* f = "tfp_model_set_head_mask";
    const m::LoadedModel& lm = loaded_of(model, f);
    const m::ModelConfig& c = lm.config();
    TFP_API_REQUIRE(set != nullptr, f, ": set is NULL (\"enc\", \"dec\" or \"cross\")");
    const std::string s(set);
    const bool enc_dec = c.architecture == m::Architecture::encoder_decoder;
    const bool known = (s == "enc" && c.has_encoder()) || (s == "dec" && c.has_decoder()) ||
                       (s == "cross" && enc_dec);
    std::string valid;
    if (c.has_encoder()) valid += "\"enc\"";
    if (c.has_decoder()) valid += std::string(valid.empty() ? "" : ", ") + "\"dec\"";
    if (enc_dec) valid += ", \"cross\"";
    TFP_API_REQUIRE(known, f, ": set \"", s, "\" does not exist in this ", m::architecture_name(c.architecture),
                    " model (valid: ", valid, ")");
    const int64_t L = s == "enc" ? c.n_encoder_layers : c.n_decoder_layers;
    TFP_API_REQUIRE(layer >= 0 && layer < L, f, ": layer ", layer, " is out of range: the model has ", L, " ",
                    s == "enc" ? "encoder" : "decoder", " layers (0..", L - 1, ")");
    TFP_API_REQUIRE(n_heads == c.n_heads, f, ": ", n_heads, " factors given; the model has ", c.n_heads,
                    " heads per block (one factor each)");
    TFP_API_REQUIRE(scales != nullptr, f, ": scales is NULL");
    for (int h = 0; h < n_heads; ++h)
      TFP_API_REQUIRE(std::isfinite(scales[h]), f, ": the factor of head ", h, " is not finite (", scales[h], ")");
    model->head_mask.set(tfp::inspect::head_block_name(s, layer), std::vector<float>(scales, scales + n_heads));
  });
}

int tfp_model_clear_head_mask(tfp_model* model) {
  return tfp::api::guard("tfp_model_clear_head_mask", [&] {
    loaded_of(model, "tfp_model_clear_head_mask");
    model->head_mask.clear();
  });
}

int tfp_model_logit_lens(tfp_model* model, const int32_t* ids, int n, const int32_t* tgt_ids, int n_tgt,
                         int top_k, tfp_tensors** out) {
  if (out) *out = nullptr;
  return tfp::api::guard("tfp_model_logit_lens", [&] {
    const char* f = "tfp_model_logit_lens";
    TFP_API_REQUIRE(out != nullptr, f, ": out is NULL");
    const m::LoadedModel& lm = loaded_of(model, f);
    const m::ModelConfig& c = lm.config();
    TFP_API_REQUIRE(c.architecture != m::Architecture::encoder_only, f, ": '", lm.source,
                    "' is an encoder-only model; the logit lens reads a decoder's residual stream through its LM "
                    "head (decoder-only or encoder-decoder models)");
    TFP_API_REQUIRE(c.has_embeddings && c.lm_head, f, ": '", lm.source,
                    "' has no token embeddings or no LM head to read the residual stream with");
    TFP_API_REQUIRE(ids != nullptr && n > 0, f, ": no input tokens (n = ", n, ")");
    TFP_API_REQUIRE(top_k >= 1, f, ": top_k must be at least 1, got ", top_k);
    const bool enc_dec = c.architecture == m::Architecture::encoder_decoder;
    TFP_API_REQUIRE(!enc_dec || (tgt_ids != nullptr && n_tgt > 0), f,
                    ": an encoder-decoder model needs decoder input ids (tgt_ids)");
    TFP_API_REQUIRE(enc_dec || n_tgt <= 0, f, ": tgt_ids apply to encoder-decoder models only");
    tfp::inspect::WithHeadMask masked(model->head_mask, nullptr);
    const tfp::inspect::LogitLens lens = tfp::inspect::logit_lens(
        c, lm.weights(), std::span<const int32_t>(ids, static_cast<size_t>(n)),
        enc_dec ? std::span<const int32_t>(tgt_ids, static_cast<size_t>(n_tgt)) : std::span<const int32_t>{}, top_k,
        masked.get());
    const tfp::Shape shape{static_cast<int64_t>(lens.rows.size()), lens.T, lens.K};
    tfp::Tensor id_t(shape), prob_t(shape, lens.probs);
    for (size_t i = 0; i < lens.ids.size(); ++i) id_t.data[i] = static_cast<float>(lens.ids[i]);
    auto list = std::make_unique<tfp_tensors>();
    list->add("ids", std::move(id_t));
    list->add("probs", std::move(prob_t));
    *out = list.release();
  });
}

}  // extern "C"

namespace {

tfp::Tensor floats_of(const std::vector<int32_t>& v) {
  tfp::Tensor t({static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i) t.data[i] = static_cast<float>(v[i]);
  return t;
}

}  // namespace

extern "C" int tfp_model_head_mask_effect(tfp_model* model, const int32_t* ids, int n, int top_k, int beam_size,
                                          tfp_tensors** out) {
  if (out) *out = nullptr;
  return tfp::api::guard("tfp_model_head_mask_effect", [&] {
    const char* f = "tfp_model_head_mask_effect";
    TFP_API_REQUIRE(out != nullptr, f, ": out is NULL");
    const m::LoadedModel& lm = loaded_of(model, f);
    const m::ModelConfig& c = lm.config();
    TFP_API_REQUIRE(c.has_embeddings, f, ": '", lm.source, "' takes embeddings, not token ids");
    TFP_API_REQUIRE(ids != nullptr && n > 0, f, ": no input tokens (n = ", n, ")");
    TFP_API_REQUIRE(top_k >= 1, f, ": top_k must be at least 1, got ", top_k);
    TFP_API_REQUIRE(beam_size >= 1, f, ": beam_size must be at least 1 (1 = greedy), got ", beam_size);
    const std::span<const int32_t> x(ids, static_cast<size_t>(n));
    tfp::inspect::HeadMaskObserver masked(model->head_mask);
    tfp::nn::Observer* with = model->head_mask.empty() ? nullptr : &masked;
    auto list = std::make_unique<tfp_tensors>();
    switch (c.architecture) {
      case m::Architecture::decoder_only: {
        TFP_API_REQUIRE(c.lm_head, f, ": '", lm.source, "' has no LM head");
        std::vector<std::vector<double>> p;
        for (tfp::nn::Observer* o : {static_cast<tfp::nn::Observer*>(nullptr), with}) {
          const tfp::Tensor logits = tfp::api::run_tokens(c, lm.weights(), {.ids = x}, o).logits;  // (T, V)
          const int64_t V = logits.dim(1);
          p.push_back(m::token_probabilities(std::span<const float>(logits.row(logits.dim(0) - 1), static_cast<size_t>(V))));
        }
        std::vector<int32_t> pick;
        for (int run : {1, 0})
          for (const auto& [id, prob] : m::top_probabilities(p[static_cast<size_t>(run)], top_k))
            if (std::find(pick.begin(), pick.end(), id) == pick.end()) pick.push_back(id);
        tfp::Tensor before({static_cast<int64_t>(pick.size())}), after({static_cast<int64_t>(pick.size())});
        for (size_t i = 0; i < pick.size(); ++i) {
          before.data[i] = static_cast<float>(p[0][static_cast<size_t>(pick[i])]);
          after.data[i] = static_cast<float>(p[1][static_cast<size_t>(pick[i])]);
        }
        list->add("ids", floats_of(pick));
        list->add("before", std::move(before));
        list->add("after", std::move(after));
        break;
      }
      case m::Architecture::encoder_only: {
        // A masked LM with [MASK]s in the input: what the page shows is each mask's
        // fillers (tfp_model_fill_mask), so compare those.
        const int32_t mask_id = lm.tokenizer ? static_cast<int32_t>(lm.tokenizer->special_ids().mask) : -1;
        if (c.encoder_head == m::EncoderHead::masked_lm && mask_id >= 0 &&
            std::find(x.begin(), x.end(), mask_id) != x.end()) {
          const char* names[2][2] = {{"fill_ids_before", "fill_probs_before"}, {"fill_ids_after", "fill_probs_after"}};
          int run = 0;
          for (tfp::nn::Observer* o : {static_cast<tfp::nn::Observer*>(nullptr), with}) {
            const std::vector<m::MaskPrediction> found =
                m::fill_mask_forward(c, lm.weights(), x, {}, {}, mask_id, top_k, o);
            const int64_t M = static_cast<int64_t>(found.size()), K = static_cast<int64_t>(found[0].ids.size());
            tfp::Tensor fid({M, K}), fprob({M, K}), pos({M});
            for (int64_t r = 0; r < M; ++r) {
              const m::MaskPrediction& p = found[static_cast<size_t>(r)];
              pos.data[static_cast<size_t>(r)] = static_cast<float>(p.position);
              for (int64_t k = 0; k < K; ++k) {
                fid.data[static_cast<size_t>(r * K + k)] = static_cast<float>(p.ids[static_cast<size_t>(k)]);
                fprob.data[static_cast<size_t>(r * K + k)] = p.probs[static_cast<size_t>(k)];
              }
            }
            if (run == 0) list->add("mask_positions", std::move(pos));
            list->add(names[run][0], std::move(fid));
            list->add(names[run][1], std::move(fprob));
            ++run;
          }
          break;
        }
        const char* names[2][2] = {{"argmax_before", "prob_before"}, {"argmax_after", "prob_after"}};
        int run = 0;
        for (tfp::nn::Observer* o : {static_cast<tfp::nn::Observer*>(nullptr), with}) {
          const tfp::Tensor logits = tfp::api::run_tokens(c, lm.weights(), {.ids = x}, o).logits;
          TFP_API_REQUIRE(!logits.empty(), f, ": '", lm.source, "' has no head (hidden states only)");
          const int64_t T = logits.dim(0), V = logits.dim(1);
          std::vector<int32_t> best;
          tfp::Tensor prob({T});
          for (int64_t t = 0; t < T; ++t) {
            const auto top = m::top_probabilities(
                m::token_probabilities(std::span<const float>(logits.row(t), static_cast<size_t>(V))), 1);
            best.push_back(top[0].first);
            prob.data[static_cast<size_t>(t)] = top[0].second;
          }
          list->add(names[run][0], floats_of(best));
          list->add(names[run][1], std::move(prob));
          ++run;
        }
        break;
      }
      case m::Architecture::encoder_decoder: {
        // As tfp_model_translate with this beam (max_tokens 0, start_id -1, eos_id -1).
        m::DecodeOptions opt = tfp::api::decode_options(lm, beam_size, 0, -1, -1, f);
        opt.observer = nullptr;
        list->add("before", floats_of(m::decode_seq2seq(c, lm.weights(), x, opt).ids));
        opt.observer = with;
        list->add("after", floats_of(m::decode_seq2seq(c, lm.weights(), x, opt).ids));
        break;
      }
    }
    *out = list.release();
  });
}
