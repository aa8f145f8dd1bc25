// GPT-2 byte-level BPE against the reference JS tokenizer, gpt-3-encoder.
//
// Oracle: gpt-3-encoder's encode() ids for every Brown corpus sentence plus hand-written
// hard cases (tests/fixtures/make_gpt2_tokenizer.mjs writes them, with the tokenizer.json
// built from gpt-3-encoder's own encoder.json + vocab.bpe). Tolerance: zero mismatches.
//
// Also checked on every string: decode(encode(text)) == text.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "tokenizer/tokenizer_json.h"
#include "tokenizer/unicode.h"

using namespace tfp;
using nlohmann::json;

namespace {

const std::string kGenerated = std::string(TFP_FIXTURES_DIR) + "/tokenizer/generated/";

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "missing ", path,
                  " — generate it with `node tests/fixtures/make_gpt2_tokenizer.mjs` (tools/test.sh does)");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const Tokenizer& gpt2() {
  static const Tokenizer tok = load_tokenizer_file(kGenerated + "gpt2_tokenizer.json");
  return tok;
}

std::string ids_str(const std::vector<int32_t>& ids) {
  std::string s;
  for (int32_t id : ids) s += std::to_string(id) + " ";
  return s;
}

}  // namespace

TEST_CASE("tokenizer gpt2: golden ids from gpt-3-encoder, zero mismatches") {
  const std::string golden_text = read_text(kGenerated + "gpt2_golden.json");
  const json golden = json::parse(golden_text, nullptr, false);
  REQUIRE(golden.is_array());
  REQUIRE(golden.size() > 5000);
  const Tokenizer& tok = gpt2();
  size_t mismatches = 0, decode_errors = 0, total_ids = 0;
  for (const json& item : golden) {
    const std::string text = item["text"].get<std::string>();
    const std::vector<int32_t> expected = item["ids"].get<std::vector<int32_t>>();
    const std::vector<int32_t> got = tok.encode(text).ids;
    total_ids += expected.size();
    if (got != expected && ++mismatches <= 5)
      MESSAGE("mismatch on \"", text, "\": got ", ids_str(got), " want ", ids_str(expected));
    if (tok.decode(got) != text && ++decode_errors <= 5) MESSAGE("decode differs on \"", text, "\"");
  }
  MESSAGE(golden.size(), " strings, ", total_ids, " ids compared");
  CHECK(mismatches == 0);
  CHECK(decode_errors == 0);
}

TEST_CASE("tokenizer gpt2: tokens, byte offsets and UTF-16 offsets") {
  const Tokenizer& tok = gpt2();
  // "Hello world": "Hello" + "Ġworld" (the space belongs to the following word).
  Encoding e = tok.encode("Hello world");
  CHECK(e.ids == std::vector<int32_t>{15496, 995});
  CHECK(e.tokens == std::vector<std::string>{"Hello", "\xC4\xA0world"});
  CHECK(e.offsets == std::vector<Offset>{{0, 5}, {5, 11}});

  // "é😀x": é is 2 bytes / 1 UTF-16 unit, 😀 is 4 bytes / 2 UTF-16 units (a surrogate
  // pair). Every token's byte span must cover whole characters, and tokens that split
  // the emoji's 4 bytes all report the emoji's span.
  e = tok.encode("\xC3\xA9\xF0\x9F\x98\x80x");
  REQUIRE(e.size() >= 3);
  for (size_t i = 0; i < e.size(); ++i) {
    const Offset b = e.offsets[i], u = e.offsets_utf16[i];
    const bool is_e = b == Offset{0, 2}, is_emoji = b == Offset{2, 6}, is_x = b == Offset{6, 7};
    CHECK((is_e || is_emoji || is_x));
    if (is_e) CHECK(u == Offset{0, 1});
    if (is_emoji) CHECK(u == Offset{1, 3});
    if (is_x) CHECK(u == Offset{3, 4});
  }
  CHECK(e.offsets.back() == Offset{6, 7});

  // The special token is matched before pre-tokenisation and has its own id.
  e = tok.encode("a<|endoftext|>b");
  CHECK(e.ids == std::vector<int32_t>{64, 50256, 65});
  CHECK(e.offsets == std::vector<Offset>{{0, 1}, {1, 14}, {14, 15}});
  CHECK(tok.special_ids().eos == 50256);
  CHECK(tok.decode(e.ids) == "ab");
  CHECK(tok.decode(e.ids, /*skip_special_tokens=*/false) == "a<|endoftext|>b");
  CHECK(tok.vocab_size() == 50257);
  CHECK(tok.id_to_token(995) == "\xC4\xA0world");
  CHECK(tok.token_to_id("Hello") == 15496);
}

