// Learn chapter 12 (api/tfp_learn_training_api.h): the trainer's schedule and loss.
// Oracles, derived by hand from the formulas in train/lr_schedule.h and
// train/cross_entropy.h (tolerance 1e-12 for the schedule, computed in double; 1e-6 for the
// loss, whose logits are float):
//   - warm-up: lr(s) = peak·(s + 1)/warmup for s < warmup; halfway through a cosine or
//     linear decay lr = floor + (peak − floor)/2; at and past total lr = floor;
//   - equal logits: softmax is uniform, so loss = −Σ q_c log(1/V) = ln V for any ε;
//   - logits (m, 0, …, 0), target 0: loss = ln(e^m + V − 1) − (1 − ε + ε/V)·m;
//   - the floor: logits z = log q give p = q and loss = H(q), the smallest loss possible
//     with smoothing ε (Gibbs' inequality); with ε = 0 that floor is 0.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "api/tfp_learn_training_api.h"

TEST_CASE("learn training: the lr schedule is the trainer's warm-up then decay") {
  const double peak = 1e-2, floor = 1e-3;
  std::vector<double> lr(200, -1);
  REQUIRE(tfp_learn_lr_schedule(peak, floor, 10, 110, 0, 200, lr.data()) == TFP_OK);
  CHECK(lr[0] == doctest::Approx(peak * 1 / 10).epsilon(1e-12));
  CHECK(lr[4] == doctest::Approx(peak * 5 / 10).epsilon(1e-12));
  CHECK(lr[9] == doctest::Approx(peak).epsilon(1e-12));
  CHECK(lr[10] == doctest::Approx(peak).epsilon(1e-12));
  CHECK(lr[60] == doctest::Approx(floor + (peak - floor) / 2).epsilon(1e-12));
  CHECK(lr[110] == doctest::Approx(floor).epsilon(1e-12));
  CHECK(lr[199] == doctest::Approx(floor).epsilon(1e-12));
  for (int s = 11; s < 110; ++s) CHECK(lr[s] <= lr[s - 1]);  // cosine decays monotonically

  REQUIRE(tfp_learn_lr_schedule(peak, floor, 10, 110, 1, 200, lr.data()) == TFP_OK);  // linear
  CHECK(lr[35] == doctest::Approx(floor + (peak - floor) * 0.75).epsilon(1e-12));
  REQUIRE(tfp_learn_lr_schedule(peak, floor, 0, 110, 2, 200, lr.data()) == TFP_OK);  // constant, no warm-up
  CHECK(lr[0] == peak);
  CHECK(lr[150] == peak);
}

TEST_CASE("learn training: cross-entropy, ln V at the start and the label-smoothing floor") {
  const int V = 15;
  std::vector<float> zero(V, 0.0f);
  const int32_t target = 3;
  for (double eps : {0.0, 0.1}) {
    double loss = -1;
    REQUIRE(tfp_learn_cross_entropy(zero.data(), &target, 1, V, eps, &loss) == TFP_OK);
    CHECK(loss == doctest::Approx(std::log(double(V))).epsilon(1e-6));
  }
  // (m, 0, …, 0) against target 0, for a few margins and both ε.
  const std::vector<float> margins{0.0f, 2.0f, 5.0f, 10.0f, 20.0f};
  std::vector<float> rows;
  std::vector<int32_t> targets;
  for (float m : margins) {
    for (int c = 0; c < V; ++c) rows.push_back(c == 0 ? m : 0.0f);
    targets.push_back(0);
  }
  const int n = static_cast<int>(margins.size());
  for (double eps : {0.0, 0.1}) {
    std::vector<double> losses(n, -1);
    REQUIRE(tfp_learn_cross_entropy(rows.data(), targets.data(), n, V, eps, losses.data()) == TFP_OK);
    for (int i = 0; i < n; ++i) {
      const double m = margins[i];
      const double expected = std::log(std::exp(m) + V - 1) - (1 - eps + eps / V) * m;
      CHECK(losses[i] == doctest::Approx(expected).epsilon(1e-6));
    }
  }
  // The floor: z = log q gives H(q); with ε = 0.1 it is well above 0 and no margin beats it.
  const double eps = 0.1, q_hi = 1 - eps + eps / V, q_lo = eps / V;
  std::vector<float> best(V, static_cast<float>(std::log(q_lo)));
  best[0] = static_cast<float>(std::log(q_hi));
  const int32_t t0 = 0;
  double at_best = -1;
  REQUIRE(tfp_learn_cross_entropy(best.data(), &t0, 1, V, eps, &at_best) == TFP_OK);
  const double entropy = -q_hi * std::log(q_hi) - (V - 1) * q_lo * std::log(q_lo);
  CHECK(at_best == doctest::Approx(entropy).epsilon(1e-6));
  CHECK(entropy > 0.4);  // ≈ 0.5 nats for V = 15
  std::vector<double> losses(n);
  REQUIRE(tfp_learn_cross_entropy(rows.data(), targets.data(), n, V, eps, losses.data()) == TFP_OK);
  for (double l : losses) CHECK(l >= entropy - 1e-6);
}

TEST_CASE("learn training: bad arguments name the problem") {
  std::vector<double> out(4);
  CHECK(tfp_learn_lr_schedule(0, 0, 0, 10, 0, 4, out.data()) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(tfp_last_error()).find("peak") != std::string::npos);
  CHECK(tfp_learn_lr_schedule(1, 0, 0, 10, 3, 4, out.data()) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(tfp_last_error()).find("decay") != std::string::npos);
  std::vector<float> z(4, 0.0f);
  const int32_t bad = 4;
  double loss;
  CHECK(tfp_learn_cross_entropy(z.data(), &bad, 1, 4, 0.0, &loss) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(tfp_last_error()).find("target") != std::string::npos);
  const int32_t ok = 0;
  CHECK(tfp_learn_cross_entropy(z.data(), &ok, 1, 4, 1.0, &loss) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(tfp_last_error()).find("label_smoothing") != std::string::npos);
}
