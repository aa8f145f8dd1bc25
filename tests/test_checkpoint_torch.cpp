// PyTorch nn.Transformer / TransformerEncoder / TransformerDecoder state_dicts saved as
// safetensors, run on inputs.safetensors. Oracle: the torch modules themselves (float64,
// tests/fixtures/gen_checkpoints.py), attention weights per head from
// nn.MultiheadAttention(need_weights=True, average_attn_weights=False). Tolerance: max abs
// 1e-4 on outputs and attention probabilities.
#include <doctest/doctest.h>

#include "nn/observer.h"
#include "model/model.h"
#include "model/torch_inputs.h"
#include "test_checkpoint_util.h"

using namespace tfp;
using namespace tfp::model;
using tfp::testing::checkpoint_dir;
using tfp::testing::max_abs_diff;
using tfp::testing::read_json;

namespace {

void check_case(const std::string& name, CheckpointFamily family) {
  CAPTURE(name);
  const std::string dir = checkpoint_dir(name);
  const LoadedModel m = load_model_dir(dir);
  CHECK(m.family == family);
  CHECK(m.tokenizer == nullptr);
  const io::SafeTensors inputs = io::SafeTensors::load(dir + "/inputs.safetensors");
  REQUIRE(torch_batch_size(m.family, inputs) == 1);
  const TorchInputs in = torch_inputs(m.config(), m.family, inputs, 0);
  nn::RecordingObserver obs({"*.probs"});
  const TorchResult r = run_torch(m.config(), m.weights(), m.family, in, &obs);
  const nlohmann::json want = read_json(dir + "/expected.json");
  CHECK(max_abs_diff(r.output, want["output"]) < 1e-4);
  if (want.contains("memory")) CHECK(max_abs_diff(r.memory, want["memory"]) < 1e-4);
  for (auto it = want["attentions"].begin(); it != want["attentions"].end(); ++it) {
    CAPTURE(it.key());
    REQUIRE(obs.has(it.key()));
    CHECK(max_abs_diff(obs.get(it.key()), it.value()) < 1e-4);
  }
}

}  // namespace

TEST_CASE("checkpoint torch: nn.Transformer (post-LN, relu, causal float tgt_mask, BOOL padding)") {
  check_case("torch_transformer", CheckpointFamily::torch_transformer);
}

TEST_CASE("checkpoint torch: nn.TransformerEncoder (norm_first, gelu, final norm, float src_mask)") {
  check_case("torch_encoder_prenorm", CheckpointFamily::torch_encoder);
}

TEST_CASE("checkpoint torch: nn.TransformerDecoder (BOOL causal mask, tgt padding, memory input)") {
  check_case("torch_decoder", CheckpointFamily::torch_decoder);
}

TEST_CASE("checkpoint torch: input errors name the tensor") {
  const LoadedModel m = load_model_dir(checkpoint_dir("torch_transformer"));
  auto inputs_with = [](const std::vector<std::pair<std::string, Shape>>& shapes, io::DType mask_dtype) {
    io::SafeTensorsWriter w;
    for (const auto& [name, shape] : shapes) {
      const Tensor t(shape, 0.0f);
      if (name.find("padding") != std::string::npos) {
        const std::vector<uint8_t> zeros(static_cast<size_t>(t.numel()), 0);
        if (mask_dtype == io::DType::BOOL) w.add_raw(name, io::DType::BOOL, shape, zeros.data(), zeros.size());
        else w.add_f32(name, t);
      } else {
        w.add_f32(name, t);
      }
    }
    return io::SafeTensors::parse(w.finish(), "in.safetensors");
  };
  const auto no_tgt = inputs_with({{"src", {1, 3, 16}}}, io::DType::BOOL);
  CHECK_THROWS_WITH_AS(torch_batch_size(m.family, no_tgt), "inputs 'in.safetensors': missing tensor 'tgt'", Error);
  const auto typo = inputs_with({{"src", {1, 3, 16}}, {"tgt", {1, 2, 16}}, {"src_key_pading_mask", {1, 3}}},
                                io::DType::BOOL);
  CHECK_THROWS_WITH_AS(torch_batch_size(m.family, typo),
                       "inputs 'in.safetensors': tensor 'src_key_pading_mask' is not an input of "
                       "torch_transformer (expected src, tgt and optional masks)",
                       Error);
  const auto width = inputs_with({{"src", {1, 3, 8}}, {"tgt", {1, 2, 16}}}, io::DType::BOOL);
  CHECK_THROWS_WITH_AS(torch_inputs(m.config(), m.family, width, 0),
                       "inputs 'in.safetensors': tensor 'src' has shape [1, 3, 8], expected (batch, length, 16) "
                       "or (length, 16)",
                       Error);
  const auto batch = inputs_with({{"src", {2, 3, 16}}, {"tgt", {1, 2, 16}}}, io::DType::BOOL);
  CHECK_THROWS_WITH_AS(torch_batch_size(m.family, batch),
                       "inputs 'in.safetensors': tensor 'tgt' has batch size 1, but another input has 2", Error);
  const auto float_pad = inputs_with({{"src", {1, 3, 16}}, {"tgt", {1, 2, 16}}, {"src_key_padding_mask", {1, 3}}},
                                     io::DType::F32);
  CHECK_THROWS_WITH_AS(torch_inputs(m.config(), m.family, float_pad, 0),
                       "inputs 'in.safetensors': tensor 'src_key_padding_mask' has dtype F32; key padding masks "
                       "must be BOOL (true = padding)",
                       Error);
  const auto mask_shape = inputs_with({{"src", {1, 3, 16}}, {"tgt", {1, 2, 16}}, {"tgt_mask", {3, 3}}},
                                      io::DType::BOOL);
  CHECK_THROWS_WITH_AS(torch_inputs(m.config(), m.family, mask_shape, 0),
                       "inputs 'in.safetensors': tensor 'tgt_mask' has shape [3, 3], expected [2, 2] (per-head "
                       "3-D masks are not supported)",
                       Error);
  // A batch of two runs item by item; rank-2 inputs are a batch of one.
  const auto two = inputs_with({{"src", {2, 3, 16}}, {"tgt", {2, 2, 16}}}, io::DType::BOOL);
  CHECK(torch_batch_size(m.family, two) == 2);
  CHECK(torch_inputs(m.config(), m.family, two, 1).src.shape == Shape{3, 16});
  const auto flat = inputs_with({{"src", {3, 16}}, {"tgt", {2, 16}}}, io::DType::BOOL);
  CHECK(torch_batch_size(m.family, flat) == 1);
}
