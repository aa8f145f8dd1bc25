// Load-time precision (model/precision.h): the same checkpoint held as f32, f16 and int8.
//
// Oracle: the f32 load's logits. Tolerances, relative to max |logit| of the f32 load:
//   f16   2e-3 (half rounding, 2^-11 relative per weight, through 2 layers of GPT-2 tiny)
//   int8  5e-2 (per-channel int8, max|W_o·| / 254 per weight, plus int16 activations)
// measured here: f16 7.6e-4, int8 1.7e-2. A weight bound to the wrong role or layout gives
// differences of the order of the logits themselves.
// Also: an I8 safetensors tensor with its "<name>_scale" companion loads as stored (our
// role-named layout and GPT-2's Conv1D (in, out) layout), and a missing companion is an
// error naming it.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "io/file.h"
#include "kernels/kernels.h"
#include "model/model.h"
#include "nn/quantize_int8.h"
#include "test_checkpoint_util.h"

using namespace tfp;

namespace {

model::ModelFiles tiny_files(model::Precision p) {
  const std::string dir = testing::checkpoint_dir("gpt2_tiny");
  model::ModelFiles f;
  f.name = "gpt2_tiny";
  f.config_json = io::read_text_file(dir + "/config.json");
  f.safetensors = io::read_file(dir + "/model.safetensors");
  f.precision = p;
  return f;
}

const std::vector<int32_t> kIds = {5, 77, 3, 200, 13, 1, 263, 42};

// m's weights written by role in precision p (our own format) and loaded again.
model::LoadedModel rewritten(const model::LoadedModel& m, model::Precision p, const std::string& name) {
  model::ModelFiles f;
  f.name = name;
  f.config_json = model::config_to_json(m.config());
  f.safetensors = model::weights_at_precision(m.config(), m.weights(), p);
  return model::load_model(std::move(f));
}

Tensor logits_of(const model::LoadedModel& m) {
  return model::forward_decoder_only(m.config(), m.weights(), kIds).logits;
}

float max_abs(const Tensor& t) {
  float m = 0;
  for (float x : t.data) m = std::max(m, std::fabs(x));
  return m;
}

float max_diff(const Tensor& a, const Tensor& b) {
  REQUIRE(a.shape == b.shape);
  float m = 0;
  for (size_t i = 0; i < a.data.size(); ++i) m = std::max(m, std::fabs(a.data[i] - b.data[i]));
  return m;
}

}  // namespace

TEST_CASE("precision: GPT-2 tiny held as f32, f16 and int8 (logits close, bytes held drop)") {
  const model::LoadedModel f32 = model::load_model(tiny_files(model::Precision::f32));
  const model::LoadedModel f16 = model::load_model(tiny_files(model::Precision::f16));
  const model::LoadedModel i8 = model::load_model(tiny_files(model::Precision::int8));
  CHECK(model::weights_precision_held(f32.config(), f32.weights()) == "f32");
  CHECK(model::weights_precision_held(f16.config(), f16.weights()) == "f16");
  CHECK(model::weights_precision_held(i8.config(), i8.weights()) == "int8");
  const int64_t b32 = model::weights_bytes_held(f32.config(), f32.weights());
  const int64_t b16 = model::weights_bytes_held(f16.config(), f16.weights());
  const int64_t b8 = model::weights_bytes_held(i8.config(), i8.weights());
  CHECK(b16 < b32);
  CHECK(b8 < b16);
  const Tensor want = logits_of(f32);
  const float scale = max_abs(want);
  REQUIRE(scale > 0);
  const float d16 = max_diff(logits_of(f16), want) / scale, d8 = max_diff(logits_of(i8), want) / scale;
  INFO("relative max |Δlogit|: f16 ", d16, ", int8 ", d8);
  CHECK(d16 < 2e-3f);
  CHECK(d8 < 5e-2f);
  CHECK(d8 > 0);  // int8 really ran
  // The stored load (F32 file) equals the f32 one bit for bit.
  CHECK(max_diff(logits_of(model::load_model(tiny_files(model::Precision::stored))), want) == 0);
}

