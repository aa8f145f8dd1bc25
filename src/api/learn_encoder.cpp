// The Learn chapter "The encoder layer" (tfp_learn_encoder_api.h): argument checks and
// tensor lists around nn::layer_norm, model::encoder_stack (through
// inspect::depth_profile), nn::apply_activation and inspect::tagger_lens. No layer maths
// here: the statistics are inspect/stream_stats' measurements.
#include "api/tfp_learn_encoder_api.h"

#include <cmath>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "api/api_edge.h"
#include "api/api_model.h"
#include "api/api_tensors.h"
#include "api/seeded.h"
#include "inspect/head_mask.h"
#include "inspect/logit_lens.h"
#include "nn/observer.h"
#include "inspect/stream_stats.h"
#include "kernels/kernels.h"
#include "model/weights.h"
#include "nn/feed_forward.h"
#include "nn/layer_norm.h"

namespace {

using tfp::Tensor;
using tfp::TensorView;

void require_finite(const char* f, const char* what, const float* p, int rows, int cols) {
  TFP_API_REQUIRE(p != nullptr, f, ": ", what, " is NULL");
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      TFP_API_REQUIRE(std::isfinite(p[r * cols + c]), f, ": ", what, " has ", p[r * cols + c], " at row ", r + 1,
                      ", column ", c + 1, " (inputs must be finite numbers)");
}

tfp::nn::Activation activation_of(const char* f, int kind) {
  TFP_API_REQUIRE(kind >= 0 && kind <= 2, f, ": activation must be 0 (relu), 1 (gelu) or 2 (gelu_new), got ", kind);
  constexpr tfp::nn::Activation kinds[] = {tfp::nn::Activation::relu, tfp::nn::Activation::gelu_erf,
                                           tfp::nn::Activation::gelu_tanh};
  return kinds[kind];
}

// (T, C) → (C, T): the columns as rows, so row_moments measures each feature over tokens.
Tensor transposed(const Tensor& y) {
  const int64_t T = y.dim(0), C = y.dim(1);
  Tensor t({C, T});
  tfp::kernels::transpose(y.ptr(), T, C, t.ptr());
  return t;
}

}  // namespace

extern "C" int tfp_learn_layer_norm(const float* x, int T, int C, const float* gamma, const float* beta, float eps,
                                    tfp_tensors** out) {
  if (out) *out = nullptr;
  constexpr const char* f = "tfp_learn_layer_norm";
  return tfp::api::guard(f, [&] {
    TFP_API_REQUIRE(out != nullptr, f, ": out is NULL");
    TFP_API_REQUIRE(T >= 1 && T <= 4096 && C >= 1 && C <= 4096, f, ": T and C must be in [1, 4096], got T = ", T,
                    ", C = ", C);
    TFP_API_REQUIRE(std::isfinite(eps) && eps > 0.0f, f, ": eps must be a finite number > 0, got ", eps);
    require_finite(f, "x", x, T, C);
    std::vector<float> ones;
    if (gamma) require_finite(f, "gamma", gamma, 1, C);
    else ones.assign(static_cast<size_t>(C), 1.0f);
    if (beta) require_finite(f, "beta", beta, 1, C);
    tfp::nn::LayerNormWeights w;
    w.gamma = TensorView{gamma ? gamma : ones.data(), {C}};
    if (beta) w.beta = TensorView{beta, {C}};
    w.eps = eps;
    const TensorView xv{x, {T, C}};
    Tensor y = tfp::nn::layer_norm(xv, w, "learn.layer_norm");
    auto list = std::make_unique<tfp_tensors>();
    list->add("row_in", tfp::inspect::row_moments(xv));
    list->add("row_out", tfp::inspect::row_moments(y.view()));
    list->add("col_out", tfp::inspect::row_moments(transposed(y).view()));
    list->add("y", std::move(y));
    *out = list.release();
  });
}

extern "C" int tfp_learn_encoder_depth(const tfp_learn_encoder_depth_params* p, double* out) {
  constexpr const char* f = "tfp_learn_encoder_depth";
  if (!p) return tfp::api::null_params(f);
  const int32_t C = p->C, H = p->H, F = p->F, T = p->T, L = p->L, activation = p->activation;
  const int32_t norm_first = p->norm_first;
  const uint32_t seed = p->seed;
  return tfp::api::guard(f, [&] {
    TFP_API_REQUIRE(out != nullptr, f, ": out is NULL");
    TFP_API_REQUIRE(C >= 4 && C <= 256, f, ": C must be in [4, 256], got ", C);
    TFP_API_REQUIRE(H >= 1 && H <= C && C % H == 0, f, ": H must divide C = ", C, ", got ", H);
    TFP_API_REQUIRE(F >= 1 && F <= 1024, f, ": F must be in [1, 1024], got ", F);
    TFP_API_REQUIRE(T >= 1 && T <= 64, f, ": T must be in [1, 64], got ", T);
    TFP_API_REQUIRE(L >= 1 && L <= 96, f, ": L must be in [1, 96], got ", L);
    TFP_API_REQUIRE(norm_first == 0 || norm_first == 1, f, ": norm_first must be 0 (post-LN) or 1 (pre-LN), got ",
                    norm_first);
    namespace m = tfp::model;
    m::ModelConfig cfg;
    cfg.architecture = m::Architecture::encoder_only;
    cfg.family = "learn";
    cfg.d_model = C;
    cfg.n_heads = H;
    cfg.d_ff = F;
    cfg.n_encoder_layers = L;
    cfg.activation = activation_of(f, activation);
    cfg.norm_first = norm_first == 1;
    cfg.has_embeddings = false;  // the stack reads the seeded (T, C) rows directly
    cfg.positional = m::Positional::none;
    cfg.encoder_final_norm = false;
    cfg.encoder_head = m::EncoderHead::none;
    m::check_config(cfg);
    // The same seed gives the same matrices for both placements (the norms are all
    // gamma 1, beta 0): only where the norm sits differs.
    const m::ModelWeights w = m::random_weights(cfg, seed, 1.0f / std::sqrt(static_cast<float>(C)));
    std::vector<float> x(static_cast<size_t>(T) * C);
    tfp::api::SeededStream(seed, "learn.encoder_depth.x").fill_uniform(x, std::sqrt(3.0f));  // variance 1
    const tfp::inspect::DepthProfile p = tfp::inspect::depth_profile(cfg, w, TensorView{x.data(), {T, C}});
    for (int l = 0; l <= L; ++l) {
      out[3 * l] = p.stream_rms[static_cast<size_t>(l)];
      out[3 * l + 1] = p.update_rms[static_cast<size_t>(l)];
      out[3 * l + 2] = p.input_cos[static_cast<size_t>(l)];
    }
  });
}

