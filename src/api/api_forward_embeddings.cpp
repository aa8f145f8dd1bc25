// tfp_model_forward_embeddings, tfp_model_attention_steps_embeddings and
// tfp_sinusoidal_positions: models that read vectors (PyTorch nn.Transformer*
// checkpoints) behind the C API. Argument checks and copies into model::TorchInputs;
// the forward pass is model::run_torch, the same one the checkpoint tests compare with
// PyTorch, and the drill-down replays rows through api_attention_steps.h. Both run
// under the handle's head mask (tfp_model_set_head_mask), as tfp_model_forward does.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "api/api_attention_steps.h"
#include "api/api_edge.h"
#include "api/api_embeddings.h"
#include "api/api_model.h"
#include "api/api_tensors.h"
#include "api/tfp_inspect_api.h"
#include "inspect/head_mask.h"
#include "model/transformer.h"
#include "nn/positional_sinusoidal.h"

namespace m = tfp::model;
using tfp::api::loaded_of;

namespace tfp::api {

namespace {

constexpr int kKnownFlags = TFP_EMBED_CAUSAL_SRC | TFP_EMBED_CAUSAL_TGT;

// (L, C) rows copied into a tensor; every value must be finite (a NaN would spread
// through every later row of attention without saying where it came from).
Tensor rows(const char* f, const char* what, const float* x, int L, int C) {
  Tensor t({L, C});
  for (int i = 0; i < L; ++i) {
    for (int j = 0; j < C; ++j) {
      const float v = x[static_cast<size_t>(i) * static_cast<size_t>(C) + static_cast<size_t>(j)];
      TFP_CHECK(std::isfinite(v), f, ": ", what, "[", i, ", ", j, "] is not finite (", v, ")");
      t.row(i)[j] = v;
    }
  }
  return t;
}

std::vector<uint8_t> padding(const char* f, const char* what, const uint8_t* p, int L) {
  if (!p) return {};
  std::vector<uint8_t> out(p, p + L);
  for (int i = 0; i < L; ++i)
    TFP_API_REQUIRE(out[i] <= 1, f, ": ", what, "[", i, "] is ", static_cast<int>(out[i]),
                    " (1 = padding, 0 = real token)");
  return out;
}

}  // namespace

bool words_fallback(const tfp_model* model) {
  return model && model->loaded && !model->loaded->tokenizer && !model->loaded->config().has_embeddings;
}

m::CheckpointFamily embedding_module(const m::ModelConfig& c, const char* f) {
  switch (c.architecture) {
    case m::Architecture::encoder_only: return m::CheckpointFamily::torch_encoder;
    case m::Architecture::encoder_decoder:
      return c.n_encoder_layers > 0 ? m::CheckpointFamily::torch_transformer : m::CheckpointFamily::torch_decoder;
    case m::Architecture::decoder_only: break;
  }
  argument_error(f, ": a decoder_only stack without embeddings has no nn.Transformer counterpart "
                    "(an nn.TransformerDecoder always has cross-attention: kind \"decoder\")");
}

m::TorchResult run_embeddings(const m::LoadedModel& lm, const char* f, int C, const float* src, int S,
                              const float* tgt, int T, const uint8_t* src_padding, const uint8_t* tgt_padding,
                              int flags, nn::Observer* obs) {
  const m::ModelConfig& c = lm.config();
  TFP_API_REQUIRE(!c.has_embeddings, f, ": '", lm.source,
                  "' has token embeddings: it takes token ids (tfp_model_forward), not vectors");
  const m::CheckpointFamily module = embedding_module(c, f);
  const bool has_tgt = module != m::CheckpointFamily::torch_encoder;
  const char* src_name = module == m::CheckpointFamily::torch_decoder ? "src (the decoder's memory)" : "src";
  TFP_API_REQUIRE(C == c.d_model, f, ": the inputs' rows have C = ", C, " values but '", lm.source,
                  "' has d_model = ", c.d_model, " (src is (S, ", c.d_model, ")",
                  has_tgt ? ", tgt (T, " + std::to_string(c.d_model) + ")" : std::string(), ")");
  TFP_API_REQUIRE(src != nullptr && S > 0, f, ": ", src_name, " needs at least one row (S = ", S,
                  src ? ")" : ", src is NULL)");
  if (has_tgt) {
    TFP_API_REQUIRE(tgt != nullptr && T > 0, f, ": this ", m::family_name(module),
                    " model needs the decoder's input tgt (T, ", c.d_model, ") with T >= 1 (T = ", T,
                    tgt ? ")" : ", tgt is NULL)");
  } else {
    TFP_API_REQUIRE(tgt == nullptr && T == 0 && tgt_padding == nullptr, f,
                    ": an encoder-only model reads src only; tgt must be NULL and T 0 (T = ", T, ")");
  }
  TFP_API_REQUIRE((flags & ~kKnownFlags) == 0, f, ": unknown flag bits ", flags & ~kKnownFlags,
                  " (known: TFP_EMBED_CAUSAL_SRC = 1, TFP_EMBED_CAUSAL_TGT = 2)");
  TFP_API_REQUIRE(!(flags & TFP_EMBED_CAUSAL_SRC) || module != m::CheckpointFamily::torch_decoder, f,
                  ": TFP_EMBED_CAUSAL_SRC: this bare decoder has no encoder (src is its memory, which "
                  "has no self-attention)");
  TFP_API_REQUIRE(!(flags & TFP_EMBED_CAUSAL_TGT) || has_tgt, f,
                  ": TFP_EMBED_CAUSAL_TGT: an encoder-only model has no decoder (use TFP_EMBED_CAUSAL_SRC)");

  m::TorchInputs in;
  Tensor x = rows(f, "src", src, S, C);
  if (has_tgt) in.tgt = rows(f, "tgt", tgt, T, C);
  const std::vector<uint8_t> src_pad = padding(f, "src_padding", src_padding, S);
  // The source is a key wherever it is read: the encoder's self-attention and the
  // decoder's cross-attention (PyTorch callers pass the same mask to both).
  if (module == m::CheckpointFamily::torch_decoder) {
    in.memory = std::move(x);
  } else {
    in.src = std::move(x);
    in.masks.src_key_padding = src_pad;
  }
  if (module != m::CheckpointFamily::torch_encoder) in.masks.memory_key_padding = src_pad;
  in.masks.tgt_key_padding = padding(f, "tgt_padding", tgt_padding, T);
  in.masks.tgt_causal = (flags & TFP_EMBED_CAUSAL_TGT) != 0;
  if (flags & TFP_EMBED_CAUSAL_SRC) {
    std::vector<uint8_t> future(static_cast<size_t>(S) * static_cast<size_t>(S), 0);
    for (int i = 0; i < S; ++i)
      for (int j = i + 1; j < S; ++j) future[static_cast<size_t>(i) * static_cast<size_t>(S) + static_cast<size_t>(j)] = 1;
    in.masks.src_mask = m::bool_mask(future, S, S);  // 0 / -inf, as PyTorch's boolean mask
  }
  return m::run_torch(c, lm.weights(), module, in, obs);
}

}  // namespace tfp::api

