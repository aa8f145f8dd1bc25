// The doctest runner, natively and as WASM under Node (same suite, same sources).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

int main(int argc, char** argv) {
  doctest::Context context;
  context.setOption("no-colors", true);
  context.applyCommandLine(argc, argv);
  return context.run();
}
