// F16/BF16 weights kept 16-bit in memory (issue 14): a checkpoint bound with its matrices
// as stored computes exactly what the same checkpoint widened to f32 at load computes, on
// every matmul path (a decode step M = 1, small M, the packed path), for a tied head and
// its own files; NaN and infinities are found in the 16-bit bits.
#include <doctest/doctest.h>

#include <cstring>
#include <limits>

#include "io/safetensors.h"
#include "model/model.h"
#include "model/names_table.h"
#include "model/transformer.h"
#include "test_checkpoint_util.h"

using namespace tfp;
using namespace tfp::model;
using tfp::testing::checkpoint_dir;

namespace {

struct Bound {
  io::SafeTensors st;
  ModelWeights w;
};

// gpt2_tiny saved in our own format as `dtype`, bound keeping 16-bit (keep = true) or widened.
Bound bind_as(const LoadedModel& src, io::DType dtype, bool keep) {
  Bound b{io::SafeTensors::parse(save_weights_by_role(src.config(), src.weights(), dtype), "w16"), {}};
  b.w = ModelWeights::for_config(src.config());
  bind_checkpoint(src.config(), CheckpointFamily::tfp, b.st, b.w,
                  keep ? 0 : std::numeric_limits<size_t>::max());
  return b;
}

}  // namespace

TEST_CASE("weights 16-bit: kept as stored, the same numbers as widened at load, bit for bit") {
  const LoadedModel gpt2 = load_model_dir(checkpoint_dir("gpt2_tiny"));
  const ModelConfig& cfg = gpt2.config();
  for (const io::DType dt : {io::DType::F16, io::DType::BF16}) {
    CAPTURE(io::dtype_name(dt));
    const Bound kept = bind_as(gpt2, dt, true), wide = bind_as(gpt2, dt, false);
    // Kept: no f32 matrix exists; the views carry only the shape.
    const nn::Linear& fc1 = kept.w.decoder_layers[0].ffn.fc1;
    CHECK(fc1.weight.data == nullptr);
    CHECK(fc1.weight16.data != nullptr);
    CHECK(fc1.weight16.bf16 == (dt == io::DType::BF16));
    CHECK(fc1.weight16.finite);  // checked at bind: the decode GEMV skips its own check
    CHECK(kept.w.embed.token16.finite);
    CHECK(kept.w.embed.token16.data != nullptr);
    CHECK(wide.w.decoder_layers[0].ffn.fc1.weight16.empty());
    CHECK(wide.w.embed.token16.empty());
    CHECK(weight_problems(cfg, kept.w).empty());
    // T = 1 (M = 1 GEMV), 3 (small M), 9 (packed, M > 4): every logit equal.
    for (const std::vector<int32_t> ids : {std::vector<int32_t>{7}, {5, 9, 256}, {1, 2, 3, 256, 263, 40, 41, 42, 7}}) {
      CAPTURE(ids.size());
      const ForwardResult a = forward_decoder_only(cfg, kept.w, ids), b = forward_decoder_only(cfg, wide.w, ids);
      REQUIRE(a.logits.data.size() == b.logits.data.size());
      CHECK(std::memcmp(a.logits.data.data(), b.logits.data.data(), a.logits.data.size() * sizeof(float)) == 0);
    }
    // Exporting a 16-bit model writes the same file as exporting the widened one.
    CHECK(save_weights_by_role(cfg, kept.w, io::DType::F32) == save_weights_by_role(cfg, wide.w, io::DType::F32));
  }
}

TEST_CASE("weights 16-bit: NaN and infinity are refused in the stored bits, with the element") {
  const LoadedModel gpt2 = load_model_dir(checkpoint_dir("gpt2_tiny"));
  const ModelConfig& cfg = gpt2.config();
  for (const auto& [bits, what] : {std::pair<uint16_t, const char*>{0x7e00, "NaN"}, {0xfc00, "an infinity"}}) {
    std::vector<uint8_t> file = save_weights_by_role(cfg, gpt2.weights(), io::DType::F16);
    const io::SafeTensors probe = io::SafeTensors::parse(file, "probe");
    const io::TensorEntry& e = probe.entry("dec.1.ffn.fc2.weight");
    std::memcpy(file.data() + e.offset + 2 * 5, &bits, 2);  // element 5: row 0, column 5
    const io::SafeTensors st = io::SafeTensors::parse(std::move(file), "bad");
    ModelWeights w = ModelWeights::for_config(cfg);
    const std::string want = std::string("holds ") + what + " at index [0, 5]";
    CHECK_THROWS_WITH_AS(bind_checkpoint(cfg, CheckpointFamily::tfp, st, w, 0),
                         doctest::Contains(want.c_str()), Error);
  }
}
