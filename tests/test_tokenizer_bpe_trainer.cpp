// The BPE trainer, the char tokenizer and tokenizer.json errors.
//
// Oracles: merges derived by hand from word-pair counts (Sennrich et al.'s
// low/lower/newest/widest example); round trips decode(encode(x)) == x; exact equality
// of the JSON written twice (determinism); error messages that name what is wrong.
#include <doctest/doctest.h>

#include "core/error.h"
#include "tokenizer/bpe.h"
#include "tokenizer/bpe_trainer.h"
#include "tokenizer/char_model.h"
#include "tokenizer/tokenizer_json.h"

using namespace tfp;

namespace {
const std::vector<std::string> kCorpus = {
    "low low low low low lower lower newest newest newest newest newest newest widest widest widest"};
}

TEST_CASE("tokenizer bpe trainer: merges derived by hand") {
  // Words after GPT-2 pre-tokenisation (Ġ = space): low x1, Ġlow x4, Ġlower x2,
  // Ġnewest x6, Ġwidest x3. Pair counts: (e,s) 6+3=9, (s,t) 9, (w,e) 2+6=8,
  // (l,o) 1+4+2=7, (o,w) 7, (Ġ,l) 6, (Ġ,n) 6, (n,e) 6, (e,w) 6, ...
  //   merge 0: (e,s) 9 — ties with (s,t) 9; "e" sorts before "s".
  //   merge 1: (es,t) 9 — (s,t) is gone, (es,t) took its 6+3.
  //   merge 2: (l,o) 7 — ties with (o,w) 7; "l" < "o". ((w,e) fell to 2: newest is now
  //            n-e-w-est.)
  //   merge 3: (lo,w) 7.
  // vocab_size = 1 special + 256 bytes + 4 merges stops exactly there.
  BpeTrainerOptions opt;
  opt.vocab_size = 1 + 256 + 4;
  const Tokenizer tok = train_bpe(kCorpus, opt);
  const auto& merges = dynamic_cast<const BpeModel&>(tok.model()).merges();
  REQUIRE(merges.size() == 4);
  CHECK(merges[0] == BpeModel::Merge{"e", "s"});
  CHECK(merges[1] == BpeModel::Merge{"es", "t"});
  CHECK(merges[2] == BpeModel::Merge{"l", "o"});
  CHECK(merges[3] == BpeModel::Merge{"lo", "w"});
  CHECK(tok.vocab_size() == 261);
  CHECK(*tok.token_to_id("<|endoftext|>") == 0);
  CHECK(*tok.token_to_id("est") == 258);

  // The merges are applied when encoding: " lowest" -> Ġ, low, est.
  const Encoding e = tok.encode(" lowest");
  CHECK(e.tokens == std::vector<std::string>{"\xC4\xA0", "low", "est"});
  CHECK(e.offsets == std::vector<Offset>{{0, 1}, {1, 4}, {4, 7}});
}

TEST_CASE("tokenizer bpe trainer: deterministic, round trip, save and load") {
  const std::vector<std::string> texts = {
      "The quick brown fox jumps over the lazy dog. The dog sleeps; the fox runs!",
      "Numbers 1234 and 5678, accents café naïve, CJK 你好世界, emoji 😀👍.",
      "the the the then there these those they them their theirs thee",
  };
  BpeTrainerOptions opt;
  opt.vocab_size = 330;
  opt.min_frequency = 2;
  const Tokenizer a = train_bpe(texts, opt);
  const Tokenizer b = train_bpe(texts, opt);
  const std::string ja = to_tokenizer_json(a);
  CHECK(ja == to_tokenizer_json(b));

  const auto& merges = dynamic_cast<const BpeModel&>(a.model()).merges();
  CHECK(merges.size() > 10);
  CHECK(merges.size() <= 330 - 257);

  const Tokenizer loaded = load_tokenizer_json(ja, "trained");
  for (const std::string& t : texts) {
    const Encoding e = loaded.encode(t);
    CHECK(e.ids == a.encode(t).ids);
    CHECK(loaded.decode(e.ids) == t);
    CHECK(e.size() < t.size());  // merges shorten the byte sequence
  }
  // Text the trainer never saw still round-trips (bytes are always in the vocab).
  const std::string unseen = "Zebras \xF0\x9F\xA6\x93 x\ty\n<|endoftext|>";
  CHECK(loaded.decode(loaded.encode(unseen).ids, false) == unseen);

  // min_frequency: with a threshold above every pair count nothing is merged.
  opt.min_frequency = 1000;
  CHECK(dynamic_cast<const BpeModel&>(train_bpe(texts, opt).model()).merges().empty());
  opt.vocab_size = 10;
  CHECK_THROWS_WITH_AS(train_bpe(texts, opt), doctest::Contains("smaller than the 1 special tokens + 256"), Error);
  CHECK_THROWS_WITH_AS(train_bpe({"ok", "bad \xFF"}, BpeTrainerOptions{}),
                       doctest::Contains("text 1: utf8: invalid UTF-8 at byte offset 4"), Error);
}

