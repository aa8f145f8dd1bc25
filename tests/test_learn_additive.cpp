// The Learn chapter's additive-attention calls (src/api/tfp_learn_additive_api.h).
//
// Oracles:
//   - tfp_learn_additive_attention: one example derived by hand below, and the formula
//     e_ij = vᵀ tanh(W s_i + b + U h_j), α = softmax(e), c = α·h written out in double in
//     this file, on random odd sizes. Tolerance 1e-5 absolute (float32 over <= 7 terms).
//   - tfp_learn_additive_gru_steps on models/numbers-gru: model::gru_greedy_decode on the
//     same folder (the same ids exactly), tfp_model_translate with beam 1 (its
//     "alignment" equals "weights" to 1e-6: the same float operations), and softmax of
//     each "scores" row recomputed in double equals its "weights" row (1e-6); the kept
//     step vectors against model::gru_forward's states and gru_initial_state (1e-6),
//     Σ α h and the dot scores written out in double (1e-5), argmax of "probs" = the ids.
//   - the dot-product comparison ("general_*", "dot_*", "entropy", "bound"): the formulas
//     (W s + b)·(U h), s·h, softmax, Σ α h, −Σ α ln α and Σ|v| in double here (1e-5).
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "api/tfp_learn_additive_api.h"
#include "model/gru_seq2seq.h"
#include "test_attention_ref.h"
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

const std::string kGruDir = std::string(TFP_FIXTURES_DIR) + "/../../models/numbers-gru";

}  // namespace

TEST_CASE("learn additive: a hand-derived example, every intermediate") {
  // s = (1, 0); h_1 = (1, 0), h_2 = (0, 1); W = U = I (2×2), b = 0, v = (1, 1).
  //   W s = (1, 0);  U h_1 = (1, 0), U h_2 = (0, 1)
  //   sum_1 = (2, 0), sum_2 = (1, 1);  tanh: (tanh 2, 0), (tanh 1, tanh 1)
  //   e_1 = tanh 2 ≈ 0.96403, e_2 = 2 tanh 1 ≈ 1.52319
  //   α = softmax(e_1, e_2) = (1, e^{e_2−e_1}) / (1 + e^{e_2−e_1})
  //   c = α_1 h_1 + α_2 h_2 = (α_1, α_2)
  const float s[] = {1, 0}, h[] = {1, 0, 0, 1}, I[] = {1, 0, 0, 1}, v[] = {1, 1};
  tfp_tensors* out = nullptr;
  REQUIRE_MESSAGE(tfp_learn_additive_attention(
                      tfp::testing::params(tfp_learn_additive_params{
                          .s = s, .Tq = 1, .Cs = 2, .h = h, .Tk = 2, .Ch = 2, .W = I, .U = I, .v = v, .A = 2}),
                      &out) == TFP_OK,
                  tfp_last_error());
  const Tensor ws = take_tensor(out, "ws"), uh = take_tensor(out, "uh"), sum = take_tensor(out, "sum"),
               th = take_tensor(out, "tanh"), e = take_tensor(out, "scores"), a = take_tensor(out, "weights"),
               c = take_tensor(out, "context");
  CHECK(tfp_tensors_count(out) == 17);  // + entropy, bound, general_* (4), dot_* (4): Cs == Ch
  tfp_tensors_free(out);
  CHECK(ws.shape == Shape{1, 2});
  CHECK(uh.shape == Shape{2, 2});
  CHECK(sum.shape == Shape{1, 2, 2});
  CHECK(th.shape == Shape{1, 2, 2});
  CHECK(e.shape == Shape{1, 2});
  CHECK(a.shape == Shape{1, 2});
  CHECK(c.shape == Shape{1, 2});
  CHECK(ws.data == std::vector<float>{1, 0});
  CHECK(uh.data == std::vector<float>{1, 0, 0, 1});
  CHECK(sum.data == std::vector<float>{2, 0, 1, 1});
  const double t1 = std::tanh(1.0), t2 = std::tanh(2.0);
  CHECK(th.data[0] == doctest::Approx(t2).epsilon(1e-6));
  CHECK(th.data[1] == 0.0f);
  CHECK(th.data[2] == doctest::Approx(t1).epsilon(1e-6));
  CHECK(e.data[0] == doctest::Approx(t2).epsilon(1e-6));
  CHECK(e.data[1] == doctest::Approx(2 * t1).epsilon(1e-6));
  const double r = std::exp(2 * t1 - t2);
  CHECK(a.data[0] == doctest::Approx(1 / (1 + r)).epsilon(1e-6));
  CHECK(a.data[1] == doctest::Approx(r / (1 + r)).epsilon(1e-6));
  CHECK(c.data[0] == doctest::Approx(1 / (1 + r)).epsilon(1e-6));
  CHECK(c.data[1] == doctest::Approx(r / (1 + r)).epsilon(1e-6));
}

