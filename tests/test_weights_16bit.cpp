// F16/BF16 weights kept 16-bit in memory (issue 14): a checkpoint bound with its matrices
// as stored computes exactly what the same checkpoint widened to f32 at load computes, on
// every matmul path (a decode step M = 1, small M, the packed path), for a tied head and
// its own files; GPT-2's (in, out) Conv1D matrices are turned (out, in) as f32 ones are;
// NaN and infinities are found in the 16-bit bits.
#include <doctest/doctest.h>

#include <cstring>
#include <limits>

#include "io/safetensors.h"
#include "model/model.h"
#include "model/names_table.h"
#include "model/transformer.h"
#include "model/weight_layout.h"
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

TEST_CASE("weights 16-bit: a Hugging Face GPT-2 file's (in, out) matrices are held (out, in), as f32 ones are") {
  const std::string dir = checkpoint_dir("gpt2_tiny");
  const LoadedModel gpt2 = load_model_dir(dir);
  const ModelConfig& cfg = gpt2.config();
  const io::SafeTensors hf = io::SafeTensors::parse(io::read_file(dir + "/model.safetensors"), "hf");
  for (const io::DType dt : {io::DType::F16, io::DType::BF16}) {
    CAPTURE(io::dtype_name(dt));
    io::SafeTensorsWriter wr;  // the same file, every tensor stored 16-bit, names and layouts as HF's
    for (const io::TensorEntry& e : hf.entries()) wr.add_f32(e.name, e.shape, hf.f32(e).data, dt);
    const io::SafeTensors st = io::SafeTensors::parse(wr.finish(), "hf16");
    ModelWeights kept = ModelWeights::for_config(cfg), wide = ModelWeights::for_config(cfg);
    bind_checkpoint(cfg, CheckpointFamily::gpt2, st, kept, 0);  // the binder may write: `st` owns its bytes
    const io::SafeTensors st_wide = io::SafeTensors::parse(wr.finish(), "hf16 wide");
    bind_checkpoint(cfg, CheckpointFamily::gpt2, st_wide, wide, std::numeric_limits<size_t>::max());
    const nn::Linear& qkv = kept.decoder_layers[0].attn.qkv;
    REQUIRE(qkv.layout == nn::WeightLayout::InOut);
    REQUIRE(qkv.weight16.data != nullptr);
    const Shape in_out = qkv.weight.shape;
    const uint16_t corner = qkv.weight16.data[1];  // W[0, 1] as stored (in, out)
    hold_linear_weights_out_in(cfg, kept);
    hold_linear_weights_out_in(cfg, wide);
    CHECK(qkv.layout == nn::WeightLayout::OutIn);
    CHECK(qkv.weight.shape == Shape{in_out[1], in_out[0]});
    CHECK(qkv.weight16.data[in_out[0]] == corner);  // now W^T[1, 0]
    CHECK(weight_problems(cfg, kept).empty());
    for (const std::vector<int32_t>& ids : {std::vector<int32_t>{7}, {5, 9, 256}, {1, 2, 3, 256, 263, 40, 41, 42, 7}}) {
      CAPTURE(ids.size());
      const ForwardResult a = forward_decoder_only(cfg, kept, ids), b = forward_decoder_only(cfg, wide, ids);
      REQUIRE(a.logits.data.size() == b.logits.data.size());
      CHECK(std::memcmp(a.logits.data.data(), b.logits.data.data(), a.logits.data.size() * sizeof(float)) == 0);
    }
    CHECK(save_weights_by_role(cfg, kept, io::DType::F32) == save_weights_by_role(cfg, wide, io::DType::F32));
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