TEST_CASE("precision: an I8 file with <name>_scale tensors loads as stored, in both layouts") {
  // Our role-named file, written by the int8 load itself.
  const model::LoadedModel i8 = model::load_model(tiny_files(model::Precision::int8));
  const model::LoadedModel again = rewritten(i8, model::Precision::int8, "int8-file");
  CHECK(model::weights_precision_held(again.config(), again.weights()) == "int8");
  CHECK(max_diff(logits_of(again), logits_of(i8)) == 0);

  // GPT-2's own names and Conv1D layout: h.0.mlp.c_fc.weight (in 16, out 64) as I8 (in, out)
  // with per-out scales; the rest as in the fixture.
  const std::string dir = testing::checkpoint_dir("gpt2_tiny");
  const io::SafeTensors st = io::SafeTensors::load(dir + "/model.safetensors");
  auto write = [&](bool with_scale) {
    io::SafeTensorsWriter w;
    for (const io::TensorEntry& e : st.entries()) {
      const TensorView v = st.f32(e);
      if (e.name != "h.0.mlp.c_fc.weight") {
        w.add_f32(e.name, e.shape, v.data);
        continue;
      }
      const int64_t I = e.shape[0], O = e.shape[1];
      const nn::Int8Channels q = nn::quantize_int8_channels(v.data, O, I, 1, O);
      std::vector<int8_t> in_out(static_cast<size_t>(I * O));
      for (int64_t o = 0; o < O; ++o)
        for (int64_t i = 0; i < I; ++i) in_out[static_cast<size_t>(i * O + o)] = q.q[static_cast<size_t>(o * I + i)];
      w.add_raw(e.name, io::DType::I8, e.shape, in_out.data(), in_out.size());
      if (with_scale) w.add_f32(e.name + "_scale", {O}, q.scale.data());
    }
    model::ModelFiles g;
    g.name = "gpt2-i8";
    g.config_json = io::read_text_file(dir + "/config.json");
    g.safetensors = w.finish();
    return g;
  };
  const model::LoadedModel mixed = model::load_model(write(true));
  CHECK(model::weights_precision_held(mixed.config(), mixed.weights()) == "mixed");
  const Tensor want = logits_of(model::load_model(tiny_files(model::Precision::stored)));
  CHECK(max_diff(logits_of(mixed), want) < 5e-2f * max_abs(want));
  CHECK(max_diff(logits_of(mixed), want) > 0);
  CHECK_THROWS_WITH(model::load_model(write(false)),
                    doctest::Contains("has no companion 'h.0.mlp.c_fc.weight_scale' tensor"));
}

TEST_CASE("precision: int8 of a 16-bit matrix, a block of rows at a time, equals widening it all first") {
  const int64_t O = 37, I = 19;  // blocks of 1, 5 and 8 rows: partial last blocks
  std::vector<uint16_t> h(static_cast<size_t>(O * I));
  for (size_t i = 0; i < h.size(); ++i) h[i] = kernels::f32_to_f16_one(std::sin(0.37f * static_cast<float>(i)) * 3.0f);
  for (const bool bf16 : {false, true}) {
    std::vector<uint16_t> b = h;
    if (bf16)
      for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<uint16_t>(h[i] ^ 0x0100u);  // other bits, same shape
    std::vector<float> wide(b.size());
    if (bf16) kernels::bf16_to_f32(b.data(), wide.data(), wide.size());
    else kernels::f16_to_f32(b.data(), wide.data(), wide.size());
    const nn::Int8Channels want = nn::quantize_int8_channels(wide.data(), O, I, I, 1);
    for (const int64_t block : {int64_t{1}, int64_t{5}, int64_t{8}, O, int64_t{100}}) {
      CAPTURE(bf16); CAPTURE(block);
      std::vector<int8_t> q(static_cast<size_t>(O * I), 99);  // every byte overwritten
      std::vector<float> scale(static_cast<size_t>(O), -1.0f);
      nn::quantize_int8_channels16_into(b.data(), bf16, O, I, block, q.data(), scale.data());
      CHECK(q == want.q);
      CHECK(scale == want.scale);
    }
  }
}

