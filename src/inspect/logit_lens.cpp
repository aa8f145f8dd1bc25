// The logit lens (see logit_lens.h): record every decoder layer's output from one
// forward pass, then read each through the final norm and the LM head.
#include "inspect/logit_lens.h"

#include <algorithm>

#include "inspect/head_mask.h"
#include "model/generate.h"
#include "model/sampling.h"
#include "nn/layer_norm.h"

namespace tfp::inspect {

Tensor lens_logits(const model::ModelConfig& cfg, const model::ModelWeights& w,
                   const Tensor& h) {  // (T, C)
  Tensor x = h;
  // The same two steps decoder_stack and lm_logits end with, so the last row is the
  // model's own logits bit for bit.
  if (cfg.decoder_final_norm) nn::layer_norm_inplace(x, w.decoder_norm, "decoder.norm");
  return model::lm_logits(cfg, w, x.view());  // (T, V)
}

LogitLens logit_lens(const model::ModelConfig& cfg, const model::ModelWeights& w,
                     std::span<const int32_t> ids, std::span<const int32_t> tgt_ids, int top_k,
                     nn::Observer* intervention) {
  namespace m = model;
  TFP_CHECK(cfg.architecture != m::Architecture::encoder_only,
            "logit_lens: applies to decoder-only and encoder-decoder models; this one is encoder_only");
  TFP_CHECK(cfg.has_embeddings && cfg.lm_head, "logit_lens: needs token embeddings and an LM head");
  TFP_CHECK(top_k >= 1, "logit_lens: top_k must be >= 1, got ", top_k);
  TFP_CHECK(!ids.empty(), "logit_lens: no input tokens");
  const bool seq2seq = cfg.architecture == m::Architecture::encoder_decoder;
  TFP_CHECK(seq2seq ? !tgt_ids.empty() : tgt_ids.empty(), "logit_lens: ",
            seq2seq ? "an encoder-decoder model needs decoder input ids (tgt_ids)"
                    : "tgt_ids apply to encoder-decoder models only");

  LogitLens lens;
  lens.rows.push_back(seq2seq ? "dec.embed.out" : "embed.out");
  for (int64_t l = 0; l < cfg.n_decoder_layers; ++l) lens.rows.push_back("dec." + std::to_string(l) + ".out");
  nn::RecordingObserver rec(lens.rows);  // exact names: nothing else is copied
  nn::ChainObserver chain(intervention, &rec);
  if (seq2seq)
    m::forward_encoder_decoder(cfg, w, ids, tgt_ids, {}, &chain);
  else
    m::forward_decoder_only(cfg, w, ids, &chain);

  const int64_t T = static_cast<int64_t>(seq2seq ? tgt_ids.size() : ids.size());
  const int64_t K = std::min<int64_t>(top_k, cfg.vocab_size);
  lens.T = T;
  lens.K = K;
  lens.ids.reserve(lens.rows.size() * T * K);
  lens.probs.reserve(lens.rows.size() * T * K);
  for (const std::string& row : lens.rows) {
    const Tensor logits = lens_logits(cfg, w, rec.get(row));  // (T, V)
    const int64_t V = logits.dim(1);
    for (int64_t t = 0; t < T; ++t) {
      const std::vector<double> p =
          m::token_probabilities(std::span<const float>(logits.row(t), static_cast<size_t>(V)));
      for (const auto& [id, prob] : m::top_probabilities(p, static_cast<int>(K))) {
        lens.ids.push_back(id);
        lens.probs.push_back(prob);
      }
    }
  }
  return lens;
}

TaggerLens tagger_lens(const model::ModelConfig& cfg, const model::ModelWeights& w,
                       std::span<const int32_t> ids, nn::Observer* also) {
  namespace m = model;
  TFP_CHECK(cfg.architecture == m::Architecture::encoder_only &&
                cfg.encoder_head == m::EncoderHead::token_classifier,
            "tagger_lens: needs an encoder-only model with a token classifier; this one is ",
            m::architecture_name(cfg.architecture));
  TFP_CHECK(!ids.empty(), "tagger_lens: no input tokens");
  TaggerLens lens;
  lens.rows.push_back("embed.out");
  for (int64_t l = 0; l < cfg.n_encoder_layers; ++l) lens.rows.push_back("enc." + std::to_string(l) + ".out");
  nn::RecordingObserver rec(lens.rows);
  nn::ChainObserver chain(also, &rec);
  m::forward_encoder_only(cfg, w, ids, {}, {}, also ? static_cast<nn::Observer*>(&chain) : &rec);

  lens.T = static_cast<int64_t>(ids.size());
  lens.N = cfg.n_labels;
  lens.probs.reserve(lens.rows.size() * lens.T * lens.N);
  for (const std::string& row : lens.rows) {
    // The same two steps encoder_stack and encoder_head end with: the last row is the
    // model's own output bit for bit.
    Tensor x = rec.get(row);  // (T, C)
    if (cfg.encoder_final_norm) nn::layer_norm_inplace(x, w.encoder_norm, "encoder.norm");
    const Tensor logits = m::encoder_head(cfg, w, x.view());  // (T, N)
    for (int64_t t = 0; t < lens.T; ++t) {
      const std::vector<double> p =
          m::token_probabilities(std::span<const float>(logits.row(t), static_cast<size_t>(lens.N)));
      for (double v : p) lens.probs.push_back(static_cast<float>(v));
    }
  }
  return lens;
}

}  // namespace tfp::inspect