extern "C" int tfp_learn_activation(int kind, const float* x, int n, float* y) {
  constexpr const char* f = "tfp_learn_activation";
  return tfp::api::guard(f, [&] {
    const tfp::nn::Activation a = activation_of(f, kind);
    TFP_API_REQUIRE(n >= 1 && n <= (1 << 20), f, ": n must be in [1, 2^20], got ", n);
    TFP_API_REQUIRE(y != nullptr, f, ": y is NULL");
    require_finite(f, "x", x, 1, n);
    Tensor t({n}, std::vector<float>(x, x + n));
    tfp::nn::apply_activation(t, a);
    std::copy(t.data.begin(), t.data.end(), y);
  });
}

extern "C" int tfp_learn_tagger_layers(tfp_model* model, const int32_t* ids, int n, tfp_tensors** out) {
  if (out) *out = nullptr;
  constexpr const char* f = "tfp_learn_tagger_layers";
  return tfp::api::guard(f, [&] {
    TFP_API_REQUIRE(out != nullptr, f, ": out is NULL");
    const tfp::model::LoadedModel& lm = tfp::api::loaded_of(model, f);
    const tfp::model::ModelConfig& c = lm.config();
    TFP_API_REQUIRE(c.architecture == tfp::model::Architecture::encoder_only &&
                        c.encoder_head == tfp::model::EncoderHead::token_classifier,
                    f, ": '", lm.source, "' is not an encoder-only token classifier (e.g. brown-pos)");
    TFP_API_REQUIRE(ids != nullptr && n > 0, f, ": no input tokens (n = ", n, ")");
    const int64_t L = c.n_encoder_layers;
    std::vector<std::string> hidden, attn, ffn, stream = {"embed.out"};
    for (int64_t l = 0; l < L; ++l) {
      const std::string p = "enc." + std::to_string(l);
      hidden.push_back(p + ".ffn.hidden");
      attn.push_back(p + ".attn.out");
      ffn.push_back(p + ".ffn.out");
      stream.push_back(p + ".out");
    }
    std::vector<std::string> names = hidden;
    for (const auto* v : {&attn, &ffn, &stream}) names.insert(names.end(), v->begin(), v->end());
    tfp::nn::RecordingObserver rec(names);  // exact names: nothing else is copied
    tfp::inspect::WithHeadMask masked(model->head_mask, &rec);
    const tfp::inspect::TaggerLens lens =
        tfp::inspect::tagger_lens(c, lm.weights(), std::span<const int32_t>(ids, static_cast<size_t>(n)), masked.get());
    auto list = std::make_unique<tfp_tensors>();
    list->add("probs", Tensor({static_cast<int64_t>(lens.rows.size()), lens.T, lens.N}, lens.probs));
    for (const std::string& name : hidden) list->add(name, rec.get(name));
    // (k, T, C) stacks of recorded (T, C) tensors, and each token's rms of them (k, T).
    auto stack = [&](const std::vector<std::string>& ns, const char* name, const char* rms_name) {
      const Tensor& first = rec.get(ns.front());
      const int64_t T = first.dim(0), C = first.dim(1), k = static_cast<int64_t>(ns.size());
      Tensor all({k, T, C}), sizes({k, T});
      for (int64_t i = 0; i < k; ++i) {
        const Tensor& t = rec.get(ns[static_cast<size_t>(i)]);
        std::copy(t.data.begin(), t.data.end(), all.data.begin() + i * T * C);
        const Tensor r = tfp::inspect::row_rms(t.view());
        std::copy(r.data.begin(), r.data.end(), sizes.data.begin() + i * T);
      }
      list->add(name, std::move(all));
      list->add(rms_name, std::move(sizes));
    };
    stack(stream, "stream", "stream_rms");
    stack(attn, "attn_out", "attn_rms");
    stack(ffn, "ffn_out", "ffn_rms");
    *out = list.release();
  });
}
