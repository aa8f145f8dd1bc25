// The Learn chapter "The encoder layer" (src/api/tfp_learn_encoder_api.h), and the pieces
// of inspect/ it reads: row_moments, rms, depth_profile, tagger_lens, and the observer's
// "enc.i.ffn.hidden".
//
// Oracles and tolerances:
//   - tfp_learn_layer_norm: two rows derived by hand below (1e-5 absolute: float32
//     normalisation of 4 values); column statistics from the hand-derived y.
//   - tfp_learn_encoder_depth: post-LN: every output row is LayerNorm'd with gamma 1,
//     beta 0, so its mean is 0 and variance var/(var + eps) -> rms 1 (1e-3); pre-LN: the
//     same numbers as nn::encoder_layer applied layer by layer in this test, the rms taken
//     here in double (1e-9 relative: the same floats, the sum in a different order is not
//     involved - the same loop); the seeded input has variance 1 (rms within 0.1 of 1 over
//     T·C = 1024 uniform draws: 4 standard errors is 0.07).
//   - tfp_learn_activation: relu by definition; gelu(1) = Φ(1) = 0.8413447 (erf table),
//     gelu_new(1) = 0.5(1 + tanh(√(2/π)·1.044715)) = 0.8411920 (1e-6).
//   - tfp_learn_tagger_layers on models/brown-pos: the last row equals softmax of
//     tfp_model_forward's logits computed in double here (1e-6); row 0 equals the
//     recorded embeddings through nn::layer_norm (encoder norm) and nn::linear (classifier),
//     softmax in double here (1e-6); each layer's hidden activations equal
//     act(fc1(LN2(h + attn.out))) composed here from nn pieces on the recorded stream
//     (1e-5: the same float ops, in a different grouping) - the feed-forward's own
//     fc2(hidden) is the recorded ffn.out exactly; the returned stream obeys the pre-LN
//     adds stream[l+1] = (stream[l] + attn_out[l]) + ffn_out[l] exactly, and each rms
//     equals a double sum here (1e-6 relative).
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "api/seeded.h"
#include "api/tfp_learn_encoder_api.h"
#include "inspect/logit_lens.h"
#include "nn/observer.h"
#include "inspect/stream_stats.h"
#include "model/model.h"
#include "model/transformer.h"
#include "model/weights.h"
#include "nn/transformer_block.h"
#include "nn/layer_norm.h"
#include "nn/linear.h"
#include "test_api_params.h"
#include "test_checkpoint_util.h"

using namespace tfp;

namespace {

Tensor take_tensor(tfp_tensors* list, const char* name) {
  const int i = tfp_tensors_find(list, name);
  REQUIRE_MESSAGE(i >= 0, name);
  Shape shape(tfp_tensors_dims(list, i), tfp_tensors_dims(list, i) + tfp_tensors_rank(list, i));
  Tensor t(shape);
  std::copy(tfp_tensors_data(list, i), tfp_tensors_data(list, i) + t.numel(), t.ptr());
  return t;
}

std::vector<double> softmax_double(const float* z, int64_t n) {
  double mx = z[0];
  for (int64_t i = 1; i < n; ++i) mx = std::max(mx, static_cast<double>(z[i]));
  std::vector<double> p(static_cast<size_t>(n));
  double s = 0;
  for (int64_t i = 0; i < n; ++i) s += p[i] = std::exp(z[i] - mx);
  for (double& v : p) v /= s;
  return p;
}

double test_max_abs(const Tensor& a, const Tensor& b) {
  REQUIRE(a.shape == b.shape);
  double m = 0;
  for (int64_t i = 0; i < a.numel(); ++i) m = std::max(m, static_cast<double>(std::fabs(a.data[i] - b.data[i])));
  return m;
}

const std::string kPosDir = std::string(TFP_FIXTURES_DIR) + "/../../models/brown-pos";

}  // namespace

