// The toy trainer through the flat C API (tfp_trainer_*), natively: the same calls the
// WASM module gets from bench/trainer_wasm.mjs and tests/js/trainer_wasm.test.mjs, so the
// two can be compared step for step and in tokens/second.
//
//   trainer_api TASK OPTIONS_JSON SEED STEPS [CHUNK]
//
// Prints one JSON object: per-step losses (%.9g), the held-out evaluation before and after
// training, and the training time (evaluation excluded) as wall and CPU seconds and
// tokens/second (tokens_per_step from tfp_trainer_info_json, as `tfp train` counts them).
// Steps run CHUNK at a time (default 10), as the page's worker does.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "api/tfp_api.h"

namespace {
int fail(const char* what) {
  std::fprintf(stderr, "trainer_api: %s: %s\n", what, tfp_last_error());
  return 1;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: trainer_api TASK OPTIONS_JSON SEED STEPS [CHUNK]\n");
    return 2;
  }
  const std::string options = argv[2];
  const auto seed = static_cast<uint32_t>(std::strtoul(argv[3], nullptr, 10));
  const int steps = std::atoi(argv[4]);
  const int chunk = argc > 5 ? std::atoi(argv[5]) : 10;
  if (steps <= 0 || chunk <= 0) return std::fprintf(stderr, "trainer_api: STEPS and CHUNK must be positive\n"), 2;

  tfp_trainer* t = nullptr;
  if (tfp_trainer_create(argv[1], options.data(), options.size(), seed, &t) != TFP_OK) return fail("create");
  double acc0 = 0, acc1 = 0, tok1 = 0, loss1 = 0;
  if (tfp_trainer_evaluate(t, &acc0, nullptr, nullptr) != TFP_OK) return fail("evaluate");

  std::vector<double> losses(steps);
  using clock = std::chrono::steady_clock;
  const auto w0 = clock::now();
  const std::clock_t c0 = std::clock();
  for (int done = 0; done < steps; done += chunk) {
    const int n = std::min(chunk, steps - done);
    if (tfp_trainer_step(t, n, losses.data() + done) != TFP_OK) return fail("step");
  }
  const double cpu = double(std::clock() - c0) / CLOCKS_PER_SEC;
  const double wall = std::chrono::duration<double>(clock::now() - w0).count();
  if (tfp_trainer_evaluate(t, &acc1, &tok1, &loss1) != TFP_OK) return fail("evaluate");

  const char* info = tfp_trainer_info_json(t);
  const std::string key = "\"tokens_per_step\":";
  const std::string s = info ? info : "";
  const double per_step = std::atof(s.c_str() + s.find(key) + key.size());
  const double tokens = per_step * steps;

  std::printf("{\"task\": \"%s\", \"options\": %s, \"seed\": %u, \"steps\": %d, \"simd\": \"%s\",\n", argv[1],
              options.c_str(), seed, steps, tfp_simd_arch());
  std::printf(" \"info\": %s,\n \"losses\": [", s.c_str());
  for (int i = 0; i < steps; ++i) std::printf("%s%.9g", i ? ", " : "", losses[i]);
  std::printf("],\n \"held_out_before\": {\"sequence_accuracy\": %.6f},\n", acc0);
  std::printf(" \"held_out_after\": {\"sequence_accuracy\": %.6f, \"token_accuracy\": %.6f, \"loss\": %.6f},\n",
              acc1, tok1, loss1);
  std::printf(" \"seconds\": %.3f, \"cpu_seconds\": %.3f, \"tokens_per_second\": %.0f, "
              "\"tokens_per_cpu_second\": %.0f}\n",
              wall, cpu, tokens / wall, tokens / cpu);
  tfp_trainer_free(t);
  return 0;
}