TEST_CASE("learn additive: random odd sizes against the formula in double") {
  testref::Rng rng(77);
  const int Tq = 3, Tk = 5, Cs = 2, Ch = 3, A = 7;
  const Tensor s = rng.tensor({Tq, Cs}), h = rng.tensor({Tk, Ch}), W = rng.tensor({A, Cs}), b = rng.tensor({A}),
               U = rng.tensor({A, Ch}), v = rng.tensor({A});
  tfp_tensors* out = nullptr;
  const tfp_learn_additive_params in{.s = s.ptr(), .Tq = Tq, .Cs = Cs, .h = h.ptr(), .Tk = Tk, .Ch = Ch,
                                     .W = W.ptr(), .b = b.ptr(), .U = U.ptr(), .v = v.ptr(), .A = A};
  REQUIRE_MESSAGE(tfp_learn_additive_attention(&in, &out) == TFP_OK, tfp_last_error());
  const Tensor sum = take_tensor(out, "sum"), th = take_tensor(out, "tanh"), e = take_tensor(out, "scores"),
               a = take_tensor(out, "weights"), c = take_tensor(out, "context");
  CHECK(tfp_tensors_find(out, "dot_scores") < 0);  // Cs ≠ Ch: no s·h
  const Tensor ge = take_tensor(out, "general_scores"), ga = take_tensor(out, "general_weights"),
               gc = take_tensor(out, "general_context"), gH = take_tensor(out, "general_entropy"),
               H = take_tensor(out, "entropy"), bound = take_tensor(out, "bound");
  tfp_tensors_free(out);
  {
    // general: (W s_i + b)·(U h_j), its softmax, Σ α h, −Σ α ln α; entropy of the additive rows; ‖v‖₁.
    std::vector<double> want_ge, want_ga, want_gc(Tq * Ch, 0.0), want_gH, want_H;
    double l1 = 0;
    for (int k = 0; k < A; ++k) l1 += std::fabs(v.data[k]);
    for (int i = 0; i < Tq; ++i) {
      std::vector<double> row(Tk);
      for (int j = 0; j < Tk; ++j) {
        double acc = 0;
        for (int k = 0; k < A; ++k) {
          double ws = b.data[k], uh = 0;
          for (int q = 0; q < Cs; ++q) ws += double(W.data[k * Cs + q]) * s.data[i * Cs + q];
          for (int q = 0; q < Ch; ++q) uh += double(U.data[k * Ch + q]) * h.data[j * Ch + q];
          acc += ws * uh;
        }
        row[j] = acc;
        want_ge.push_back(acc);
      }
      double mx = row[0], z = 0, ent = 0, ent_add = 0;
      for (double x : row) mx = std::max(mx, x);
      for (double x : row) z += std::exp(x - mx);
      for (int j = 0; j < Tk; ++j) {
        const double p = std::exp(row[j] - mx) / z;
        want_ga.push_back(p);
        ent -= p * std::log(p);
        for (int q = 0; q < Ch; ++q) want_gc[i * Ch + q] += p * h.data[j * Ch + q];
        ent_add -= double(a.data[i * Tk + j]) * std::log(double(a.data[i * Tk + j]));
        CHECK(std::fabs(e.data[i * Tk + j]) <= l1 + 1e-5);  // the bound holds
      }
      want_gH.push_back(ent);
      want_H.push_back(ent_add);
    }
    CHECK(testref::max_abs_diff(ge.ptr(), want_ge) < 1e-5);
    CHECK(testref::max_abs_diff(ga.ptr(), want_ga) < 1e-5);
    CHECK(testref::max_abs_diff(gc.ptr(), want_gc) < 1e-5);
    CHECK(testref::max_abs_diff(gH.ptr(), want_gH) < 1e-5);
    CHECK(testref::max_abs_diff(H.ptr(), want_H) < 1e-5);
    CHECK(bound.data[0] == doctest::Approx(l1).epsilon(1e-6));
  }
  std::vector<double> want_sum, want_tanh, want_e, want_a, want_c(Tq * Ch, 0.0);
  for (int i = 0; i < Tq; ++i) {
    std::vector<double> row(Tk);
    for (int j = 0; j < Tk; ++j) {
      double acc = 0;
      for (int k = 0; k < A; ++k) {
        double x = b.data[k];
        for (int q = 0; q < Cs; ++q) x += double(W.data[k * Cs + q]) * s.data[i * Cs + q];
        for (int q = 0; q < Ch; ++q) x += double(U.data[k * Ch + q]) * h.data[j * Ch + q];
        want_sum.push_back(x);
        want_tanh.push_back(std::tanh(x));
        acc += v.data[k] * std::tanh(x);
      }
      row[j] = acc;
      want_e.push_back(acc);
    }
    double mx = row[0], z = 0;
    for (double x : row) mx = std::max(mx, x);
    for (double x : row) z += std::exp(x - mx);
    for (int j = 0; j < Tk; ++j) {
      const double p = std::exp(row[j] - mx) / z;
      want_a.push_back(p);
      for (int q = 0; q < Ch; ++q) want_c[i * Ch + q] += p * h.data[j * Ch + q];
    }
  }
  CHECK(testref::max_abs_diff(sum.ptr(), want_sum) < 1e-5);
  CHECK(testref::max_abs_diff(th.ptr(), want_tanh) < 1e-5);
  CHECK(testref::max_abs_diff(e.ptr(), want_e) < 1e-5);
  CHECK(testref::max_abs_diff(a.ptr(), want_a) < 1e-5);
  CHECK(testref::max_abs_diff(c.ptr(), want_c) < 1e-5);
}

