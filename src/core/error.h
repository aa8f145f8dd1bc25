// Errors are values the caller can show. Inside the engine a failed check throws
// tfp::Error with a message naming the operation and the shapes; the C API in src/api/
// catches it at the edge, so nothing ever aborts across the WASM boundary.
#pragma once
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>
#include <cstdint>

namespace tfp {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// "[2, 3, 4]" — for error messages.
std::string shape_str(const std::vector<int64_t>& shape);

// The parts streamed into one string: str_cat("layer ", 3, " of ", 12).
template <typename... Parts>
std::string str_cat(const Parts&... parts) {
  std::ostringstream os;
  (os << ... << parts);
  return os.str();
}

namespace detail {
template <typename... Parts>
[[noreturn]] void fail(const char* file, int line, const Parts&... parts) {
  (void)file; (void)line;
  throw Error(str_cat(parts...));
}
}  // namespace detail

}  // namespace tfp

// TFP_CHECK(cond, "matmul: inner dims differ: ", k1, " vs ", k2)
#define TFP_CHECK(cond, ...)                                                    \
  do {                                                                          \
    if (!(cond)) ::tfp::detail::fail(__FILE__, __LINE__, __VA_ARGS__);          \
  } while (0)
#define TFP_FAIL(...) ::tfp::detail::fail(__FILE__, __LINE__, __VA_ARGS__)
