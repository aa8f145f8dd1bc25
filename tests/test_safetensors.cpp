// safetensors reader/writer. Oracles: hand-written files whose bytes are derived in the
// comments (independent of our writer), round trips through the writer, and for every
// corrupt-file case the exact error text. Tolerances: F32 exact; F16/BF16 exact for values
// representable in them, else the format's rounding (stated per check).
#include <doctest/doctest.h>

#include <cstring>
#include <string>

#include "io/file.h"
#include "io/safetensors.h"

using namespace tfp;
using namespace tfp::io;

namespace {

// 8-byte little-endian length + header text + data bytes.
std::vector<uint8_t> make_file(const std::string& header, const std::vector<uint8_t>& data,
                               uint64_t declared_len = UINT64_MAX) {
  const uint64_t n = declared_len == UINT64_MAX ? header.size() : declared_len;
  std::vector<uint8_t> out;
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<uint8_t>((n >> (8 * i)) & 0xFF));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

std::vector<uint8_t> f32_bytes(std::initializer_list<float> xs) {
  std::vector<uint8_t> out(4 * xs.size());
  size_t i = 0;
  for (float x : xs) std::memcpy(out.data() + 4 * i++, &x, 4);
  return out;
}

std::string error_of(std::vector<uint8_t> bytes, const std::string& source = "t.safetensors") {
  try {
    SafeTensors::parse(std::move(bytes), source);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

// A good two-tensor file written by our writer, for the corruption cases to break.
std::vector<uint8_t> good_file() {
  SafeTensorsWriter w;
  const float a[6] = {1, 2, 3, 4, 5, 6};
  const float b[2] = {-1, 0.5f};
  w.add_f32("layer.weight", {2, 3}, a);
  w.add_f32("layer.bias", {2}, b);
  return w.finish();
}

}  // namespace

TEST_CASE("safetensors: hand-written file with F32, F16, BF16, I8, BOOL and metadata") {
  // Data layout (bytes): w F32 [2] at [0,8), h F16 [2] at [8,12), b BF16 [1] at [12,14),
  // q I8 [2] at [14,16), m BOOL [2] at [16,18).
  // F16 1.0 = 0x3C00, F16 -2.0 = 0xC000; BF16 1.5 = 0x3FC0 (f32 0x3FC00000 truncated).
  const std::string header =
      R"({"__metadata__":{"format":"pt","note":"ü"},)"
      R"("w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
      R"("h":{"dtype":"F16","shape":[2],"data_offsets":[8,12]},)"
      R"("b":{"dtype":"BF16","shape":[1],"data_offsets":[12,14]},)"
      R"("q":{"dtype":"I8","shape":[2],"data_offsets":[14,16]},)"
      R"("m":{"dtype":"BOOL","shape":[1,2],"data_offsets":[16,18]}})";
  std::string padded = header;
  while ((8 + padded.size()) % 8) padded += ' ';
  std::vector<uint8_t> data = f32_bytes({0.25f, -3.0f});
  for (uint8_t x : {0x00, 0x3C, 0x00, 0xC0, 0xC0, 0x3F, 0xFE, 0x05, 0x01, 0x00}) data.push_back(x);
  const SafeTensors st = SafeTensors::parse(make_file(padded, data), "hand.safetensors");

  CHECK(st.size() == 5);
  CHECK(st.metadata().at("format") == "pt");
  CHECK(st.metadata().at("note") == "ü");
  const TensorView w = st.f32("w");
  CHECK(w.shape == Shape{2});
  CHECK(w.data[0] == 0.25f);
  CHECK(w.data[1] == -3.0f);
  CHECK(st.f32_in_place("w"));  // 8 + header is a multiple of 8 → viewed, not copied
  CHECK(reinterpret_cast<const uint8_t*>(w.data) == st.buffer().data() + 8 + padded.size());
  const TensorView h = st.f32("h");
  CHECK(h.data[0] == 1.0f);
  CHECK(h.data[1] == -2.0f);
  CHECK_FALSE(st.f32_in_place("h"));
  CHECK(st.f32("b").data[0] == 1.5f);
  const auto q = st.bytes("q");
  REQUIRE(q.size() == 2);
  CHECK(static_cast<int8_t>(q[0]) == -2);
  CHECK(static_cast<int8_t>(q[1]) == 5);
  CHECK(st.entry("m").shape == Shape{1, 2});
  CHECK(st.bytes("m")[0] == 1);
  CHECK_THROWS_WITH_AS(st.f32("q"),
                       "safetensors 'hand.safetensors': tensor 'q' has dtype I8, which tfp cannot use "
                       "as floats (supported: F32, F16, BF16)",
                       Error);
  CHECK_THROWS_WITH_AS(st.f32("nope"), "safetensors 'hand.safetensors': no tensor named 'nope'", Error);
}

TEST_CASE("safetensors: unaligned F32 is copied, values intact") {
  // I8 [1] at [0,1) pushes the F32 tensor to an odd address: it must be copied, not viewed.
  std::string header = R"({"a":{"dtype":"I8","shape":[1],"data_offsets":[0,1]},)"
                       R"("x":{"dtype":"F32","shape":[2],"data_offsets":[1,9]}})";
  while ((8 + header.size()) % 8) header += ' ';
  std::vector<uint8_t> data{7};
  const auto fx = f32_bytes({3.5f, -1e30f});
  data.insert(data.end(), fx.begin(), fx.end());
  const SafeTensors st = SafeTensors::parse(make_file(header, data));
  CHECK_FALSE(st.f32_in_place("x"));
  CHECK(st.f32("x").data[0] == 3.5f);
  CHECK(st.f32("x").data[1] == -1e30f);
  CHECK(reinterpret_cast<uintptr_t>(st.f32("x").data) % alignof(float) == 0);
}

TEST_CASE("safetensors: writer round trip, alignment and F16/BF16 rounding") {
  SafeTensorsWriter w;
  const float x[5] = {1.0f, -0.333333f, 65504.0f, 1e-8f, 3.0f};
  w.add_f32("z.f32", {5}, x);
  w.add_f32("a.f16", {5}, x, DType::F16);
  w.add_f32("m.bf16", {5}, x, DType::BF16);
  const uint8_t mask[3] = {1, 0, 1};
  w.add_raw("mask", DType::BOOL, {3}, mask, 3);
  w.set_metadata("format", "pt");
  const std::vector<uint8_t> bytes = w.finish();
  CHECK((8 + (bytes[0] | bytes[1] << 8)) % 8 == 0);  // header padded to 8

  const SafeTensors st = SafeTensors::parse(bytes);
  CHECK(st.metadata().at("format") == "pt");
  // Largest element size first: the F32 tensor starts the data.
  CHECK(st.entries().front().name == "z.f32");
  CHECK(st.f32_in_place("z.f32"));
  for (int i = 0; i < 5; ++i) CHECK(st.f32("z.f32").data[i] == x[i]);
  // F16: 11-bit significand → relative error ≤ 2^-11; 1e-8 is below F16's smallest
  // subnormal (5.96e-8)/2 and rounds to 0; 65504 is F16's largest finite value.
  const TensorView h = st.f32("a.f16");
  CHECK(h.data[0] == 1.0f);
  CHECK(h.data[1] == doctest::Approx(-0.333333f).epsilon(1.0 / 2048));
  CHECK(h.data[2] == 65504.0f);
  CHECK(h.data[3] == 0.0f);
  // BF16: 8-bit significand → relative error ≤ 2^-8.
  const TensorView b = st.f32("m.bf16");
  CHECK(b.data[1] == doctest::Approx(-0.333333f).epsilon(1.0 / 256));
  CHECK(b.data[3] == doctest::Approx(1e-8f).epsilon(1.0 / 256));
  CHECK(st.bytes("mask")[2] == 1);

  // Moving the object keeps views valid (the buffers move, their storage does not).
  const float* before = st.f32("z.f32").data;
  SafeTensors moved = SafeTensors::parse(bytes);
  const float* p = moved.f32("z.f32").data;
  SafeTensors other = std::move(moved);
  CHECK(other.f32("z.f32").data == p);
  (void)before;

  SafeTensorsWriter dup;
  dup.add_f32("t", {1}, x);
  CHECK_THROWS_WITH_AS(dup.add_f32("t", {1}, x), "safetensors writer: tensor 't' added twice", Error);
}

TEST_CASE("safetensors: empty tensors and zero-tensor files are valid") {
  const SafeTensors none = SafeTensors::parse(make_file("{}      ", {}));
  CHECK(none.size() == 0);
  SafeTensorsWriter w;
  w.add_f32("empty", {0, 4}, nullptr);
  const float one = 2.0f;
  w.add_f32("one", {1}, &one);
  const SafeTensors st = SafeTensors::parse(w.finish());
  CHECK(st.f32("empty").numel() == 0);
  CHECK(st.f32("one").data[0] == 2.0f);
}

TEST_CASE("safetensors: every corrupt file gives a clear error naming file and tensor") {
  const std::vector<uint8_t> good = good_file();
  REQUIRE_NOTHROW(SafeTensors::parse(good));
  const uint64_t n = good[0] | (good[1] << 8);
  std::string header(good.begin() + 8, good.begin() + 8 + static_cast<long>(n));
  while (header.back() == ' ') header.pop_back();  // the writer's padding
  const std::vector<uint8_t> data(good.begin() + 8 + static_cast<long>(n), good.end());
  // Writer order: 'layer.bias' [0,8) then 'layer.weight' [8,32).
  REQUIRE(header.find(R"("layer.bias":{"data_offsets":[0,8])") != std::string::npos);

  auto with_header = [&](std::string h) {
    while ((8 + h.size()) % 8) h += ' ';
    return make_file(h, data);
  };
  auto replace = [&](const std::string& from, const std::string& to) {
    std::string h = header;
    const size_t at = h.find(from);
    REQUIRE(at != std::string::npos);
    h.replace(at, from.size(), to);
    return with_header(h);
  };

  SUBCASE("truncated: shorter than the length field") {
    CHECK(error_of({good.begin(), good.begin() + 5}) ==
          "safetensors 't.safetensors': file is 5 bytes, too short for the 8-byte header length (truncated?)");
  }
  SUBCASE("truncated: data cut short") {
    CHECK(error_of({good.begin(), good.end() - 1}) ==
          "safetensors 't.safetensors': tensor 'layer.weight': data_offsets [8, 32] run past the end of "
          "the data (31 bytes; truncated file?)");
  }
  SUBCASE("header length past the end") {
    std::vector<uint8_t> bad = good;
    bad[7] = 0x40;  // 2^62 + n
    CHECK(error_of(bad) == "safetensors 't.safetensors': header length " + std::to_string((1ull << 62) + n) +
                               " runs past the end of the file (" + std::to_string(good.size()) +
                               " bytes; truncated or not a safetensors file?)");
  }
  SUBCASE("non-UTF-8 header") {
    std::vector<uint8_t> bad = good;
    bad[8 + header.find("bias")] = 0xFF;
    CHECK(error_of(bad) ==
          "safetensors 't.safetensors': header is not valid UTF-8 (byte " +
              std::to_string(header.find("bias")) + " of the header)");
    bad[8 + header.find("bias")] = 0xC0;  // overlong lead byte
    CHECK(error_of(bad).find("not valid UTF-8") != std::string::npos);
  }
  SUBCASE("malformed JSON") {
    CHECK(error_of(replace("]}", "]")) == "safetensors 't.safetensors': header is not valid JSON");
    CHECK(error_of(with_header("[1,2]")) == "safetensors 't.safetensors': header is JSON but not an object");
  }
  SUBCASE("overlapping offsets") {
    // bias [0,8) and weight [4,28) overlap; 4 trailing bytes would also be wrong but the
    // overlap is found first.
    CHECK(error_of(replace("[8,32]", "[4,28]")) ==
          "safetensors 't.safetensors': tensors 'layer.bias' (bytes [0, 8]) and 'layer.weight' "
          "(bytes [4, 28]) overlap");
  }
  SUBCASE("gap and trailing bytes") {
    // bias shrunk to [1] at [0,4): bytes [4,8) are a hole before 'layer.weight'.
    CHECK(error_of(replace(R"([0,8],"dtype":"F32","shape":[2])", R"([0,4],"dtype":"F32","shape":[1])")) ==
          "safetensors 't.safetensors': bytes [4, 8) of the data belong to no tensor (before 'layer.weight')");
    std::vector<uint8_t> trailing = good;
    trailing.push_back(0);
    CHECK(error_of(trailing) ==
          "safetensors 't.safetensors': 1 trailing bytes after the last tensor belong to no tensor");
  }
  SUBCASE("offsets not matching shape × dtype") {
    CHECK(error_of(replace(R"("shape":[2,3])", R"("shape":[3,3])")) ==
          "safetensors 't.safetensors': tensor 'layer.weight': shape [3, 3] of F32 needs 36 bytes but "
          "data_offsets [8, 32] hold 24");
    CHECK(error_of(replace("[0,8]", "[8,0]")) ==
          "safetensors 't.safetensors': tensor 'layer.bias': data_offsets [8, 0] end before they begin");
  }
  SUBCASE("huge declared shapes do not overflow") {
    // 2^32 · 2^32 · 2^32 wraps to 0 in 64-bit arithmetic; 2^62 · 4 bytes wraps to 0 too.
    CHECK(error_of(replace(R"("shape":[2,3])", R"("shape":[4294967296,4294967296,4294967296])")) ==
          "safetensors 't.safetensors': tensor 'layer.weight': shape [4294967296, 4294967296, 4294967296] "
          "is too large (element count overflows)");
    CHECK(error_of(replace(R"("shape":[2,3])", R"("shape":[4611686018427387904])"))
              .find("is too large (element count overflows)") != std::string::npos);
    CHECK(error_of(replace(R"("shape":[2,3])", R"("shape":[18446744073709551615])"))
              .find("is too large") != std::string::npos);
    CHECK(error_of(replace(R"("shape":[2,3])", R"("shape":[2,-3])")) ==
          "safetensors 't.safetensors': tensor 'layer.weight': \"shape\" is not a list of non-negative integers");
  }
  SUBCASE("duplicate names") {
    std::string h = header;
    h.insert(h.size() - 1, R"(,"layer.bias":{"dtype":"F32","shape":[2],"data_offsets":[0,8]})");
    CHECK(error_of(with_header(h)) ==
          "safetensors 't.safetensors': tensor 'layer.bias' is declared twice in the header");
  }
  SUBCASE("unknown and unsupported dtypes") {
    CHECK(error_of(replace(R"("dtype":"F32","shape":[2])", R"("dtype":"Q7","shape":[2])")) ==
          "safetensors 't.safetensors': tensor 'layer.bias': unknown dtype 'Q7'");
    // F64 [1] and I64 [1] are 8 bytes like F32 [2]: valid files, unsupported as floats.
    const SafeTensors f64 =
        SafeTensors::parse(replace(R"("dtype":"F32","shape":[2])", R"("dtype":"F64","shape":[1])"), "x");
    CHECK_THROWS_WITH_AS(f64.f32("layer.bias"),
                         "safetensors 'x': tensor 'layer.bias' has dtype F64, which tfp cannot use as "
                         "floats (supported: F32, F16, BF16)",
                         Error);
    const SafeTensors i64 =
        SafeTensors::parse(replace(R"("dtype":"F32","shape":[2])", R"("dtype":"I64","shape":[1])"), "x");
    CHECK(i64.entry("layer.bias").dtype == DType::I64);
  }
  SUBCASE("missing fields and bad metadata") {
    CHECK(error_of(replace(R"("dtype":"F32","shape":[2])", R"("shape":[2])")) ==
          "safetensors 't.safetensors': tensor 'layer.bias': missing or non-string \"dtype\"");
    CHECK(error_of(replace("[0,8]", "[0]")) ==
          "safetensors 't.safetensors': tensor 'layer.bias': \"data_offsets\" is not [begin, end] of "
          "non-negative integers");
    std::string h = header;
    h.insert(1, R"("__metadata__":{"epoch":3},)");
    CHECK(error_of(with_header(h)) ==
          "safetensors 't.safetensors': __metadata__ value for 'epoch' is not a string");
  }
}

TEST_CASE("safetensors: files on disk") {
  const std::string path = "/tmp/tfp_io_test_safetensors.safetensors";
  SafeTensorsWriter w;
  const float v[3] = {1, 2, 3};
  w.add_f32("v", {3}, v);
  w.write(path);
  const SafeTensors st = SafeTensors::load(path);
  CHECK(st.source() == path);
  CHECK(st.f32("v").data[2] == 3.0f);
  CHECK_THROWS_WITH_AS(SafeTensors::load("/nonexistent/x.safetensors"),
                       "read_file: cannot open '/nonexistent/x.safetensors' (no such file)", Error);
  CHECK_THROWS_WITH_AS(SafeTensors::load(TFP_FIXTURES_DIR),
                       (std::string("read_file: '") + TFP_FIXTURES_DIR + "' is a directory, expected a file").c_str(),
                       Error);
}