extern "C" {

int tfp_model_forward_embeddings(tfp_model* model, const tfp_embeddings_params* p, tfp_tensors** out) {
  if (out) *out = nullptr;
  const char* f = "tfp_model_forward_embeddings";
  if (!p) return tfp::api::null_params(f);
  const int32_t C = p->C, S = p->S, T = p->T, flags = p->flags;
  const float *src = p->src, *tgt = p->tgt;
  const uint8_t *src_padding = p->src_padding, *tgt_padding = p->tgt_padding;
  return tfp::api::guard(f, [&] {
    TFP_API_REQUIRE(out != nullptr, f, ": out is NULL");
    const m::LoadedModel& lm = loaded_of(model, f);
    tfp::nn::RecordingObserver obs({"*.probs"});
    tfp::inspect::WithHeadMask masked(model->head_mask, &obs);  // the head mask (if any) first, then the recorder
    m::TorchResult r =
        tfp::api::run_embeddings(lm, f, C, src, S, tgt, T, src_padding, tgt_padding, flags, masked.get());
    auto list = std::make_unique<tfp_tensors>();
    list->add_summaries(r.output, nullptr);  // hidden_norm: each output row's length
    list->add("hidden", std::move(r.output));
    if (!r.memory.empty()) list->add("memory", std::move(r.memory));
    for (auto& [name, t] : obs.records()) list->add(name, t);
    *out = list.release();
  });
}

int tfp_model_attention_steps_embeddings(tfp_model* model, const tfp_embeddings_params* p, const char* set, int layer,
                                         int head, int query, tfp_tensors** out) {
  if (out) *out = nullptr;
  const char* f = "tfp_model_attention_steps_embeddings";
  if (!p) return tfp::api::null_params(f);
  const int32_t C = p->C, S = p->S, T = p->T, flags = p->flags;
  const float *src = p->src, *tgt = p->tgt;
  const uint8_t *src_padding = p->src_padding, *tgt_padding = p->tgt_padding;
  return tfp::api::guard(f, [&] {
    TFP_API_REQUIRE(out != nullptr, f, ": out is NULL");
    const m::LoadedModel& lm = loaded_of(model, f);
    const m::ModelConfig& c = lm.config();
    TFP_API_REQUIRE(!c.has_embeddings, f, ": '", lm.source,
                    "' has token embeddings: use tfp_model_attention_steps with token ids");
    // Check the request before running anything: S and T as given (run_embeddings
    // checks them against the model next).
    const std::string block =
        tfp::api::steps_block(f, c, set, layer, head, query, S, T, "source (src)", "decoder input (tgt)");
    tfp::nn::RecordingObserver obs(tfp::api::steps_records(block));
    // Under the head mask, as tfp_model_attention_steps: later layers see the ablated
    // heads' effect; the chosen row's "out" is the head's own probs·v, before its factor.
    tfp::inspect::WithHeadMask masked(model->head_mask, &obs);
    tfp::api::run_embeddings(lm, f, C, src, S, tgt, T, src_padding, tgt_padding, flags, masked.get());
    *out = tfp::api::steps_result(obs, block, head, query, c);
  });
}

int tfp_sinusoidal_positions(int pos0, int T, int C, int add, float* out) {
  const char* f = "tfp_sinusoidal_positions";
  return tfp::api::guard(f, [&] {
    TFP_API_REQUIRE(pos0 >= 0 && T >= 0, f, ": pos0 ", pos0, " and T ", T, " must be >= 0");
    TFP_API_REQUIRE(C > 0, f, ": C must be positive, got ", C);
    if (T == 0) return;
    TFP_API_REQUIRE(out != nullptr, f, ": out is NULL");
    const tfp::Tensor pe = tfp::nn::sinusoidal_encoding(T, C, pos0);  // (T, C), what embed adds
    if (add) {
      for (size_t i = 0; i < pe.data.size(); ++i) out[i] += pe.data[i];
    } else {
      std::copy(pe.data.begin(), pe.data.end(), out);
    }
  });
}

}  // extern "C"
