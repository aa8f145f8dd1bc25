// The streamed, narrowing load (model/weights_stream.h): a checkpoint fed in pieces of any
// size and narrowed on the way in holds exactly the numbers a load of the whole file at the
// same precision holds, for every family, in f16 and int8; bytes it cannot narrow pass
// through; bad input is named.
//
// Oracle: load_model of the whole file at the same precision (itself checked against f32
// and the families' references in test_precision.cpp, test_families.cpp). Equality is
// exact: the weights exported by role (widened to F32) are byte-identical, and so are the
// logits of a forward pass.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>

#include "io/file.h"
#include "model/model.h"
#include "model/weights_stream.h"
#include "test_checkpoint_util.h"

using namespace tfp;
using namespace tfp::model;

namespace {

std::string fixture(const std::string& name) {
  return name.find('/') == std::string::npos ? testing::checkpoint_dir(name)
                                             : std::string(TFP_FIXTURES_DIR) + "/" + name;
}

using testing::Streamed;
using testing::stream_in;

LoadedModel load(const std::string& config, std::vector<uint8_t> weights, Precision p) {
  ModelFiles f;
  f.name = "m";
  f.config_json = config;
  f.safetensors = std::move(weights);
  f.precision = p;
  return load_model(std::move(f));
}

std::vector<uint8_t> exported(const LoadedModel& m) {
  return save_weights_by_role(m.config(), m.weights(), io::DType::F32);
}

// The two models' logits for the same ids, bit for bit.
bool same_logits(const LoadedModel& a, const LoadedModel& b) {
  const std::vector<int32_t> ids = {5, 77, 3, 200, 13, 1, 263, 42};
  const Tensor la = forward_decoder_only(a.config(), a.weights(), ids).logits;
  const Tensor lb = forward_decoder_only(b.config(), b.weights(), ids).logits;
  return la.data.size() == lb.data.size() && std::memcmp(la.data.data(), lb.data.data(), la.data.size() * sizeof(float)) == 0;
}

}  // namespace

TEST_CASE("weights stream: every family, f16 and int8, any piece size: the numbers of a whole-file load") {
  struct Case {
    const char* dir;
    bool narrows;  // false: nothing the stream can narrow, or a file it must pass through
  };
  const Case cases[] = {
      {"gpt2_tiny", true},            {"gpt2_tiny_lmhead_f16", true},  // lm_head.weight kept; its tie checked at int8
      {"bert_mlm_tiny", true},        {"bert_tiny_f16", true},  // f16: stays as stored; int8: narrowed
      {"torch_transformer", true},    {"torch_decoder", true},
      {"families/llama_gqa", true},   {"families/llama_bf16", true},
      {"families/qwen2", true},       {"families/pythia_parallel", true},
      {"families/bloom_alibi", true}, {"families/flan_t5", true},
      {"families/gemma2", true},      {"families/gpt_neo_local", true},
  };
  for (const Case& c : cases) {
    const std::string dir = fixture(c.dir);
    const std::string config = io::read_text_file(dir + "/config.json");
    const std::vector<uint8_t> bytes = io::read_file(dir + "/model.safetensors");
    for (const Precision p : {Precision::f16, Precision::int8}) {
      CAPTURE(c.dir);
      CAPTURE(precision_name(p));
      const LoadedModel whole = load(config, bytes, p);
      const std::vector<uint8_t> want = exported(whole);
      for (const size_t piece : {size_t{1}, size_t{7}, size_t{4096}, bytes.size()}) {
        CAPTURE(piece);
        Streamed s = stream_in(bytes, config, p, piece);
        const bool f16_of_16bit = p == Precision::f16 && (std::string(c.dir).ends_with("f16") ||
                                                         std::string(c.dir).ends_with("bf16"));
        CHECK(s.narrowed == (c.narrows && !f16_of_16bit));
        if (!s.narrowed) CHECK(s.file == bytes);  // passed through
        if (s.narrowed) CHECK(s.file.size() < bytes.size());
        const LoadedModel streamed = load(config, std::move(s.file), p);
        CHECK(weights_precision_held(streamed.config(), const_cast<ModelWeights&>(streamed.weights())) ==
              weights_precision_held(whole.config(), const_cast<ModelWeights&>(whole.weights())));
        CHECK(weights_bytes_held(streamed.config(), const_cast<ModelWeights&>(streamed.weights())) ==
              weights_bytes_held(whole.config(), const_cast<ModelWeights&>(whole.weights())));
        CHECK(exported(streamed) == want);
      }
    }
  }
}

TEST_CASE("weights stream: GPT-2 at int8, the logits of a whole-file load bit for bit; f32 passes through") {
  const std::string dir = testing::checkpoint_dir("gpt2_tiny");
  const std::string config = io::read_text_file(dir + "/config.json");
  const std::vector<uint8_t> bytes = io::read_file(dir + "/model.safetensors");
  for (const Precision p : {Precision::f16, Precision::int8}) {
    Streamed s = stream_in(bytes, config, p, 1000);
    REQUIRE(s.narrowed);
    CHECK(same_logits(load(config, std::move(s.file), p), load(config, bytes, p)));
  }
  for (const Precision p : {Precision::stored, Precision::f32}) {
    Streamed s = stream_in(bytes, config, p, 333);
    CHECK_FALSE(s.narrowed);
    CHECK(s.file == bytes);
  }
  Streamed no_config = stream_in(bytes, "", Precision::int8, 333);
  CHECK_FALSE(no_config.narrowed);
  CHECK(no_config.file == bytes);
}

