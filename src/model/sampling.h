// Choosing the next token from logits, and the generation loop around a KV cache.
//
// Sampling: temperature scales the logits (softmax(z / T)); temperature 0 means greedy
// (argmax, no random draw). top_k keeps the k most probable tokens, top_p the smallest
// set of most probable tokens whose probability reaches p (nucleus sampling, Holtzman et
// al. 2019), both applied after the temperature, as Hugging Face's warpers do.
// The random numbers come from PCG32 (O'Neill 2014), written here, so a seed gives the
// same tokens natively and in WebAssembly — std:: distributions are not specified
// bit-exactly and differ between libstdc++ and libc++.
//
// Legend: V vocabulary size.
#pragma once
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "model/config.h"
#include "model/weights.h"

namespace tfp::model {

// PCG-XSH-RR 64/32: 64-bit LCG state, 32-bit output by xorshift-high + random rotation.
class Pcg32 {
 public:
  explicit Pcg32(uint64_t seed = 0x853c49e6748fea9bULL, uint64_t stream = 0xda3e39cb94b95bdbULL);
  uint32_t next_u32();
  double next_double();  // uniform in [0, 1) with 53 random bits

 private:
  uint64_t state_ = 0, inc_ = 1;
};

struct SamplingOptions {
  float temperature = 1.0f;  // 0 = greedy
  int top_k = 0;             // 0 = all tokens
  float top_p = 1.0f;        // 1 = all tokens; (0, 1]
};

// Throws tfp::Error naming the bad option.
void check_sampling(const SamplingOptions& opt);

// The distribution sample_token draws from, over all V tokens: softmax(logits /
// temperature), then top-k, then top-p (Hugging Face's TemperatureLogitsWarper,
// TopKLogitsWarper, TopPLogitsWarper, in that order), the kept tokens renormalised to sum
// to 1 and every removed token exactly 0. Temperature 0 (greedy) and top_k 1 put all the
// mass on the argmax (the lowest id among ties): 0 never divides anything. Unlike
// Hugging Face, top-k keeps exactly k tokens: a tie at the k-th probability goes to the
// lower id. Double precision. Throws as sample_token.
std::vector<double> warped_probabilities(std::span<const float> logits, const SamplingOptions& opt);

// logits (V) → the chosen token id, drawn from warped_probabilities(logits, opt) with one
// rng.next_double() (greedy draws nothing). Throws on empty or NaN logits, bad options.
int32_t sample_token(std::span<const float> logits, const SamplingOptions& opt, Pcg32& rng);

// softmax(logits / temperature) in double precision (temperature > 0); for display.
std::vector<double> token_probabilities(std::span<const float> logits, float temperature = 1.0f);

// What a generation step reports of the token it chose: its probability under
// softmax(logits) (temperature 1) and the top_n most probable tokens, most probable first,
// ties to the lower id. Float, through the SIMD softmax (kernels::softmax_rows): a decode
// step of a 50,257-word vocabulary spent ~0.6 ms (WASM) on token_probabilities' double exps.
struct TokenReport {
  float prob = 0;
  std::vector<std::pair<int32_t, float>> top;
};
TokenReport report_token(std::span<const float> logits, int32_t id, int top_n = 0);

struct GenerateOptions {
  int max_tokens = 20;
  SamplingOptions sampling;
  uint64_t seed = 0;
  std::vector<int64_t> eos_token_ids;  // stop after producing any of them (Llama 3 lists two)
};

struct GeneratedToken {
  int32_t id;
  float prob;  // its probability under the model (softmax of the logits, temperature 1)
};

enum class StopReason { max_tokens, eos, context_full, stopped };
const char* stop_reason_name(StopReason r);  // "max_tokens", "eos", "context_full", "stopped"

struct GenerateResult {
  std::vector<GeneratedToken> tokens;
  StopReason reason = StopReason::max_tokens;
};

// Decoder-only generation with a KV cache: the prompt runs once, then one token per
// step. on_token (optional) sees each token as it is chosen and may return false to stop
// (reason `stopped`). Stops at eos, at max_tokens, or when the context (max_positions)
// is full. `prob` is the chosen token's probability at temperature 1 (the model's own
// distribution, before top-k/top-p), so greedy and sampled runs report comparable numbers.
GenerateResult generate(const ModelConfig& cfg, const ModelWeights& w, std::span<const int32_t> prompt,
                        const GenerateOptions& opt,
                        const std::function<bool(const GeneratedToken&)>& on_token = {});

}  // namespace tfp::model
