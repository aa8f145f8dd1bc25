// The number-words task (src/train/seq_numbers.*) and its alignment reader (seq_align.*).
// Oracles: the written-out English of hand-picked numbers; the round trip
// words_to_number(number_to_words(v, style)) == v on random values and styles (the parser
// is an independent left-to-right reader, not the inverse of the writer's code path);
// hand-derived gold alignments.
#include <doctest/doctest.h>

#include <set>

#include "core/error.h"
#include "tokenizer/tokenizer_json.h"
#include "train/seq_align.h"
#include "train/seq_numbers.h"

using namespace tfp;
using namespace tfp::train;

TEST_CASE("seq numbers: words for hand-picked values and styles") {
  NumberStyle st;  // and after hundred, hyphens, lower case
  CHECK(number_to_words(0, st) == "zero");
  CHECK(number_to_words(7, st) == "seven");
  CHECK(number_to_words(15, st) == "fifteen");
  CHECK(number_to_words(40, st) == "forty");
  CHECK(number_to_words(342005, st) == "three hundred and forty-two thousand five");
  CHECK(number_to_words(100000, st) == "one hundred thousand");
  CHECK(number_to_words(999999, st) ==
        "nine hundred and ninety-nine thousand nine hundred and ninety-nine");
  st.and_hundred = false, st.hyphen = false, st.letter_case = LetterCase::Upper;
  CHECK(number_to_words(342005, st) == "THREE HUNDRED FORTY TWO THOUSAND FIVE");
  st = {};
  st.and_thousand = true, st.letter_case = LetterCase::Title;
  CHECK(number_to_words(9012, st) == "Nine Thousand And Twelve");
  CHECK(number_to_words(21, st) == "Twenty-One");
  st.letter_case = LetterCase::Capitalised;
  CHECK(number_to_words(2100, st) == "Two thousand one hundred");  // "and" only before a part < 100
  CHECK_THROWS_AS(number_to_words(1000000, st), Error);
  CHECK_THROWS_AS(number_to_words(-1, st), Error);
  // The longest source the task declares.
  CHECK(number_to_words(777777, {}).size() == size_t{NumbersTask::kMaxSource});
}

TEST_CASE("seq numbers: round trip words -> value on random values and styles") {
  Rng rng(2024);
  for (int i = 0; i < 5000; ++i) {
    const int64_t v = static_cast<int64_t>(rng.below(uint64_t{1000000}));
    const NumberStyle st = random_style(rng);
    const std::string w = number_to_words(v, st);
    CAPTURE(w);
    CHECK(words_to_number(w) == v);
    CHECK(w.size() <= size_t{NumbersTask::kMaxSource});
  }
  CHECK_THROWS_AS(words_to_number("three bananas"), Error);
  CHECK_THROWS_AS(words_to_number("thousand"), Error);
  CHECK_THROWS_AS(words_to_number("five thousand six thousand"), Error);
  CHECK_THROWS_AS(words_to_number(""), Error);
}

TEST_CASE("seq numbers: held-out split is by value, deterministic, about 1/10, never below 100") {
  const NumbersTask task(1), other(2);
  int held = 0, differ = 0;
  for (int64_t v = 0; v < 100; ++v) CHECK_FALSE(task.is_held_out(v));
  for (int64_t v = 100; v < 100100; ++v) {
    held += task.is_held_out(v);
    differ += task.is_held_out(v) != other.is_held_out(v);
  }
  // 100,000 Bernoulli(0.1) draws: mean 10,000, sd ≈ 95; ±600 is > 6 sd.
  CHECK(held > 9400);
  CHECK(held < 10600);
  CHECK(differ > 10000);  // a different seed gives a different split
  Rng a(3), b(3);
  for (int i = 0; i < 300; ++i) {
    const NumberExample tr = task.sample(a, false), ho = task.sample(b, true);
    CHECK_FALSE(task.is_held_out(tr.value));
    CHECK(task.is_held_out(ho.value));
    CHECK(words_to_number(tr.source) == tr.value);
    CHECK(std::to_string(tr.value) == tr.target);
  }
  // The fixed evaluation set is the same every time.
  const auto s1 = task.held_out_set(20), s2 = task.held_out_set(20);
  for (size_t i = 0; i < s1.size(); ++i) CHECK(s1[i].source == s2[i].source);
}

TEST_CASE("seq numbers: batch encoding and the char tokenizer agree") {
  const Batch b = NumbersTask::encode({{42, "forty-two", "42"}, {5, "Five", "5"}});
  CHECK(b.B == 2);
  CHECK(b.S == 9);
  CHECK(b.T == 3);  // ">42" / "42."
  CHECK(b.tgt[0] == NumbersTask::kStart);
  CHECK(b.targets[2] == NumbersTask::kEnd);
  CHECK(b.targets[3 + 2] == -100);  // "5." then padding
  CHECK(b.src_pad[9 + 4] == 1);
  const Tokenizer tok = load_tokenizer_json(NumbersTask::tokenizer_json());
  CHECK(tok.vocab_size() == size_t(NumbersTask::vocab_size()));
  const std::vector<int32_t> ids = tok.encode("forty-two").ids;
  REQUIRE(ids.size() == 9);
  for (int i = 0; i < 9; ++i) CHECK(ids[static_cast<size_t>(i)] == b.src[static_cast<size_t>(i)]);
  CHECK(tok.decode(NumbersTask::encode_text("342005")) == "342005");
}

TEST_CASE("seq align: gold digit words and attended words") {
  // "three hundred and forty-two thousand five": words three(0) hundred(1) and(2) forty(3)
  // two(4) thousand(5) five(6); digits 3 4 2 0 0 5 ← three, forty, two, -, -, five.
  CHECK(gold_digit_words("three hundred and forty-two thousand five") == std::vector<int>{0, 3, 4, -1, -1, 6});
  // 12 ← "twelve" for both digits; 10 ← "ten" for both; 20: the 0 has no word; 0 ← "zero".
  CHECK(gold_digit_words("Twelve") == std::vector<int>{0, 0});
  CHECK(gold_digit_words("ten thousand") == std::vector<int>{0, 0, -1, -1, -1});
  CHECK(gold_digit_words("twenty") == std::vector<int>{0, -1});
  CHECK(gold_digit_words("zero") == std::vector<int>{0});
  // Attention rows: row 0 all on "forty" (characters 0..4), row 1 split 0.4 / 0.6.
  const std::string src = "forty two";
  std::vector<float> p(2 * 9, 0.0f);
  p[2] = 1.0f;
  p[9 + 0] = 0.4f, p[9 + 7] = 0.6f;
  const auto words = word_spans(src);
  REQUIRE(words.size() == 2);
  CHECK(attended_words(words, p.data(), 2, 9) == std::vector<int>{0, 1});
  AlignmentScore s;
  score_alignment(s, src, p.data(), 2, 9);
  CHECK(s.graded == 2);
  CHECK(s.correct == 2);
}