TEST_CASE("learn additive: Luong's dot score on equal widths, against the formula in double") {
  testref::Rng rng(78);
  const int Tq = 2, Tk = 5, C = 3, A = 4;
  const Tensor s = rng.tensor({Tq, C}), h = rng.tensor({Tk, C}), W = rng.tensor({A, C}), U = rng.tensor({A, C}),
               v = rng.tensor({A});
  tfp_tensors* out = nullptr;
  const tfp_learn_additive_params in{.s = s.ptr(), .Tq = Tq, .Cs = C, .h = h.ptr(), .Tk = Tk, .Ch = C,
                                     .W = W.ptr(), .U = U.ptr(), .v = v.ptr(), .A = A};
  REQUIRE_MESSAGE(tfp_learn_additive_attention(&in, &out) == TFP_OK, tfp_last_error());
  const Tensor de = take_tensor(out, "dot_scores"), da = take_tensor(out, "dot_weights"),
               dc = take_tensor(out, "dot_context"), dH = take_tensor(out, "dot_entropy");
  tfp_tensors_free(out);
  std::vector<double> want_e, want_a, want_c(Tq * C, 0.0), want_H;
  for (int i = 0; i < Tq; ++i) {
    std::vector<double> row(Tk);
    for (int j = 0; j < Tk; ++j) {
      double acc = 0;
      for (int q = 0; q < C; ++q) acc += double(s.data[i * C + q]) * h.data[j * C + q];
      row[j] = acc;
      want_e.push_back(acc);
    }
    double mx = row[0], z = 0, ent = 0;
    for (double x : row) mx = std::max(mx, x);
    for (double x : row) z += std::exp(x - mx);
    for (int j = 0; j < Tk; ++j) {
      const double p = std::exp(row[j] - mx) / z;
      want_a.push_back(p);
      ent -= p * std::log(p);
      for (int q = 0; q < C; ++q) want_c[i * C + q] += p * h.data[j * C + q];
    }
    want_H.push_back(ent);
  }
  CHECK(testref::max_abs_diff(de.ptr(), want_e) < 1e-5);
  CHECK(testref::max_abs_diff(da.ptr(), want_a) < 1e-5);
  CHECK(testref::max_abs_diff(dc.ptr(), want_c) < 1e-5);
  CHECK(testref::max_abs_diff(dH.ptr(), want_H) < 1e-5);
}

