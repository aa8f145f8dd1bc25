// WordPiece (BERT) on a hand-made tokenizer.json (fixtures/tokenizer/bert_tiny.json).
//
// Oracle: the published algorithm (BERT's tokenization.py / HF BertNormalizer,
// BertPreTokenizer, WordPiece), applied by hand; each expectation carries its derivation.
// Vocab ids used below:
//   0 [PAD] 1 [UNK] 2 [CLS] 3 [SEP] 4 [MASK] 5 un 6 ##aff 7 ##able 8 the 9 cafe 10 ,
//   11 . 12 ! 13 你 14 好 15 hello 16 ##s 17 a 18 ##b 19 ##a 20 $ 21 5 22 ##0
//   23 Hello 24 café 25 Cafe          max_input_chars_per_word = 10
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "tokenizer/tokenizer_json.h"

using namespace tfp;
using nlohmann::json;
using Ids = std::vector<int32_t>;

namespace {

std::string fixture_text() {
  std::ifstream in(std::string(TFP_FIXTURES_DIR) + "/tokenizer/bert_tiny.json", std::ios::binary);
  REQUIRE(in.good());
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The same tokenizer with other normaliser options (cased models, strip_accents).
Tokenizer with_normalizer(bool lowercase, json strip_accents) {
  json j = json::parse(fixture_text(), nullptr, false);
  j["normalizer"]["lowercase"] = lowercase;
  j["normalizer"]["strip_accents"] = strip_accents;
  return load_tokenizer_json(j.dump());
}

Ids ids(const Tokenizer& t, const char* text) { return t.encode(text, /*add_special_tokens=*/false).ids; }

}  // namespace

TEST_CASE("tokenizer wordpiece: uncased BERT pipeline, derived by hand") {
  const Tokenizer tok = load_tokenizer_json(fixture_text(), "bert_tiny.json");

  // "UnAffable!" -> lowercase "unaffable!" -> split at punctuation: "unaffable", "!".
  // Longest prefix of "unaffable" in vocab: "un"; of "affable" with ##: "##aff"; then
  // "##able". Post-processor: [CLS] ... [SEP].
  Encoding e = tok.encode("UnAffable!");
  CHECK(e.ids == Ids{2, 5, 6, 7, 12, 3});
  CHECK(e.tokens == std::vector<std::string>{"[CLS]", "un", "##aff", "##able", "!", "[SEP]"});
  CHECK(e.offsets == std::vector<Offset>{{0, 0}, {0, 2}, {2, 5}, {5, 9}, {9, 10}, {0, 0}});
  CHECK(e.special_mask == std::vector<uint8_t>{1, 0, 0, 0, 0, 1});
  CHECK(tok.decode(e.ids) == "unaffable!");  // "##" joins; cleanup turns " !" into "!"
  CHECK(tok.decode(e.ids, false) == "[CLS] unaffable! [SEP]");

  // Accents: strip_accents is null, so it follows lowercase=true. "Café" and "CAFÉ"
  // -> NFD -> drop U+0301 -> "cafe". Offsets stay on the original bytes: "Café" is
  // C a f é(2 bytes) = [0, 5); "CAFÉ" starts after ", the " at 11 and ends at 16.
  e = tok.encode("Café, the CAFÉ.", false);
  CHECK(e.ids == Ids{9, 10, 8, 9, 11});
  CHECK(e.offsets == std::vector<Offset>{{0, 5}, {5, 6}, {7, 10}, {11, 16}, {16, 17}});
  // A decomposed accent (e + U+0301) is the same word; the mark's bytes stay in the span.
  e = tok.encode("cafe\xCC\x81", false);
  CHECK(e.ids == Ids{9});
  CHECK(e.offsets == std::vector<Offset>{{0, 6}});

  // CJK: each ideograph gets spaces around it, so "你好!" is three words, each 3 bytes.
  // 們 is not in the vocab: that one-character word becomes [UNK]; 你 is unaffected.
  e = tok.encode("你好!", false);
  CHECK(e.ids == Ids{13, 14, 12});
  CHECK(e.offsets == std::vector<Offset>{{0, 3}, {3, 6}, {6, 7}});
  CHECK(e.offsets_utf16 == std::vector<Offset>{{0, 1}, {1, 2}, {2, 3}});
  CHECK(ids(tok, "你們") == Ids{13, 1});

  // Unknown words: "xyz" has no first piece -> [UNK]. "unx": "un" matches, then no
  // "##x..." does -> the WHOLE word is [UNK], never "un [UNK]".
  CHECK(ids(tok, "hello xyz") == Ids{15, 1});
  CHECK(ids(tok, "unx") == Ids{1});
  CHECK(ids(tok, "hellos") == Ids{15, 16});

  // max_input_chars_per_word = 10: "ababababab" (10 chars) -> a ##b ##a ##b ...;
  // "abababababa" (11 chars) -> [UNK] without trying.
  CHECK(ids(tok, "ababababab") == Ids{17, 18, 19, 18, 19, 18, 19, 18, 19, 18});
  CHECK(ids(tok, "abababababa") == Ids{1});

  // "$50": '$' is ASCII punctuation to BERT -> "$", "50" -> "5" "##0".
  CHECK(ids(tok, "$50") == Ids{20, 21, 22});

  // clean_text: NUL and U+200B (Cf) are removed, TAB is whitespace.
  CHECK(ids(tok, "hello\x01\tthe\xE2\x80\x8B") == Ids{15, 8});

  // Special tokens in the input are matched before normalisation (no lowercasing,
  // no punctuation split of "[", "]").
  e = tok.encode("the [MASK].", false);
  CHECK(e.ids == Ids{8, 4, 11});
  CHECK(e.offsets == std::vector<Offset>{{0, 3}, {4, 10}, {10, 11}});

  CHECK(tok.special_ids().cls == 2);
  CHECK(tok.special_ids().sep == 3);
  CHECK(tok.special_ids().pad == 0);
  CHECK(tok.special_ids().mask == 4);
  CHECK(tok.special_ids().unk == 1);
  CHECK(tok.vocab_size() == 26);
}

TEST_CASE("tokenizer wordpiece: lowercase and accent stripping switched separately") {
  // Cased (lowercase false, strip_accents null -> false): "Hello" and "café" are vocab
  // entries as written; "HELLO" is not, and no lowercase happens -> [UNK].
  const Tokenizer cased = with_normalizer(false, nullptr);
  CHECK(ids(cased, "Hello hello") == Ids{23, 15});
  CHECK(ids(cased, "café") == Ids{24});
  CHECK(ids(cased, "HELLO") == Ids{1});

  // strip_accents true, lowercase false: "Café" -> "Cafe" (id 25), case kept.
  const Tokenizer strip_only = with_normalizer(false, true);
  CHECK(ids(strip_only, "Café") == Ids{25});
  CHECK(ids(strip_only, "café") == Ids{9});

  // lowercase true, strip_accents false: "CAFÉ" -> "café" (id 24).
  const Tokenizer lower_only = with_normalizer(true, false);
  CHECK(ids(lower_only, "CAFÉ") == Ids{24});
}

TEST_CASE("tokenizer wordpiece: the writer round-trips the tokenizer") {
  const Tokenizer tok = load_tokenizer_json(fixture_text());
  const Tokenizer again = load_tokenizer_json(to_tokenizer_json(tok));
  for (const char* s : {"UnAffable!", "Café, the CAFÉ.", "你好! hello xyz", "the [MASK]."})
    CHECK(again.encode(s).ids == tok.encode(s).ids);
  CHECK(again.decode({2, 5, 6, 7, 3}) == "unaffable");
}