TEST_CASE("tokenizer gpt2: decode replaces broken UTF-8 with U+FFFD, as TextDecoder does") {
  const Tokenizer& tok = gpt2();
  // 😀 = F0 9F 98 80. Its byte tokens alone: the first three bytes are a truncated
  // sequence -> one U+FFFD (maximal subpart), the lone continuation byte -> another.
  const std::vector<int32_t> full = tok.encode("\xF0\x9F\x98\x80").ids;
  CHECK(tok.decode(full) == "\xF0\x9F\x98\x80");
  const int32_t b_f0 = *tok.token_to_id("\xC3\xB0");  // byte F0 stands for itself: 'ð'
  const int32_t b_80 = *tok.token_to_id("\xC4\xA2");  // byte 80 is moved to U+0122 'Ģ'
  CHECK(tok.decode({b_f0}) == "\xEF\xBF\xBD");
  CHECK(tok.decode({b_f0, b_80}) == "\xEF\xBF\xBD\xEF\xBF\xBD");  // F0 80: bad second byte
  CHECK(tok.decode({b_80, 64}) == "\xEF\xBF\xBD" "a");
}

TEST_CASE("tokenizer gpt2: unicode classes agree with the JS regex engine") {
  // Oracle: the ranges this Node's regex engine gives \p{L}, \p{N} and \s. Our classes
  // are Unicode 16.0 (Oniguruma's, for HF) and Node's ICU may be newer: a difference is
  // allowed only for a code point unassigned in our version (category Cn) that the newer
  // version made a letter or number. \s must match exactly (ECMAScript fixes it).
  const json js = json::parse(read_text(kGenerated + "js_unicode_classes.json"), nullptr, false);
  REQUIRE(js.is_object());
  // Flatten JS ranges into bitmaps once (a linear scan per code point would be slow).
  auto bitmap = [&](const json& ranges) {
    std::vector<bool> bits(0x110000, false);
    for (const json& r : ranges)
      for (uint32_t c = r[0].get<uint32_t>(); c <= r[1].get<uint32_t>(); ++c) bits[c] = true;
    return bits;
  };
  const std::vector<bool> L = bitmap(js["letter"]), N = bitmap(js["number"]), S = bitmap(js["space"]);
  size_t newer = 0, bad = 0;
  for (char32_t cp = 0; cp < 0x110000; ++cp) {
    if (cp >= 0xD800 && cp < 0xE000) continue;
    if (unicode::is_js_space(cp) != S[cp]) {
      ++bad;
      MESSAGE("\\s differs at ", unicode::cp_label(cp));
    }
    const bool dl = unicode::is_letter(cp) != L[cp], dn = unicode::is_number(cp) != N[cp];
    if (!dl && !dn) continue;
    const bool explained = unicode::general_category(cp) == "Cn";  // assigned after our classes' version
    if (explained) {
      ++newer;
    } else if (++bad <= 10) {
      MESSAGE("class differs at ", unicode::cp_label(cp));
    }
  }
  MESSAGE("ours: Unicode ", std::string(unicode::unicode_version()), ", Node: Unicode ", js["unicode"].get<std::string>(), "; ",
          newer, " code points are letters/numbers only in the newer version");
  CHECK(bad == 0);
}