TEST_CASE("learn additive: bad arguments give clear errors") {
  const float one[] = {1, 1, 1, 1}, nan_at_2[] = {0, std::numeric_limits<float>::quiet_NaN()};
  tfp_tensors* out = reinterpret_cast<tfp_tensors*>(1);
  CHECK(tfp_learn_additive_attention(
            tfp::testing::params(tfp_learn_additive_params{
                .s = one, .Tq = 1, .Cs = 2, .h = one, .Tk = 2, .W = one, .U = one, .v = one, .A = 1}),
            &out) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(out == nullptr);
  CHECK(std::string(tfp_last_error()) ==
        "tfp_learn_additive_attention: sizes must be at least 1, got Tq = 1, Cs = 2, Tk = 2, Ch = 0, A = 1");
  CHECK(tfp_learn_additive_attention(
            tfp::testing::params(tfp_learn_additive_params{
                .s = one, .Tq = 1, .Cs = 2, .h = one, .Tk = 2, .Ch = 2, .W = one, .v = one, .A = 1}),
            &out) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(tfp_last_error()) == "tfp_learn_additive_attention: U is NULL");
  CHECK(tfp_learn_additive_attention(
            tfp::testing::params(tfp_learn_additive_params{
                .s = nan_at_2, .Tq = 1, .Cs = 2, .h = one, .Tk = 2, .Ch = 2, .W = one, .U = one, .v = one, .A = 1}),
            &out) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(tfp_last_error()) ==
        "tfp_learn_additive_attention: s has nan at row 1, column 2 (inputs must be finite numbers)");
  CHECK(tfp_learn_additive_attention(
            tfp::testing::params(tfp_learn_additive_params{
                .s = one, .Tq = 1, .Cs = 2, .h = one, .Tk = 2, .Ch = 2, .W = one, .U = one, .v = one, .A = 1}),
            nullptr) == TFP_ERR_INVALID_ARGUMENT);
}

TEST_CASE("learn additive: numbers-gru's scores and weights of every decoder step") {
  tfp_model* m = testing::open_through_api(kGruDir, "numbers-gru");
  const model::GruSeq2SeqModel native = model::load_gru_seq2seq_dir(kGruDir);
  for (const char* text : {"forty two", "three thousand and seven", "nineteen"}) {
    CAPTURE(text);
    tfp_encoding* enc = nullptr;
    REQUIRE(tfp_model_tokenize(m, text, std::strlen(text), 1, &enc) == TFP_OK);
    const std::vector<int32_t> src(tfp_encoding_ids(enc), tfp_encoding_ids(enc) + tfp_encoding_count(enc));
    tfp_encoding_free(enc);
    const int S = static_cast<int>(src.size());

    int32_t ids[64];
    int n = -1;
    tfp_tensors* out = nullptr;
    REQUIRE_MESSAGE(tfp_learn_additive_gru_steps(m, src.data(), S, 0, ids, 64, &n, &out) == TFP_OK,
                    tfp_last_error());
    const Tensor scores = take_tensor(out, "scores"), weights = take_tensor(out, "weights");
    const Tensor encs = take_tensor(out, "encoder"), query = take_tensor(out, "query"),
                 context = take_tensor(out, "context"), embed = take_tensor(out, "embed"),
                 state = take_tensor(out, "state"), probs = take_tensor(out, "probs"),
                 dot_scores = take_tensor(out, "dot_scores"), dot_weights = take_tensor(out, "dot_weights");
    tfp_tensors_free(out);
    {
      const int64_t D = native.config.decoder_hidden, Ce = native.config.encoder_width(), E = native.config.embed_dim;
      const int64_t V = native.config.vocab_size;
      REQUIRE(encs.shape == Shape{S, Ce});
      REQUIRE(query.shape == Shape{n, D});
      REQUIRE(context.shape == Shape{n, Ce});
      REQUIRE(embed.shape == Shape{n, E});
      REQUIRE(state.shape == Shape{n, D});
      REQUIRE(probs.shape == Shape{n, V});
      // The states against teacher forcing on start + ids[:-1] (gru_forward) and s_0.
      std::vector<int32_t> tgt{native.config.decoder_start_token_id};
      tgt.insert(tgt.end(), ids, ids + n - 1);
      const model::GruForwardResult f = model::gru_forward(native, src, tgt);
      const model::GruEncoded e = model::gru_encode(native, src);
      const Tensor s0 = model::gru_initial_state(native, e);
      CHECK(testref::max_abs_diff(encs.ptr(), std::vector<double>(e.states.data.begin(), e.states.data.end())) < 1e-6);
      CHECK(testref::max_abs_diff(state.ptr(), std::vector<double>(f.states.data.begin(), f.states.data.end())) < 1e-6);
      CHECK(testref::max_abs_diff(query.ptr(), std::vector<double>(s0.data.begin(), s0.data.end())) < 1e-6);
      for (int t = 1; t < n; ++t)
        for (int64_t d = 0; d < D; ++d) CHECK(query.row(t)[d] == state.row(t - 1)[d]);  // s_{t−1} is the last step's s_t
      for (int t = 0; t < n; ++t) {
        // c_t = Σ_j α_tj h_j and s_{t−1}·h_j in double; the embedding row of y_{t−1}; argmax p = ids[t].
        for (int64_t d = 0; d < Ce; ++d) {
          double c = 0;
          for (int j = 0; j < S; ++j) c += double(weights.row(t)[j]) * encs.row(j)[d];
          CHECK(context.row(t)[d] == doctest::Approx(c).epsilon(1e-5));
        }
        for (int j = 0; j < S; ++j) {
          double dot = 0;
          for (int64_t d = 0; d < D; ++d) dot += double(query.row(t)[d]) * encs.row(j)[d];
          CHECK(std::fabs(dot_scores.row(t)[j] - dot) < 1e-4 * std::max(1.0, std::fabs(dot)));
        }
        double mx = dot_scores.row(t)[0], z = 0;
        for (int j = 0; j < S; ++j) mx = std::max<double>(mx, dot_scores.row(t)[j]);
        for (int j = 0; j < S; ++j) z += std::exp(dot_scores.row(t)[j] - mx);
        for (int j = 0; j < S; ++j)
          CHECK(dot_weights.row(t)[j] == doctest::Approx(std::exp(dot_scores.row(t)[j] - mx) / z).epsilon(1e-5));
        const float* emb = native.embed.data + tgt[static_cast<size_t>(t)] * E;
        CHECK(std::vector<float>(embed.row(t), embed.row(t) + E) == std::vector<float>(emb, emb + E));
        CHECK(std::max_element(probs.row(t), probs.row(t) + V) - probs.row(t) == ids[t]);
      }
    }
    REQUIRE(scores.shape == Shape{n, S});
    REQUIRE(weights.shape == Shape{n, S});

    const model::GruDecodeResult g = model::gru_greedy_decode(native, src);
    CHECK(std::vector<int32_t>(ids, ids + n) == g.ids);

    int32_t tids[64];
    int tn = -1;
    tfp_tensors* al = nullptr;
    REQUIRE(tfp_model_translate(
                m,
                tfp::testing::params(tfp_translate_params{
                    .src_ids = src.data(), .n = S, .beam_size = 1, .max_tokens = 0, .start_id = -1, .eos_id = -1}),
                tids, 64, &tn, &al) == TFP_OK);
    const Tensor alignment = take_tensor(al, "alignment");
    tfp_tensors_free(al);
    CHECK(std::vector<int32_t>(tids, tids + tn) == g.ids);
    std::vector<double> want(alignment.data.begin(), alignment.data.end());
    CHECK(testref::max_abs_diff(weights.ptr(), want) < 1e-6);

    // softmax of each scores row, in double, is the weights row.
    for (int t = 0; t < n; ++t) {
      const float* e = scores.row(t);
      double mx = e[0], z = 0;
      for (int j = 0; j < S; ++j) mx = std::max<double>(mx, e[j]);
      for (int j = 0; j < S; ++j) z += std::exp(e[j] - mx);
      for (int j = 0; j < S; ++j) CHECK(weights.row(t)[j] == doctest::Approx(std::exp(e[j] - mx) / z).epsilon(1e-6));
    }
  }
  // A limit on the output length, and a capacity too small for the output.
  const int32_t src[] = {5, 6, 7};
  int32_t ids[8];
  int n = -1;
  tfp_tensors* out = nullptr;
  REQUIRE(tfp_learn_additive_gru_steps(m, src, 3, 2, ids, 8, &n, &out) == TFP_OK);
  CHECK(n <= 2);
  tfp_tensors_free(out);
  CHECK(tfp_learn_additive_gru_steps(m, src, 3, 0, ids, 0, &n, &out) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(out == nullptr);
  CHECK(std::string(tfp_last_error()).find("more than out_ids' capacity of 0") != std::string::npos);
  CHECK(tfp_learn_additive_gru_steps(m, src, 0, 0, ids, 8, &n, &out) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(tfp_last_error()) == "tfp_learn_additive_gru_steps: the source is empty (n = 0)");
  tfp_model_free(m);
}

TEST_CASE("learn additive: a Transformer has no additive attention steps") {
  tfp_model* m = testing::open_through_api(testing::checkpoint_dir("gpt2_tiny"), "gpt2_tiny");
  const int32_t src[] = {1, 2};
  int32_t ids[8];
  int n = -1;
  tfp_tensors* out = nullptr;
  CHECK(tfp_learn_additive_gru_steps(m, src, 2, 0, ids, 8, &n, &out) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(tfp_last_error()) ==
        "tfp_learn_additive_gru_steps: 'gpt2_tiny' is a Transformer; additive attention steps need a recurrent "
        "encoder-decoder (model_type tfp_gru_seq2seq, e.g. numbers-gru)");
  tfp_model_free(m);
}
