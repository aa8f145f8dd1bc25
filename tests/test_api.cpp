// The flat C API (src/api/tfp_api.h): status codes and messages at the edge, the tensor
// list, seeded inputs, and the attention lab's steps.
//
// Oracle: a double-precision multi-head attention written out in this file from the
// definition (softmax(q·kᵀ/√D + mask)·v, heads concatenated, output projection) on
// weights we set. Tolerance 2e-5 absolute for values of size ~1 (float32 sums of C = 8
// terms), relative to 1 + |value| for scores; masked probabilities must be exactly 0.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "api/tfp_api.h"
#include "test_api_tensors.h"

using tfp::testing::Tensors;

namespace {

std::vector<float> seeded_x(const std::vector<std::string>& words, int C, uint32_t seed) {
  std::string bytes;
  std::vector<int32_t> lens;
  for (const auto& w : words) {
    bytes += w;
    lens.push_back(static_cast<int32_t>(w.size()));
  }
  std::vector<float> x(words.size() * C);
  REQUIRE(tfp_seeded_token_embeddings(bytes.data(), lens.data(), static_cast<int>(words.size()), C,
                                      seed, x.data()) == TFP_OK);
  return x;
}

// y (T, O) = x (T, I) · Wᵀ (W is (O, I)) + b, in double.
std::vector<double> linear_d(const std::vector<float>& x, int T, int I, const float* W,
                             const float* b, int O) {
  std::vector<double> y(static_cast<size_t>(T) * O);
  for (int t = 0; t < T; ++t)
    for (int o = 0; o < O; ++o) {
      double acc = b ? b[o] : 0.0;
      for (int i = 0; i < I; ++i) acc += double(x[t * I + i]) * W[o * I + i];
      y[t * O + o] = acc;
    }
  return y;
}

}  // namespace