TEST_CASE("precision: a 16-bit file asked for f16 is bound as stored; for int8, quantised from its halves") {
  // gpt2_tiny with every tensor stored F16 under its Hugging Face name: a small file, which
  // the stored load widens to f32 (names_table.h), but f16 and int8 must not widen it first.
  const std::string dir = testing::checkpoint_dir("gpt2_tiny");
  const io::SafeTensors hf = io::SafeTensors::parse(io::read_file(dir + "/model.safetensors"), "hf");
  io::SafeTensorsWriter wr;
  for (const io::TensorEntry& e : hf.entries()) wr.add_f32(e.name, e.shape, hf.f32(e).data, io::DType::F16);
  const std::vector<uint8_t> f16_file = wr.finish();
  auto files = [&](model::Precision p) {
    model::ModelFiles f;
    f.name = "gpt2_tiny_f16";
    f.config_json = io::read_text_file(dir + "/config.json");
    f.safetensors = f16_file;
    f.precision = p;
    return f;
  };
  const model::LoadedModel stored = model::load_model(files(model::Precision::stored));
  const model::LoadedModel f16 = model::load_model(files(model::Precision::f16));
  const model::LoadedModel i8 = model::load_model(files(model::Precision::int8));
  CHECK(model::weights_precision_held(stored.config(), stored.weights()) == "f32");  // small: widened
  CHECK(model::weights_precision_held(f16.config(), f16.weights()) == "f16");
  CHECK(model::weights_precision_held(i8.config(), i8.weights()) == "int8");
  // Bound as stored: the token table is the file's own bytes, not a rewritten copy.
  REQUIRE(f16.tensors != nullptr);
  const io::TensorEntry* wte = f16.tensors->find("wte.weight");
  REQUIRE(wte != nullptr);
  CHECK(reinterpret_cast<const uint8_t*>(f16.weights().embed.token16.data) == f16.tensors->bytes(*wte).data());
  // Same numbers as the widened load (f16 kept = f16 widened, bit for bit).
  CHECK(max_diff(logits_of(f16), logits_of(stored)) == 0);
  // int8 from the halves = int8 from the same values held as f32.
  model::ModelFiles wide;
  wide.name = "gpt2_tiny_f16_widened";
  wide.config_json = model::config_to_json(stored.config());
  wide.safetensors = model::save_weights_by_role(stored.config(), stored.weights(), io::DType::F32);
  wide.precision = model::Precision::int8;
  CHECK(max_diff(logits_of(i8), logits_of(model::load_model(std::move(wide)))) == 0);
}

TEST_CASE("precision: 16-bit matrices rewritten as f32 are widened in place, bit for bit") {
  // A model holding f16 matrices (GPT-2's Conv1D turned (out, in) at load), written back
  // as an f32 file: every matrix is the exact widening of its halves, so the f32 model's
  // logits equal the f16 model's (whose kernels widen B exactly) bit for bit.
  const model::LoadedModel f16 = model::load_model(tiny_files(model::Precision::f16));
  REQUIRE(model::weights_precision_held(f16.config(), f16.weights()) == "f16");
  const model::LoadedModel f32 = rewritten(f16, model::Precision::f32, "f16-as-f32");
  CHECK(model::weights_precision_held(f32.config(), f32.weights()) == "f32");
  CHECK(model::weights_bytes_held(f32.config(), f32.weights()) > model::weights_bytes_held(f16.config(), f16.weights()));
  const HalfView& wte = f16.weights().embed.token16;
  REQUIRE(!wte.empty());
  const TensorView& wide = f32.weights().embed.token;
  REQUIRE(wide.data != nullptr);
  for (int64_t i = 0; i < wide.numel(); i += 97) {
    float w = 0;
    kernels::f16_to_f32(wte.data + i, &w, 1);
    CHECK(wide.data[i] == w);
  }
  CHECK(max_diff(logits_of(f32), logits_of(f16)) == 0);
}
