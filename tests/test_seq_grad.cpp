// Gradient checks of the recurrent encoder–decoder's backward passes (src/train/seq_gru_*)
// against central finite differences, in double precision.
//
// Oracle: for y = f(x, θ) and a fixed random R, L = Σ R ⊙ y has ∂L/∂x = backward(dy = R);
// each analytic entry is compared with (L(x + h) − L(x − h)) / 2h, h = 1e-5 (truncation
// ~h²·|f'''| ≈ 1e-10, rounding ~1e-16·|L|/h ≈ 1e-11).
// Tolerance: |analytic − numeric| <= 1e-7 + 1e-6·|numeric| per entry; a wrong term in a
// backward pass gives errors of 1e-2 and more. The whole model is checked with the
// cross-entropy loss on a padded batch (so padding and masking are differentiated too).
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <vector>

#include "train/rng.h"
#include "grad_check.h"
#include "train/seq_gru_attention.h"
#include "train/seq_gru_cell.h"
#include "train/seq_gru_model.h"

using namespace tfp;
using namespace tfp::train;

namespace {

using test::Vec;
using test::dot;
using test::grad_check;
using test::uniform_vec;

}  // namespace

TEST_CASE("seq gru cell: backward matches finite differences (double)") {
  Rng rng(7);
  const int B = 3, I = 5, H = 4;
  Vec x = uniform_vec(rng, B * I), h = uniform_vec(rng, B * H);
  Vec wih = uniform_vec(rng, 3 * H * I, 0.7), whh = uniform_vec(rng, 3 * H * H, 0.7);
  Vec bih = uniform_vec(rng, 3 * H, 0.3), bhh = uniform_vec(rng, 3 * H, 0.3);
  const Vec R = uniform_vec(rng, B * H);
  auto loss = [&]() {
    Vec out(B * H);
    GruCellCache<double> c;
    gru_cell_forward<double>(out.data(), c, x.data(), h.data(), {wih.data(), whh.data(), bih.data(), bhh.data()}, B, I, H);
    return dot(R, out);
  };
  Vec out(B * H);
  GruCellCache<double> c;
  const GruCellWeights<double> w{wih.data(), whh.data(), bih.data(), bhh.data()};
  gru_cell_forward<double>(out.data(), c, x.data(), h.data(), w, B, I, H);
  Vec dx(B * I, 0), dh(B * H, 0), dwih(wih.size(), 0), dwhh(whh.size(), 0), dbih(bih.size(), 0), dbhh(bhh.size(), 0);
  gru_cell_backward<double>(dx.data(), dh.data(), {dwih.data(), dwhh.data(), dbih.data(), dbhh.data()}, R.data(),
                            x.data(), h.data(), c, w, B, I, H);
  CHECK(grad_check(loss, x, dx) <= 1.0);
  CHECK(grad_check(loss, h, dh) <= 1.0);
  CHECK(grad_check(loss, wih, dwih) <= 1.0);
  CHECK(grad_check(loss, whh, dwhh) <= 1.0);
  CHECK(grad_check(loss, bih, dbih) <= 1.0);
  CHECK(grad_check(loss, bhh, dbhh) <= 1.0);
}

TEST_CASE("seq gru cell: z = 1 keeps the state, z = 0 takes the candidate") {
  // Hand-derivable: with every weight 0 and b_z = ±40, σ(±40) is 1 or 0 to 1e-17,
  // so h' = h (keep) or h' = n = tanh(b_in + r·b_hn) = tanh(0.5 + 0.5·0.5) (r = σ(0)).
  const int H = 2;
  Vec wih(3 * H * 1, 0), whh(3 * H * H, 0), bih(3 * H, 0), bhh(3 * H, 0);
  bih[2 * H] = bih[2 * H + 1] = 0.5;  // b_in
  bhh[2 * H] = bhh[2 * H + 1] = 0.5;  // b_hn
  Vec x = {1.0}, h = {0.3, -0.2}, out(H);
  GruCellCache<double> c;
  bih[H] = bih[H + 1] = 40;
  gru_cell_forward<double>(out.data(), c, x.data(), h.data(), {wih.data(), whh.data(), bih.data(), bhh.data()}, 1, 1, H);
  CHECK(out[0] == doctest::Approx(0.3).epsilon(1e-12));
  CHECK(out[1] == doctest::Approx(-0.2).epsilon(1e-12));
  bih[H] = bih[H + 1] = -40;
  gru_cell_forward<double>(out.data(), c, x.data(), h.data(), {wih.data(), whh.data(), bih.data(), bhh.data()}, 1, 1, H);
  CHECK(out[0] == doctest::Approx(std::tanh(0.75)).epsilon(1e-12));
}

