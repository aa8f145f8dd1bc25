// libFuzzer target: a whole model from arbitrary files — config.json + model.safetensors
// through model::load_model (parse, bind by the family's name table, NaN/Inf check) —
// then one forward pass of whatever loaded, as `tfp forward` runs it.
// Input: config.json, kFileSeparator, model.safetensors, and optionally kFileSeparator and
// input bytes: token ids are those bytes modulo the vocabulary (at most kMaxTokens; the
// bytes "ab" if none), a PyTorch nn.Transformer checkpoint takes them as embeddings.
// Invariant: the outputs have the shapes the config promises.
#include <algorithm>

#include "core/error.h"
#include "fuzz_util.h"
#include "model/model.h"
#include "model/torch_inputs.h"
#include "model/transformer.h"

namespace {

constexpr size_t kMaxTokens = 16;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tfp::model;
  const std::vector<std::string_view> files = tfp::fuzz::split_files(data, size, 3);
  if (files.size() < 2) return 0;
  std::string_view input = files.size() > 2 ? files[2] : std::string_view();
  if (input.empty()) input = "ab";
  input = input.substr(0, kMaxTokens);
  try {
    ModelFiles mf;
    mf.config_json = std::string(files[0]);
    mf.safetensors = tfp::fuzz::bytes_of(files[1]);
    mf.name = "fuzz";
    const LoadedModel m = load_model(std::move(mf));
    const ModelConfig& c = m.config();
    const int64_t T = static_cast<int64_t>(input.size());
    if (!c.has_embeddings) {  // nn.Transformer / TransformerEncoder / TransformerDecoder on embeddings
      const int64_t C = c.d_model;
      auto embeddings = [&](int64_t rows) {
        tfp::Tensor t({rows, C});
        for (int64_t i = 0; i < rows * C; ++i) t.data[i] = (static_cast<uint8_t>(input[i % T]) - 128) / 32.0f;
        return t;
      };
      TorchInputs in;
      in.src = embeddings(T);
      in.tgt = embeddings(std::max<int64_t>(1, T - 1));
      in.memory = embeddings(T);
      in.masks.tgt_causal = (input[0] & 1) != 0;
      const TorchResult r = run_torch(c, m.weights(), m.family, in);
      TFP_FUZZ_ASSERT(r.output.shape.size() == 2 && r.output.shape[1] == C);
      return 0;
    }
    std::vector<int32_t> ids;
    for (const char b : input) ids.push_back(static_cast<int32_t>(static_cast<uint8_t>(b) % c.vocab_size));
    ForwardResult r;
    switch (c.architecture) {
      case Architecture::decoder_only: r = forward_decoder_only(c, m.weights(), ids); break;
      case Architecture::encoder_only: r = forward_encoder_only(c, m.weights(), ids); break;
      case Architecture::encoder_decoder: {
        const std::vector<int32_t> tgt(ids.begin(), ids.begin() + std::max<int64_t>(1, T / 2));
        r = forward_encoder_decoder(c, m.weights(), ids, tgt);
        break;
      }
    }
    TFP_FUZZ_ASSERT(!r.logits.empty() || !r.hidden.empty());
    if (!r.logits.empty()) TFP_FUZZ_ASSERT(r.logits.shape.size() == 2);
  } catch (const tfp::Error& e) {
    tfp::fuzz::refused(e);
  }
  return 0;
}