TEST_CASE("api: build info, buffers and errors at the edge") {
  CHECK(std::string(tfp_version()) == "0.1.0");
  CHECK(std::strlen(tfp_simd_arch()) > 0);
  CHECK(std::string(tfp_unicode_version()) ==
        "16.0.0 classes, 17.0.0 lowercase and digits, 9.0.0 normalization, 8.0.0 BERT classes");
  void* p = tfp_alloc(64);
  CHECK(p != nullptr);
  tfp_free(p);
  tfp_free(nullptr);
  CHECK(tfp_alloc(0) == nullptr);
  CHECK(std::string(tfp_last_error()) == "tfp_alloc: 0 bytes requested");

  tfp_attn_lab* lab = reinterpret_cast<tfp_attn_lab*>(&p);  // must be overwritten with NULL
  CHECK(tfp_attn_lab_create(10, 3, 1, &lab) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(lab == nullptr);
  CHECK(std::string(tfp_last_error()).find("d_model 10 is not divisible by 3 heads") != std::string::npos);
  CHECK(tfp_attn_lab_create(8, 0, 1, &lab) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(tfp_attn_lab_create(8, 2, 1, nullptr) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(tfp_tensors_count(nullptr) == 0);
  CHECK(tfp_tensors_find(nullptr, "probs") == -1);
  CHECK(tfp_tensors_dims(nullptr, 0) == nullptr);
}

TEST_CASE("api: seeded token embeddings are a function of (token, seed, C)") {
  const int C = 256;
  auto x = seeded_x({"the", "cat", "the"}, C, 7);
  auto again = seeded_x({"cat"}, C, 7);
  auto other_seed = seeded_x({"cat"}, C, 8);
  // Same word, same vector, wherever it stands; a different word or seed differs.
  CHECK(std::memcmp(x.data(), x.data() + 2 * C, C * sizeof(float)) == 0);
  CHECK(std::memcmp(x.data() + C, again.data(), C * sizeof(float)) == 0);
  CHECK(std::memcmp(again.data(), other_seed.data(), C * sizeof(float)) != 0);
  CHECK(std::memcmp(x.data(), x.data() + C, C * sizeof(float)) != 0);
  // Uniform on [-√3, √3]: every value in range; mean ≈ 0 and variance ≈ 1 (768 samples:
  // standard errors 0.036 and 0.032, checked at about 4 of them).
  double sum = 0, sq = 0;
  for (float v : x) {
    CHECK(std::fabs(v) <= std::sqrt(3.0f));
    sum += v;
    sq += double(v) * v;
  }
  CHECK(std::fabs(sum / x.size()) < 0.15);
  CHECK(std::fabs(sq / x.size() - 1.0) < 0.15);
  CHECK(tfp_seeded_token_embeddings("a", nullptr, 1, 4, 0, x.data()) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(tfp_seeded_token_embeddings("a", nullptr, 0, 4, 0, nullptr) == TFP_OK);  // nothing to do
}

TEST_CASE("api: attention lab steps agree with a double-precision oracle") {
  const int T = 5, C = 8, H = 2, D = C / H;
  const auto x = seeded_x({"a", "quick", "brown", "fox", "jumps"}, C, 3);
  tfp_attn_lab* lab = nullptr;
  REQUIRE(tfp_attn_lab_create(C, H, 42, &lab) == TFP_OK);
  // Our own weights with non-zero biases, so the bias paths are exercised too.
  std::vector<float> w_qkv(3 * C * C), b_qkv(3 * C), w_out(C * C), b_out(C);
  for (size_t i = 0; i < w_qkv.size(); ++i) w_qkv[i] = std::sin(0.37f * i) * 0.5f;
  for (size_t i = 0; i < b_qkv.size(); ++i) b_qkv[i] = 0.05f * (float(i % 7) - 3);
  for (size_t i = 0; i < w_out.size(); ++i) w_out[i] = std::cos(0.23f * i) * 0.4f;
  for (size_t i = 0; i < b_out.size(); ++i) b_out[i] = 0.01f * i;
  REQUIRE(tfp_attn_lab_set_weights_fused(lab, w_qkv.data(), b_qkv.data(), w_out.data(), b_out.data()) == TFP_OK);

  for (int causal = 0; causal <= 1; ++causal) {
    for (int window : {0, 1}) {
      CAPTURE(causal);
      CAPTURE(window);
      REQUIRE(tfp_attn_lab_set_mask(lab, causal, window) == TFP_OK);
      Tensors r;
      REQUIRE(tfp_attn_lab_run(lab, x.data(), T, &r.list) == TFP_OK);
      CHECK(tfp_tensors_count(r.list) == 9);
      CHECK(r.dims("q") == std::vector<int>{H, T, D});
      CHECK(r.dims("scores") == std::vector<int>{H, T, T});
      CHECK(r.dims("masked") == std::vector<int>{T, T});
      CHECK(r.dims("probs") == std::vector<int>{H, T, T});
      CHECK(r.dims("head_out") == std::vector<int>{H, T, D});
      CHECK(r.dims("out") == std::vector<int>{T, C});

      // The oracle, in double.
      const auto qkv = linear_d(x, T, C, w_qkv.data(), b_qkv.data(), 3 * C);  // (T, 3C)
      auto hidden = [&](int part, int h, int t, int d) { return qkv[t * 3 * C + part * C + h * D + d]; };
      auto visible = [&](int i, int j) {
        return !(causal && j > i) && !(window > 0 && std::abs(i - j) > window);
      };
      std::vector<float> concat(T * C);
      const auto q = r.data("q"), scores = r.data("scores"), scaled = r.data("scaled_scores");
      const auto masked = r.data("masked"), probs = r.data("probs"), head_out = r.data("head_out");
      for (int h = 0; h < H; ++h)
        for (int i = 0; i < T; ++i) {
          std::vector<double> p(T);
          double mx = -1e300, sum = 0;
          for (int j = 0; j < T; ++j) {
            double s = 0;
            for (int d = 0; d < D; ++d) s += hidden(0, h, i, d) * hidden(1, h, j, d);
            const size_t at = (size_t(h) * T + i) * T + j;
            const double scaled_s = s / std::sqrt(double(D));
            CHECK(std::fabs(scores[at] - s) < 2e-5 * (1 + std::fabs(s)));  // scores reach ~10
            CHECK(std::fabs(scaled[at] - scaled_s) < 2e-5 * (1 + std::fabs(scaled_s)));
            CHECK(masked[size_t(i) * T + j] == (visible(i, j) ? 0.0f : 1.0f));
            p[j] = visible(i, j) ? s / std::sqrt(double(D)) : -INFINITY;
            mx = std::max(mx, p[j]);
          }
          for (int j = 0; j < T; ++j) sum += (p[j] = std::isinf(p[j]) ? 0.0 : std::exp(p[j] - mx));
          double row_sum = 0;
          for (int j = 0; j < T; ++j) {
            const float got = probs[(size_t(h) * T + i) * T + j];
            row_sum += got;
            if (!visible(i, j)) CHECK(got == 0.0f);  // masked: exactly zero, not small
            CHECK(std::fabs(got - p[j] / sum) < 2e-5);
          }
          CHECK(std::fabs(row_sum - 1.0) < 1e-5);
          for (int d = 0; d < D; ++d) {
            CHECK(std::fabs(q[(size_t(h) * T + i) * D + d] - hidden(0, h, i, d)) < 2e-5);
            double o = 0;
            for (int j = 0; j < T; ++j) o += p[j] / sum * hidden(2, h, j, d);
            CHECK(std::fabs(head_out[(size_t(h) * T + i) * D + d] - o) < 2e-5);
            concat[i * C + h * D + d] = static_cast<float>(o);
          }
        }
      const auto expect_out = linear_d(concat, T, C, w_out.data(), b_out.data(), C);
      const auto out = r.data("out");
      for (size_t i = 0; i < out.size(); ++i) CHECK(std::fabs(out[i] - expect_out[i]) < 2e-5);
    }
  }
  tfp_attn_lab_free(lab);
}

TEST_CASE("api: separate weights equal to the fused slices give the same block") {
  const int T = 4, C = 8, H = 4;
  const auto x = seeded_x({"to", "be", "or", "not"}, C, 11);
  tfp_attn_lab *fused = nullptr, *separate = nullptr;
  REQUIRE(tfp_attn_lab_create(C, H, 5, &fused) == TFP_OK);
  REQUIRE(tfp_attn_lab_create(C, H, 6, &separate) == TFP_OK);
  std::vector<float> w(3 * C * C), b(3 * C), wo(C * C);
  for (size_t i = 0; i < w.size(); ++i) w[i] = std::sin(1.3f * i);
  for (size_t i = 0; i < b.size(); ++i) b[i] = 0.1f * std::cos(float(i));
  for (size_t i = 0; i < wo.size(); ++i) wo[i] = std::cos(0.7f * i) * 0.3f;
  REQUIRE(tfp_attn_lab_set_weights_fused(fused, w.data(), b.data(), wo.data(), nullptr) == TFP_OK);
  tfp_attn_lab_weights_params sw;
  tfp_attn_lab_weights_params_init(&sw);  // b_out NULL: zeros, as the fused call's
  sw.w_q = w.data();
  sw.b_q = b.data();
  sw.w_k = w.data() + C * C;
  sw.b_k = b.data() + C;
  sw.w_v = w.data() + 2 * C * C;
  sw.b_v = b.data() + 2 * C;
  sw.w_out = wo.data();
  REQUIRE(tfp_attn_lab_set_weights_separate(separate, &sw) == TFP_OK);
  Tensors a, s;
  REQUIRE(tfp_attn_lab_run(fused, x.data(), T, &a.list) == TFP_OK);
  REQUIRE(tfp_attn_lab_run(separate, x.data(), T, &s.list) == TFP_OK);
  for (const char* name : {"q", "k", "v", "scores", "probs", "out"}) {
    CAPTURE(name);
    const auto ga = a.data(name), gs = s.data(name);
    for (size_t i = 0; i < ga.size(); ++i) CHECK(std::fabs(ga[i] - gs[i]) < 1e-5);
  }
  tfp_attn_lab_free(fused);
  tfp_attn_lab_free(separate);
}

TEST_CASE("api: attention lab errors are messages and the lab stays usable") {
  const int C = 8;
  const auto x = seeded_x({"a", "b", "c"}, C, 1);
  tfp_attn_lab* lab = nullptr;
  REQUIRE(tfp_attn_lab_create(C, 2, 9, &lab) == TFP_OK);
  tfp_tensors* out = nullptr;
  CHECK(tfp_attn_lab_set_mask(lab, 0, -1) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(tfp_last_error()).find("window") != std::string::npos);
  CHECK(tfp_attn_lab_run(lab, x.data(), 0, &out) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(tfp_attn_lab_run(lab, nullptr, 3, &out) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(out == nullptr);

  // Padding for 2 keys but 3 tokens: the engine refuses, naming the sizes.
  const uint8_t pad2[2] = {0, 1};
  REQUIRE(tfp_attn_lab_set_key_padding(lab, pad2, 2) == TFP_OK);
  CHECK(tfp_attn_lab_run(lab, x.data(), 3, &out) == TFP_ERR_ENGINE);
  CHECK(out == nullptr);
  const std::string msg = tfp_last_error();
  CHECK(msg.find('2') != std::string::npos);
  CHECK(msg.find('3') != std::string::npos);

  // Right length: key 2 is padding, so its column is masked for every query.
  const uint8_t pad3[3] = {0, 0, 1};
  REQUIRE(tfp_attn_lab_set_key_padding(lab, pad3, 3) == TFP_OK);
  Tensors r;
  REQUIRE(tfp_attn_lab_run(lab, x.data(), 3, &r.list) == TFP_OK);
  const auto probs = r.data("probs"), masked = r.data("masked");
  for (int h = 0; h < 2; ++h)
    for (int i = 0; i < 3; ++i) {
      CHECK(masked[i * 3 + 2] == 1.0f);
      CHECK(probs[(h * 3 + i) * 3 + 2] == 0.0f);
      CHECK(std::fabs(probs[(h * 3 + i) * 3 + 0] + probs[(h * 3 + i) * 3 + 1] - 1.0f) < 1e-5);
    }

  // Everything masked for query 0 (padding on key 0, causal): an all-zero row, not NaN.
  const uint8_t pad_first[3] = {1, 0, 0};
  REQUIRE(tfp_attn_lab_set_key_padding(lab, pad_first, 3) == TFP_OK);
  REQUIRE(tfp_attn_lab_set_mask(lab, 1, 0) == TFP_OK);
  Tensors z;
  REQUIRE(tfp_attn_lab_run(lab, x.data(), 3, &z.list) == TFP_OK);
  const auto zp = z.data("probs");
  for (int j = 0; j < 3; ++j) CHECK(zp[j] == 0.0f);
  for (float v : z.data("out")) CHECK(std::isfinite(v));
  tfp_attn_lab_free(lab);
}