TEST_CASE("seq additive attention step: backward matches finite differences, padding gets nothing") {
  Rng rng(11);
  const int B = 2, S = 5, A = 3, Ch = 4;
  Vec q = uniform_vec(rng, B * A), keys = uniform_vec(rng, B * S * A), h = uniform_vec(rng, B * S * Ch);
  Vec v = uniform_vec(rng, A);
  const std::vector<uint8_t> pad = {0, 0, 0, 0, 0, /**/ 0, 0, 0, 1, 1};  // row 1 has 3 real positions
  const Vec R = uniform_vec(rng, B * Ch);
  auto loss = [&]() {
    Vec ctx(B * Ch);
    AdditiveStepCache<double> c;
    additive_step_forward<double>(ctx.data(), c, q.data(), keys.data(), h.data(), v.data(), pad.data(), B, S, A, Ch);
    return dot(R, ctx);
  };
  Vec ctx(B * Ch);
  AdditiveStepCache<double> c;
  additive_step_forward<double>(ctx.data(), c, q.data(), keys.data(), h.data(), v.data(), pad.data(), B, S, A, Ch);
  // Masked positions have probability exactly 0; each row sums to 1.
  CHECK(c.probs[1 * S + 3] == 0.0);
  CHECK(c.probs[1 * S + 4] == 0.0);
  double row0 = 0;
  for (int j = 0; j < S; ++j) row0 += c.probs[j];
  CHECK(row0 == doctest::Approx(1.0).epsilon(1e-12));
  Vec dq(q.size(), 0), dk(keys.size(), 0), dh(h.size(), 0), dv(v.size(), 0);
  additive_step_backward<double>(dq.data(), dk.data(), dh.data(), dv.data(), R.data(), c, h.data(), v.data(), B, S, A, Ch);
  CHECK(grad_check(loss, q, dq) <= 1.0);
  CHECK(grad_check(loss, keys, dk) <= 1.0);
  CHECK(grad_check(loss, h, dh) <= 1.0);
  CHECK(grad_check(loss, v, dv) <= 1.0);
  for (int k = 0; k < Ch; ++k) CHECK(dh[(1 * S + 4) * Ch + k] == 0.0);  // a padded value receives nothing
}

TEST_CASE("seq gru seq2seq: whole-model backward matches finite differences (bi- and unidirectional)") {
  for (const bool bidirectional : {true, false}) {
    CAPTURE(bidirectional);
    model::GruSeq2SeqConfig cfg;
    cfg.vocab_size = 7, cfg.embed_dim = 3, cfg.encoder_hidden = 3, cfg.decoder_hidden = 4, cfg.attention_dim = 3;
    cfg.bidirectional = bidirectional;
    cfg.max_source_positions = 6, cfg.max_target_tokens = 4;
    cfg.eos_token_id = 1, cfg.decoder_start_token_id = 2;
    GruSeq2Seq<double> m(cfg);
    m.init(5);
    for (Param<double>& p : m.params)  // non-zero biases so that their paths matter
      if (p.shape.size() == 1 && p.name != "attention.v")
        for (size_t i = 0; i < p.value.size(); ++i) p.value[i] = 0.1 * std::sin(1.0 + i + p.name.size());
    Batch b;
    b.B = 2, b.S = 4, b.T = 3;
    b.src = {3, 4, 5, 6, /**/ 6, 3, 0, 0};
    b.src_pad = {0, 0, 0, 0, /**/ 0, 0, 1, 1};
    b.tgt = {2, 5, 6, /**/ 2, 4, 0};
    b.targets = {5, 6, 1, /**/ 4, 1, -100};
    auto loss = [&]() { return m.forward(b, 0.1).loss; };
    m.params.zero_grad();
    m.forward(b, 0.1);
    m.backward();
    for (Param<double>& p : m.params) {
      CAPTURE(p.name);
      Vec analytic = p.grad;
      CHECK(grad_check(loss, p.value, analytic) <= 1.0);
    }
  }
}
