// nn::linear in both checkpoint layouts: the projections under attention.
// Oracle: hand-computed values and a double-precision loop; tolerance 1e-5 (f32
// accumulation over <= 37 terms of size <= 1).
#include <doctest/doctest.h>

#include "nn/linear.h"
#include "test_attention_ref.h"

using namespace tfp;
using namespace tfp::nn;

TEST_CASE("attention/linear: hand example, both layouts, bias, slice") {
  // W (O=2, I=3) = [[1,2,3],[4,5,6]], b = [10, 20], x = [[1,0,-1],[2,1,0]]
  // y[0] = [1-3+10, 4-6+20] = [8, 18];  y[1] = [2+2+10, 8+5+20] = [14, 33]
  Tensor W({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor Wt({3, 2}, {1, 4, 2, 5, 3, 6});  // the same weight stored (in, out)
  Tensor b({2}, {10, 20});
  Tensor x({2, 3}, {1, 0, -1, 2, 1, 0});
  const std::vector<float> expect = {8, 18, 14, 33};
  for (auto layout : {WeightLayout::OutIn, WeightLayout::InOut}) {
    Linear l{layout == WeightLayout::OutIn ? W.view() : Wt.view(), b, layout};
    CHECK(l.in_features() == 3);
    CHECK(l.out_features() == 2);
    Tensor y = linear(x, l);
    REQUIRE(y.shape == Shape{2, 2});
    CHECK(y.data == expect);
    Tensor y1 = linear_slice(x, l, 1, 2);  // only output feature 1
    REQUIRE(y1.shape == Shape{2, 1});
    CHECK(y1.data == std::vector<float>{18, 33});
  }
  Tensor nob = linear(x, Linear{W, {}, WeightLayout::OutIn});
  CHECK(nob.data == std::vector<float>{-2, -2, 4, 13});
}

TEST_CASE("attention/linear: random odd sizes against double, rank-3 input") {
  testref::Rng rng(7);
  const int T = 5, I = 37, O = 13;
  Tensor W = rng.tensor({O, I}), b = rng.tensor({O}), x = rng.tensor({1, T, I});
  Tensor y = linear(x, Linear{W, b, WeightLayout::OutIn});
  REQUIRE(y.shape == Shape{1, T, O});
  auto ref = testref::linear_oi(testref::to_double(x.ptr(), x.data.size()), T, I, W.ptr(), b.ptr(), O);
  CHECK(testref::max_abs_diff(y.ptr(), ref) < 1e-5);
}

TEST_CASE("attention/linear: shape errors name the op and shapes") {
  Tensor W({2, 3}), b3({3}), x({4, 5});
  CHECK_THROWS_WITH_AS(linear(x, Linear{W, {}, WeightLayout::OutIn}, "mlp.fc"),
                       "mlp.fc: input has shape [4, 5] but the weight [2, 3] (out, in) expects 3 input features",
                       Error);
  CHECK_THROWS_WITH_AS(linear(Tensor({4, 3}), Linear{W, b3, WeightLayout::OutIn}, "proj"),
                       "proj: bias has shape [3], expected [2] for weight [2, 3] (out, in)", Error);
  CHECK_THROWS_WITH_AS(linear(x, Linear{}, "head"), "head: linear layer has no weight", Error);
  CHECK_THROWS_AS(linear_slice(Tensor({4, 3}), Linear{W, {}, WeightLayout::OutIn}, 1, 3), Error);
}
