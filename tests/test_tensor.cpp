#include <doctest/doctest.h>

#include "core/tensor.h"

using namespace tfp;

TEST_CASE("tensor: shape, rows and shape errors") {
  Tensor t({2, 3}, 1.5f);
  CHECK(t.numel() == 6);
  CHECK(t.dim(-1) == 3);
  CHECK(t.row(1)[2] == 1.5f);
  CHECK_THROWS_WITH_AS(t.reshape({4, 2}), "reshape: cannot view [2, 3] as [4, 2]", Error);
  CHECK_THROWS_AS(Tensor({2, 2}, std::vector<float>{1, 2, 3}), Error);
  CHECK_THROWS_WITH_AS(expect_shape("mha", "query", {2, 3}, {-1, 4}),
                       "mha: query has shape [2, 3], expected [-1, 4]", Error);
}