TEST_CASE("tokenizer char: one token per code point, saved and loaded") {
  // Vocab: <pad>=0, <unk>=1, then the distinct code points of the text in code point
  // order: ' '=2, '+'=3, '1'=4, '2'=5, 'é'=6.
  auto model = std::make_unique<CharModel>(CharModel::from_text("1+2 é", {"<pad>"}, "<unk>"));
  PipelineConfig cfg;
  cfg.decoder = DecoderKind::Fuse;
  const Tokenizer tok(std::move(model), cfg, {{0, "<pad>", true}, {1, "<unk>", true}});
  Encoding e = tok.encode("21 é+x");
  CHECK(e.ids == std::vector<int32_t>{5, 4, 2, 6, 3, 1});  // 'x' is unknown -> <unk>
  CHECK(e.offsets == std::vector<Offset>{{0, 1}, {1, 2}, {2, 3}, {3, 5}, {5, 6}, {6, 7}});
  CHECK(tok.decode({5, 3, 4}) == "2+1");

  const Tokenizer again = load_tokenizer_json(to_tokenizer_json(tok));
  CHECK(again.encode("21 é+x").ids == e.ids);
  CHECK(again.decode({6, 6}) == "éé");
  CHECK(again.special_ids().pad == 0);
  CHECK(again.special_ids().unk == 1);
}

TEST_CASE("tokenizer json: malformed files and unsupported types give clear errors") {
  using doctest::Contains;
  CHECK_THROWS_WITH_AS(load_tokenizer_json("{\"model\": ", "t.json"), Contains("t.json: malformed JSON"), Error);
  CHECK_THROWS_WITH_AS(load_tokenizer_json("{\"model\": ", "t.json"), Contains("(10 bytes) at line 1, column 11:"), Error);
  CHECK_THROWS_WITH_AS(load_tokenizer_json("[1, 2]"), Contains("top level is not a JSON object"), Error);
  CHECK_THROWS_WITH_AS(load_tokenizer_json("{}"), Contains("lacks \"model\""), Error);
  CHECK_THROWS_WITH_AS(load_tokenizer_json(R"({"model": {"type": "WordLevelX", "vocab": {}}})"),
                       Contains("unsupported model type \"WordLevelX\""), Error);
  CHECK_THROWS_WITH_AS(
      load_tokenizer_json(R"({"normalizer": {"type": "Nmt"}, "model": {"type": "Char", "vocab": {}}})"),
      Contains("unsupported normalizer type \"Nmt\""), Error);
  CHECK_THROWS_WITH_AS(
      load_tokenizer_json(R"({"pre_tokenizer": {"type": "UnicodeScripts"}, "model": {"type": "Char", "vocab": {}}})"),
      Contains("unsupported pre_tokenizer type \"UnicodeScripts\""), Error);
  CHECK_THROWS_WITH_AS(load_tokenizer_json(R"({"decoder": {"type": "CTC"}, "model": {"type": "Char", "vocab": {}}})"),
                       Contains("unsupported decoder type \"CTC\""), Error);
  CHECK_THROWS_WITH_AS(load_tokenizer_json(R"({"model": {"type": "Char", "vocab": {"a": "zero"}}})"),
                       Contains("model.vocab[\"a\"] is \"zero\", not a token id (an integer)"), Error);
  CHECK_THROWS_WITH_AS(load_tokenizer_json(R"({"model": {"type": "WordPiece", "vocab": {"a": 0}, "unk_token": "[UNK]"}})"),
                       Contains("unk_token \"[UNK]\" is not in the vocab"), Error);
  // BPE: a merge whose tokens are not in the vocab.
  CHECK_THROWS_WITH_AS(load_tokenizer_json(R"({"pre_tokenizer": {"type": "ByteLevel"},
      "model": {"type": "BPE", "vocab": {"a": 0}, "merges": ["a b"]}})"),
                       Contains("bpe: merge 0 (\"a\", \"b\") uses or makes a token that is not in the vocab"), Error);

  // Invalid UTF-8 input to a valid tokenizer names the byte offset.
  const Tokenizer tok = load_tokenizer_json(R"({"model": {"type": "Char", "vocab": {"a": 0}, "unk_token": "a"}})");
  CHECK_THROWS_WITH_AS(tok.encode("aa\xC3"), Contains("invalid UTF-8 at byte offset 2"), Error);
  // The tokenizer stays usable after the error.
  CHECK(tok.encode("aa").ids == std::vector<int32_t>{0, 0});
}
