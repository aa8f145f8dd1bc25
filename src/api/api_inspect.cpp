// C API of the inspector's attention maths (tfp_inspect_api.h): argument checks and
// copies around inspect/rollout.h. No maths here.
#include <algorithm>
#include <vector>

#include "api/api_edge.h"
#include "api/tfp_inspect_api.h"
#include "inspect/head_scores.h"
#include "inspect/rollout.h"

using namespace tfp;

extern "C" int tfp_attention_rollout(const float* probs, int L, int H, int T, float residual, int fusion,
                                     float* out) {
  return api::guard("tfp_attention_rollout", [&] {
    TFP_API_REQUIRE(probs && out, "tfp_attention_rollout: probs or out is NULL");
    TFP_API_REQUIRE(L > 0 && H > 0 && T > 0, "tfp_attention_rollout: L, H, T must be positive, got L=", L,
                    " H=", H, " T=", T);
    TFP_API_REQUIRE(fusion >= 0 && fusion <= 2, "tfp_attention_rollout: fusion ", fusion,
                    " is not 0 (mean), 1 (max) or 2 (min)");
    const int64_t per = static_cast<int64_t>(H) * T * T;
    std::vector<TensorView> layers;
    for (int l = 0; l < L; ++l) layers.emplace_back(probs + l * per, Shape{H, T, T});
    const Tensor r = inspect::attention_rollout(layers, residual, static_cast<inspect::HeadFusion>(fusion));
    std::copy(r.data.begin(), r.data.end(), out);
  });
}

namespace {

// Both head-statistics entry points: the same checks, errors named after the caller.
int head_stats(const char* f, const float* probs, int H, int Tq, int Tk, int causal, const uint8_t* masked,
               float* out) {
  return api::guard(f, [&] {
    TFP_API_REQUIRE(probs && out, f, ": probs or out is NULL");
    TFP_API_REQUIRE(H > 0 && Tq > 0 && Tk > 0, f, ": H, Tq, Tk must be positive, got H=", H, " Tq=", Tq, " Tk=", Tk);
    TFP_API_REQUIRE(causal == 0 || causal == 1, f, ": causal ", causal, " is not 0 or 1");
    const Tensor s = inspect::attention_head_stats(TensorView(probs, Shape{H, Tq, Tk}), causal == 1, masked);
    std::copy(s.data.begin(), s.data.end(), out);
  });
}

}  // namespace

extern "C" int tfp_attention_head_stats_masked(const float* probs, int H, int Tq, int Tk, int causal,
                                               const uint8_t* masked, float* out) {
  return head_stats("tfp_attention_head_stats_masked", probs, H, Tq, Tk, causal, masked, out);
}

extern "C" int tfp_attention_head_stats(const float* probs, int H, int Tq, int Tk, float* out) {
  return head_stats("tfp_attention_head_stats", probs, H, Tq, Tk, 0, nullptr, out);
}

extern "C" int tfp_attention_head_scores(const float* probs, int H, int T, const int32_t* tokens, int repeat,
                                         int flags, float* out) {
  return api::guard("tfp_attention_head_scores", [&] {
    TFP_API_REQUIRE(probs && tokens && out, "tfp_attention_head_scores: probs, tokens or out is NULL");
    TFP_API_REQUIRE(H > 0 && T > 0, "tfp_attention_head_scores: H, T must be positive, got H=", H, " T=", T);
    TFP_API_REQUIRE(repeat >= 1 && 2 * static_cast<int64_t>(repeat) <= T, "tfp_attention_head_scores: repeat ",
                    repeat, " does not fit T=", T, " (need 1 <= repeat, 2 * repeat <= T)");
    TFP_API_REQUIRE(flags >= 0 && flags <= 3, "tfp_attention_head_scores: flags ", flags,
                    " is not a combination of 1 (exclude_bos) and 2 (exclude_current_token)");
    inspect::HeadScoreOptions o;
    o.exclude_bos = (flags & 1) != 0;
    o.exclude_current = (flags & 2) != 0;
    const Tensor s = inspect::attention_head_scores(TensorView(probs, Shape{H, T, T}), tokens, repeat, o);
    std::copy(s.data.begin(), s.data.end(), out);
  });
}