TEST_CASE("learn encoder: layer norm of two rows, by hand; statistics per row and per column") {
  // Row 0 = [1, 2, 3, 4]: mean 2.5, biased variance (2.25 + 0.25 + 0.25 + 2.25)/4 = 1.25,
  // y = (x - 2.5)/sqrt(1.25 + 1e-5) = ±0.4472118, ±1.3416355.
  // Row 1 = 2·row 0 = [2, 4, 6, 8]: mean 5, variance 5, and the same y up to eps
  // (LayerNorm does not see a row's scale): y1 - y0 ≈ 1.3·(1e-5/1.25 - 1e-5/5)/2 ~ 4e-6.
  const float x[8] = {1, 2, 3, 4, 2, 4, 6, 8};
  tfp_tensors* out = nullptr;
  REQUIRE(tfp_learn_layer_norm(x, 2, 4, nullptr, nullptr, 1e-5f, &out) == TFP_OK);
  const Tensor y = take_tensor(out, "y"), rin = take_tensor(out, "row_in"), rout = take_tensor(out, "row_out"),
               col = take_tensor(out, "col_out");
  tfp_tensors_free(out);
  CHECK(y.shape == Shape{2, 4});
  CHECK(col.shape == Shape{4, 2});
  const double s = std::sqrt(1.25 + 1e-5);
  const double want[4] = {-1.5 / s, -0.5 / s, 0.5 / s, 1.5 / s};
  for (int c = 0; c < 4; ++c) {
    CHECK(std::fabs(y.data[c] - want[c]) < 1e-5);
    CHECK(std::fabs(y.data[4 + c] - want[c]) < 1e-5);
  }
  CHECK(rin.data[0] == doctest::Approx(2.5));
  CHECK(rin.data[1] == doctest::Approx(1.25));
  CHECK(rin.data[2] == doctest::Approx(5.0));
  CHECK(rin.data[3] == doctest::Approx(5.0));
  for (int r = 0; r < 2; ++r) {
    CHECK(std::fabs(rout.data[2 * r]) < 1e-6);                // mean 0
    CHECK(std::fabs(rout.data[2 * r + 1] - 1.0) < 1e-4);      // var/(var + eps) ≈ 1
  }
  // Columns: both rows hold (almost) the same y, so each feature's mean over the tokens
  // is that y and its variance ~0: LayerNorm normalises each token, not each feature.
  for (int c = 0; c < 4; ++c) {
    CHECK(std::fabs(col.data[2 * c] - want[c]) < 1e-5);
    CHECK(col.data[2 * c + 1] < 1e-9);
  }

  // gamma, beta apply after the normalisation: y = 2·ŷ + 1.
  const float g[4] = {2, 2, 2, 2}, b[4] = {1, 1, 1, 1};
  REQUIRE(tfp_learn_layer_norm(x, 1, 4, g, b, 1e-5f, &out) == TFP_OK);
  const Tensor y2 = take_tensor(out, "y"), r2 = take_tensor(out, "row_out");
  tfp_tensors_free(out);
  for (int c = 0; c < 4; ++c) CHECK(std::fabs(y2.data[c] - (2 * want[c] + 1)) < 2e-5);
  CHECK(std::fabs(r2.data[0] - 1.0) < 1e-5);  // mean beta
  CHECK(std::fabs(r2.data[1] - 4.0) < 1e-3);  // variance gamma²

  // Bad arguments: clear errors, nothing written.
  const float bad[4] = {1, NAN, 3, 4};
  CHECK(tfp_learn_layer_norm(bad, 1, 4, nullptr, nullptr, 1e-5f, &out) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(tfp_last_error()).find("row 1, column 2") != std::string::npos);
  CHECK(out == nullptr);
  CHECK(tfp_learn_layer_norm(x, 0, 4, nullptr, nullptr, 1e-5f, &out) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(tfp_learn_layer_norm(x, 2, 4, nullptr, nullptr, 0.0f, &out) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(tfp_learn_layer_norm(nullptr, 2, 4, nullptr, nullptr, 1e-5f, &out) == TFP_ERR_INVALID_ARGUMENT);
}

TEST_CASE("learn encoder: a random deep stack, post-LN keeps rms 1, pre-LN = nn::encoder_layer by hand") {
  const int C = 32, H = 4, F = 128, T = 32, L = 24;
  std::vector<double> post((L + 1) * 3), pre((L + 1) * 3);
  REQUIRE(tfp_learn_encoder_depth(tfp::testing::params(tfp_learn_encoder_depth_params{
                                      .C = C, .H = H, .F = F, .T = T, .L = L, .activation = 1, .seed = 7}),
                                  post.data()) == TFP_OK);
  REQUIRE(
      tfp_learn_encoder_depth(tfp::testing::params(tfp_learn_encoder_depth_params{
                                  .C = C, .H = H, .F = F, .T = T, .L = L, .activation = 1, .norm_first = 1, .seed = 7}),
                              pre.data()) == TFP_OK);
  // The same seeded input for both placements, variance 1.
  CHECK(post[0] == pre[0]);
  CHECK(std::fabs(post[0] - 1.0) < 0.1);
  CHECK(post[1] == 0.0);
  CHECK(post[2] == 1.0);
  for (int l = 1; l <= L; ++l) {
    CAPTURE(l);
    CHECK(std::fabs(post[3 * l] - 1.0) < 1e-3);  // LN output: mean 0, variance ≈ 1 per row
    CHECK(pre[3 * l + 1] > 0.0);
    CHECK(std::fabs(pre[3 * l + 2]) <= 1.0);
  }
  // Pre-LN: the stream is never normalised; each layer adds to it and it grows.
  CHECK(pre[3 * L] > 2.0 * pre[3]);

  // The same numbers from nn::encoder_layer applied here, one layer after another.
  model::ModelConfig cfg;
  cfg.architecture = model::Architecture::encoder_only;
  cfg.d_model = C; cfg.n_heads = H; cfg.d_ff = F; cfg.n_encoder_layers = L;
  cfg.activation = nn::Activation::gelu_erf;
  cfg.norm_first = true;
  cfg.has_embeddings = false;
  cfg.positional = model::Positional::none;
  const model::ModelWeights w = model::random_weights(cfg, 7, 1.0f / std::sqrt(static_cast<float>(C)));
  std::vector<float> x0(static_cast<size_t>(T) * C);
  api::SeededStream(7, "learn.encoder_depth.x").fill_uniform(x0, std::sqrt(3.0f));
  Tensor h({T, C}, x0);
  const Tensor input = h;
  CHECK(inspect::rms(h.view()) == doctest::Approx(pre[0]).epsilon(1e-12));
  for (int l = 0; l < L; ++l) {
    const Tensor next = nn::encoder_layer(h.view(), w.encoder_layers[static_cast<size_t>(l)],
                                          model::layer_options(cfg), {});
    double sq = 0, dsq = 0, dot = 0, xx = 0;
    for (int64_t i = 0; i < next.numel(); ++i) {
      sq += static_cast<double>(next.data[i]) * next.data[i];
      const double d = static_cast<double>(next.data[i] - h.data[i]);
      dsq += d * d;
      dot += static_cast<double>(next.data[i]) * input.data[i];
      xx += static_cast<double>(input.data[i]) * input.data[i];
    }
    CHECK(std::sqrt(sq / next.numel()) == doctest::Approx(pre[3 * (l + 1)]).epsilon(1e-9));
    CHECK(std::sqrt(dsq / next.numel()) == doctest::Approx(pre[3 * (l + 1) + 1]).epsilon(1e-9));
    CHECK(dot / std::sqrt(sq * xx) == doctest::Approx(pre[3 * (l + 1) + 2]).epsilon(1e-9));
    h = next;
  }

  double out2[6];
  CHECK(tfp_learn_encoder_depth(
            tfp::testing::params(tfp_learn_encoder_depth_params{
                .C = 30, .H = 4, .F = F, .T = T, .L = 1, .activation = 1, .norm_first = 1, .seed = 7}),
            out2) == TFP_ERR_INVALID_ARGUMENT);  // 4 ∤ 30
  CHECK(std::string(tfp_last_error()).find("H must divide C") != std::string::npos);
  CHECK(tfp_learn_encoder_depth(tfp::testing::params(tfp_learn_encoder_depth_params{
                                    .C = C, .H = H, .F = F, .T = T, .activation = 1, .norm_first = 1, .seed = 7}),
                                out2) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(
      tfp_learn_encoder_depth(tfp::testing::params(tfp_learn_encoder_depth_params{
                                  .C = C, .H = H, .F = F, .T = T, .L = 1, .activation = 3, .norm_first = 1, .seed = 7}),
                              out2) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(
      tfp_learn_encoder_depth(tfp::testing::params(tfp_learn_encoder_depth_params{
                                  .C = C, .H = H, .F = F, .T = T, .L = 1, .activation = 1, .norm_first = 2, .seed = 7}),
                              out2) == TFP_ERR_INVALID_ARGUMENT);
}

TEST_CASE("learn encoder: activations relu, gelu, gelu_new at known points") {
  const float x[5] = {-2, -1, 0, 1, 3};
  float y[5];
  REQUIRE(tfp_learn_activation(0, x, 5, y) == TFP_OK);
  CHECK(y[0] == 0.0f); CHECK(y[1] == 0.0f); CHECK(y[2] == 0.0f); CHECK(y[3] == 1.0f); CHECK(y[4] == 3.0f);
  REQUIRE(tfp_learn_activation(1, x, 5, y) == TFP_OK);
  CHECK(std::fabs(y[3] - 0.8413447) < 1e-6);    // 1·Φ(1)
  CHECK(std::fabs(y[1] + 0.1586553) < 1e-6);    // -1·Φ(-1): GELU lets small negatives through
  CHECK(y[2] == 0.0f);
  REQUIRE(tfp_learn_activation(2, x, 5, y) == TFP_OK);
  CHECK(std::fabs(y[3] - 0.8411920) < 1e-6);    // 0.5(1 + tanh(0.7978846·1.044715))
  CHECK(tfp_learn_activation(3, x, 5, y) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(tfp_learn_activation(0, x, 0, y) == TFP_ERR_INVALID_ARGUMENT);
  const float inf[1] = {INFINITY};
  CHECK(tfp_learn_activation(0, inf, 1, y) == TFP_ERR_INVALID_ARGUMENT);
}

TEST_CASE("learn encoder: brown-pos read layer by layer; ffn.hidden from the same forward pass") {
  tfp_model* m = testing::open_through_api(kPosDir, "brown-pos");
  const model::LoadedModel lm = model::load_model_dir(kPosDir);
  const model::ModelConfig& cfg = lm.config();
  const std::vector<int32_t> ids = {5, 17, 230, 41, 9, 2};
  const int T = static_cast<int>(ids.size());
  tfp_tensors* out = nullptr;
  REQUIRE(tfp_learn_tagger_layers(m, ids.data(), T, &out) == TFP_OK);
  const Tensor probs = take_tensor(out, "probs");
  const int64_t R = cfg.n_encoder_layers + 1, N = cfg.n_labels;
  REQUIRE(probs.shape == Shape{R, T, N});
  std::vector<Tensor> hidden;
  for (int l = 0; l < cfg.n_encoder_layers; ++l)
    hidden.push_back(take_tensor(out, ("enc." + std::to_string(l) + ".ffn.hidden").c_str()));
  const Tensor stream = take_tensor(out, "stream"), attn = take_tensor(out, "attn_out"), ffn = take_tensor(out, "ffn_out"),
               stream_rms = take_tensor(out, "stream_rms"), attn_rms = take_tensor(out, "attn_rms"),
               ffn_rms = take_tensor(out, "ffn_rms");
  tfp_tensors_free(out);
  const int64_t C = cfg.d_model, L = cfg.n_encoder_layers;
  REQUIRE(stream.shape == Shape{R, T, C});
  REQUIRE(attn.shape == Shape{L, T, C});
  REQUIRE(ffn_rms.shape == Shape{L, T});
  // Pre-LN residual adds, in the layer's own float order: h + attn, then + ffn (exact).
  for (int64_t l = 0; l < L; ++l)
    for (int64_t i = 0; i < T * C; ++i) {
      const float mid = stream.data[l * T * C + i] + attn.data[l * T * C + i];
      REQUIRE(stream.data[(l + 1) * T * C + i] == mid + ffn.data[l * T * C + i]);
    }
  // Each token's rms over C, in double here (1e-6 relative).
  auto check_rms = [&](const Tensor& all, const Tensor& sizes, int64_t k) {
    for (int64_t i = 0; i < k * T; ++i) {
      double sq = 0;
      for (int64_t c = 0; c < C; ++c) sq += static_cast<double>(all.data[i * C + c]) * all.data[i * C + c];
      CHECK(sizes.data[i] == doctest::Approx(std::sqrt(sq / C)).epsilon(1e-6));
    }
  };
  check_rms(stream, stream_rms, R);
  check_rms(attn, attn_rms, L);
  check_rms(ffn, ffn_rms, L);

  // Last row = the model's own output: softmax of tfp_model_forward's logits.
  tfp_tensors* fwd = nullptr;
  REQUIRE(tfp_model_forward(m, tfp::testing::params(tfp_forward_params{.ids = ids.data(), .n = T}), &fwd) == TFP_OK);
  const Tensor logits = take_tensor(fwd, "logits");
  tfp_tensors_free(fwd);
  for (int t = 0; t < T; ++t) {
    const std::vector<double> p = softmax_double(logits.row(t), N);
    for (int64_t k = 0; k < N; ++k) CHECK(std::fabs(probs.data[((R - 1) * T + t) * N + k] - p[k]) < 1e-6);
  }

  // Row 0 and the hidden activations, composed here from the recorded stream.
  nn::RecordingObserver rec({"embed.out", "enc.*.attn.out", "enc.*.ffn.hidden", "enc.*.ffn.out", "enc.*.out"});
  model::forward_encoder_only(cfg, lm.weights(), ids, {}, {}, &rec);
  {
    Tensor e = nn::layer_norm(rec.get("embed.out").view(), lm.weights().encoder_norm);
    const Tensor z = nn::linear(e.view(), lm.weights().classifier);
    for (int t = 0; t < T; ++t) {
      const std::vector<double> p = softmax_double(z.row(t), N);
      for (int64_t k = 0; k < N; ++k) CHECK(std::fabs(probs.data[t * N + k] - p[k]) < 1e-6);
    }
  }
  REQUIRE(cfg.norm_first);  // brown-pos is pre-LN: hidden = act(fc1(LN2(h + attn.out)))
  Tensor h = rec.get("embed.out");
  for (int l = 0; l < cfg.n_encoder_layers; ++l) {
    const std::string p = "enc." + std::to_string(l);
    const auto& lw = lm.weights().encoder_layers[static_cast<size_t>(l)];
    Tensor mid = h;
    const Tensor& a = rec.get(p + ".attn.out");
    for (int64_t i = 0; i < mid.numel(); ++i) mid.data[i] += a.data[i];
    const Tensor n2 = nn::layer_norm(mid.view(), lw.norm_ffn);
    Tensor f1 = nn::linear(n2.view(), lw.ffn.fc1);
    nn::apply_activation(f1, cfg.activation);
    REQUIRE(hidden[static_cast<size_t>(l)].shape == Shape{T, cfg.d_ff});
    CHECK(test_max_abs(f1, hidden[static_cast<size_t>(l)]) < 1e-5);
    CHECK(test_max_abs(rec.get(p + ".ffn.hidden"), hidden[static_cast<size_t>(l)]) == 0.0);
    const Tensor f2 = nn::linear(hidden[static_cast<size_t>(l)].view(), lw.ffn.fc2);
    CHECK(test_max_abs(f2, rec.get(p + ".ffn.out")) == 0.0);
    h = rec.get(p + ".out");
  }

  // inspect::tagger_lens directly: the same numbers.
  const inspect::TaggerLens lens = inspect::tagger_lens(cfg, lm.weights(), ids);
  REQUIRE(lens.rows == std::vector<std::string>{"embed.out", "enc.0.out", "enc.1.out"});
  for (size_t i = 0; i < lens.probs.size(); ++i) CHECK(lens.probs[i] == probs.data[i]);

  // Not a tagger, no ids: clear errors.
  CHECK(tfp_learn_tagger_layers(m, ids.data(), 0, &out) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(out == nullptr);
  tfp_model_free(m);
  tfp_model* gpt = testing::open_through_api(testing::checkpoint_dir("gpt2_tiny"), "gpt2_tiny");
  CHECK(tfp_learn_tagger_layers(gpt, ids.data(), 2, &out) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(tfp_last_error()).find("not an encoder-only token classifier") != std::string::npos);
  tfp_model_free(gpt);
  CHECK_THROWS_WITH_AS(inspect::tagger_lens(cfg, lm.weights(), {}), doctest::Contains("no input tokens"), Error);
}
