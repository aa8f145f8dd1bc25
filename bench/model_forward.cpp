// Whole-model timing of one GPT-2-small-shaped model (12 layers, 768 wide, 12 heads,
// vocab 50257, random weights): forward at T = 1, 32, 128 (all logits) and one KV-cached
// decode step at context 128. Medians of interleaved rounds after a warm-up.
// Uses only the API that predates the one-description builder (config fields, random_weights,
// forward_decoder_only, KVCache), so the same file builds at older commits: that is how the
// "no cost in speed" check of issue 19 compares the two builds in one run.
//   build/native/model_forward [--rounds N]      node build/wasm/model_forward.js [--rounds N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "model/kv_cache.h"
#include "model/transformer.h"
#include "model/weights.h"

using namespace tfp;
using namespace tfp::model;

namespace {

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 7;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--rounds") == 0) rounds = std::atoi(argv[i + 1]);

  ModelConfig c;
  c.architecture = Architecture::decoder_only;
  c.family = "gpt2";
  c.d_model = 768;
  c.n_heads = 12;
  c.n_decoder_layers = 12;
  c.d_ff = 3072;
  c.vocab_size = 50257;
  c.max_positions = 1024;
  c.activation = nn::Activation::gelu_tanh;
  c.norm_first = true;
  c.positional = Positional::learned;
  c.decoder_final_norm = true;
  c.fused_qkv = true;
  c.tied_lm_head = true;
  const ModelWeights w = random_weights(c, 7);

  auto ids = [](int T) {
    std::vector<int32_t> v(T);
    for (int t = 0; t < T; ++t) v[t] = (t * 7919 + 11) % 50257;
    return v;
  };
  const int sizes[] = {1, 32, 128};
  std::vector<std::vector<double>> times(4);
  for (int r = 0; r <= rounds; ++r) {  // round 0 warms up and is not counted
    for (int s = 0; s < 3; ++s) {
      const std::vector<int32_t> x = ids(sizes[s]);
      const double t0 = now_ms();
      const ForwardResult out = forward_decoder_only(c, w, x);
      const double t1 = now_ms();
      if (out.logits.empty()) return 1;
      if (r > 0) times[s].push_back(t1 - t0);
    }
    KVCache cache(c, 256);
    decoder_only_step(c, w, cache, ids(128));
    const std::vector<int32_t> one{42};
    const double t0 = now_ms();
    decoder_only_step(c, w, cache, one);
    if (r > 0) times[3].push_back(now_ms() - t0);
  }
  std::printf("gpt2-small forward T=1 %.2f ms, T=32 %.2f ms, T=128 %.2f ms; decode at context 128 %.2f ms "
              "(medians of %d rounds)\n",
              median(times[0]), median(times[1]), median(times[2]), median(times[3]), rounds);
  return 0;
}
