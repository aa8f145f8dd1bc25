// The edge of the C API: every exported function runs its body inside guard(), which
// turns any C++ exception into a status code plus a message for tfp_last_error().
// This is the one place where exceptions stop; nothing below it needs to know about C.
#pragma once
#include <cmath>
#include <new>
#include <sstream>
#include <stdexcept>
#include <string>

#include "api/tfp_api.h"
#include "core/error.h"
#include "core/tensor.h"

namespace tfp::api {

// A caller broke the C API's contract (NULL pointer, negative size, bad option).
struct ArgumentError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

void set_last_error(int status, const std::string& message);

template <typename... Parts>
[[noreturn]] void argument_error(const Parts&... parts) {
  throw ArgumentError(str_cat(parts...));
}

// Runs body(); returns TFP_OK, or the status of the exception it threw with its
// message recorded. `where` names the C function for messages that lack context.
template <typename Body>
int guard(const char* where, Body&& body) noexcept {
  try {
    body();
    return TFP_OK;
  } catch (const ArgumentError& e) {
    set_last_error(TFP_ERR_INVALID_ARGUMENT, e.what());
    return TFP_ERR_INVALID_ARGUMENT;
  } catch (const tfp::Error& e) {
    set_last_error(TFP_ERR_ENGINE, e.what());
    return TFP_ERR_ENGINE;
  } catch (const std::bad_alloc&) {
    set_last_error(TFP_ERR_OUT_OF_MEMORY, std::string(where) + ": out of memory");
    return TFP_ERR_OUT_OF_MEMORY;
  } catch (const std::exception& e) {
    set_last_error(TFP_ERR_INTERNAL, std::string(where) + ": internal error: " + e.what());
    return TFP_ERR_INTERNAL;
  } catch (...) {
    set_last_error(TFP_ERR_INTERNAL, std::string(where) + ": internal error (unknown exception)");
    return TFP_ERR_INTERNAL;
  }
}

// A NULL params struct (tfp_api.h "parameter structs"): TFP_ERR_INVALID_ARGUMENT naming
// the call `f`. Returns the status, for `if (!p) return null_params(f);`.
inline int null_params(const char* f) {
  return guard(f, [&] { argument_error(f, ": params is NULL"); });
}

}  // namespace tfp::api

// Contract checks at the top of a C function: TFP_API_REQUIRE(x != nullptr, "tfp_f: x is NULL").
#define TFP_API_REQUIRE(cond, ...)                                   \
  do {                                                               \
    if (!(cond)) ::tfp::api::argument_error(__VA_ARGS__);            \
  } while (0)

namespace tfp::api {

// A borrowed (rows, cols) input of a teaching call as a view, after checking that it
// exists and is finite (TFP_ERR_INVALID_ARGUMENT naming `where`, `what`, row and column,
// counted from 1).
inline TensorView finite_matrix(const char* where, const char* what, const float* p, int rows, int cols) {
  TFP_API_REQUIRE(p != nullptr, where, ": ", what, " is NULL");
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      TFP_API_REQUIRE(std::isfinite(p[r * cols + c]), where, ": ", what, " has ", p[r * cols + c], " at row ", r + 1,
                      ", column ", c + 1, " (inputs must be finite numbers)");
  return TensorView{p, {rows, cols}};
}

}  // namespace tfp::api