TEST_CASE("weights stream: bad input is named, and a file the load would refuse passes through to be refused") {
  const std::string dir = testing::checkpoint_dir("gpt2_tiny");
  const std::string config = io::read_text_file(dir + "/config.json");
  const std::vector<uint8_t> bytes = io::read_file(dir + "/model.safetensors");
  const io::SafeTensors st = io::SafeTensors::parse(bytes, "gpt2_tiny");

  SUBCASE("a NaN in a matrix being quantised: the tensor and the element") {
    const io::TensorEntry& e = st.entry("h.1.mlp.c_fc.weight");
    std::vector<uint8_t> bad = bytes;
    const float nan = std::nanf("");
    std::memcpy(bad.data() + e.offset + 4 * 37, &nan, 4);
    WeightsStream s(bad.size(), "bad/model.safetensors", config, Precision::int8);
    bool thrown = false;
    try {
      std::memcpy(s.next(bad.size()), bad.data(), bad.size());
      s.commit(bad.size());
    } catch (const Error& err) {
      thrown = true;
      CHECK(std::string(err.what()).find("tensor 'h.1.mlp.c_fc.weight' holds NaN at flat index 37") != std::string::npos);
    }
    CHECK(thrown);
    CHECK_THROWS_WITH_AS(s.next(1), doctest::Contains("already failed"), Error);
    // At f16 the binder finds it in the halves, as it does in a whole-file load.
    Streamed s16 = stream_in(bad, config, Precision::f16, 512);
    CHECK(s16.narrowed);
    CHECK_THROWS_WITH_AS(load(config, std::move(s16.file), Precision::f16),
                         doctest::Contains("'h.1.mlp.c_fc.weight' (role dec.1.ffn.fc1.weight) holds NaN at index"), Error);
  }
  SUBCASE("truncated, or more bytes than announced") {
    WeightsStream s(bytes.size(), "short/model.safetensors", config, Precision::int8);
    std::memcpy(s.next(1000), bytes.data(), 1000);
    s.commit(1000);
    CHECK_THROWS_WITH_AS(s.finish(), doctest::Contains("1000 of the announced"), Error);
    WeightsStream t(10, "long/model.safetensors", config, Precision::int8);
    CHECK_THROWS_WITH_AS(t.next(11), doctest::Contains("only 10 of the announced 10 are left"), Error);
  }
  SUBCASE("a header that does not parse, a config that does not match: the load's own errors") {
    std::vector<uint8_t> garbled = bytes;
    garbled[8] = '[';  // the header is no longer a JSON object
    Streamed g = stream_in(garbled, config, Precision::int8, 64);
    CHECK_FALSE(g.narrowed);
    CHECK(g.file == garbled);
    CHECK_THROWS_WITH_AS(load(config, std::move(g.file), Precision::int8), doctest::Contains("safetensors"), Error);
    const std::string other = io::read_text_file(fixture("families/llama_gqa") + "/config.json");
    Streamed o = stream_in(bytes, other, Precision::int8, 4096);
    CHECK_FALSE(o.narrowed);  // no llama role finds a tensor of this GPT-2 file
    CHECK_THROWS_WITH_AS(load(other, std::move(o.file), Precision::int8), doctest::Contains("does not match its config"),
                         Error);
    Streamed tiny = stream_in(std::vector<uint8_t>{1, 2, 3}, config, Precision::int8, 2);
    CHECK_THROWS_WITH_AS(load(config, std::move(tiny.file), Precision::int8), doctest::Contains("too short"), Error);
  }
}

TEST_CASE("weights stream: GPT-2 with its own lm_head.weight is narrowed; the tie is checked in wte's precision") {
  // lm_head.weight stays as the file stores it; wte is narrowed. The load compares them with
  // the head narrowed as wte was: equal for a tied head (the logits of a whole-file load at
  // that precision, bit for bit), refused for an untied one.
  const std::string dir = testing::checkpoint_dir("gpt2_tiny");
  const std::string config = io::read_text_file(dir + "/config.json");
  const io::SafeTensors st = io::SafeTensors::load(dir + "/model.safetensors");
  auto with_head = [&](float bump) {
    io::SafeTensorsWriter w;
    for (const io::TensorEntry& e : st.entries()) w.add_f32(e.name, e.shape, st.f32(e).data);
    const TensorView wte = st.f32("wte.weight");
    std::vector<float> head(wte.data, wte.data + wte.numel());
    head[17] += bump;
    w.add_f32("lm_head.weight", wte.shape, head.data());
    return w.finish();
  };
  const std::vector<uint8_t> tied = with_head(0), untied = with_head(0.5f);
  for (const Precision p : {Precision::f16, Precision::int8}) {
    CAPTURE(precision_name(p));
    Streamed s = stream_in(tied, config, p, 4096);
    CHECK(s.narrowed);
    CHECK(same_logits(load(config, std::move(s.file), p), load(config, tied, p)));
    Streamed u = stream_in(untied, config, p, 4096);
    CHECK_THROWS_WITH_AS(load(config, std::move(u.file), p), doctest::Contains("lm_head.weight differs from wte.weight"), Error);
  }
}
