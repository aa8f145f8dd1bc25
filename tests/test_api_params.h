// The C API's params structs (tfp_api.h "parameter structs") in the tests. A C caller
// writes a compound literal, `tfp_model_forward(m, &(tfp_forward_params){.ids = ids, .n = 4},
// &out)`; C++ has none, so the tests write `params(tfp_forward_params{.ids = ids, .n = 4})`:
// the same pointer, to a temporary that lives to the end of the full expression (the call).
// A designated initializer zeroes every field it does not name, which is the default of
// tfp_forward_params and tfp_embeddings_params only: for the others the tests name every
// field (or start from tfp_<name>_params_init).
// That zeroing is C++20's rule (as C's); -Wextra's -Wmissing-field-initializers would
// warn at every call, so it is off in the files that include this header.
#pragma once
#include "api/tfp_api.h"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace tfp::testing {

template <typename P>
const P* params(const P& p) {
  return &p;
}

}  // namespace tfp::testing
