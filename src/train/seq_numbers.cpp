// See seq_numbers.h.
#include "train/seq_numbers.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "core/error.h"

namespace tfp::train {

namespace {

const char* const kOnes[20] = {"zero",    "one",     "two",       "three",    "four",
                               "five",    "six",     "seven",     "eight",    "nine",
                               "ten",     "eleven",  "twelve",    "thirteen", "fourteen",
                               "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"};
const char* const kTens[10] = {"",      "",      "twenty",  "thirty", "forty",
                               "fifty", "sixty", "seventy", "eighty", "ninety"};

// 1..99: "seven", "forty-two" / "forty two".
std::string below_hundred(int n, bool hyphen) {
  if (n < 20) return kOnes[n];
  std::string s = kTens[n / 10];
  if (n % 10) s += (hyphen ? "-" : " ") + std::string(kOnes[n % 10]);
  return s;
}

// 1..999: "three hundred and forty-two".
std::string below_thousand(int n, const NumberStyle& st) {
  std::string s;
  if (n >= 100) {
    s = std::string(kOnes[n / 100]) + " hundred";
    if (n % 100) s += st.and_hundred ? " and " : " ";
  }
  if (n % 100) s += below_hundred(n % 100, st.hyphen);
  return s;
}

char upper(char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c; }
char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

std::string apply_case(std::string s, LetterCase lc) {
  switch (lc) {
    case LetterCase::Lower: break;
    case LetterCase::Upper:
      for (char& c : s) c = upper(c);
      break;
    case LetterCase::Capitalised:
      if (!s.empty()) s[0] = upper(s[0]);
      break;
    case LetterCase::Title:  // every word, including the part after a hyphen ("Forty-Two")
      for (size_t i = 0; i < s.size(); ++i)
        if (i == 0 || s[i - 1] == ' ' || s[i - 1] == '-') s[i] = upper(s[i]);
      break;
  }
  return s;
}

// A stable 64-bit hash of (value, seed): SplitMix64's scrambler over their mix.
uint64_t hash_value(int64_t value, uint64_t seed) {
  Rng mix(static_cast<uint64_t>(value) * 0x9E3779B97F4A7C15ull ^ seed);
  return mix.next_u64();
}

}  // namespace

std::string number_to_words(int64_t value, const NumberStyle& st) {
  TFP_CHECK(value >= 0 && value <= NumbersTask::kMaxValue, "number_to_words: ", value,
            " is outside 0..999999");
  std::string s;
  if (value == 0) {
    s = "zero";
  } else {
    const int thousands = static_cast<int>(value / 1000), rest = static_cast<int>(value % 1000);
    if (thousands) {
      s = below_thousand(thousands, st) + " thousand";
      if (rest) s += st.and_thousand && rest < 100 ? " and " : " ";
    }
    if (rest) s += below_thousand(rest, st);
  }
  return apply_case(s, st.letter_case);
}

int64_t words_to_number(const std::string& words) {
  // Split on spaces and hyphens, lower-cased; "and" is filler. Reading left to right:
  // a units/teens/tens word adds to the current group, "hundred" multiplies the group by
  // 100, "thousand" moves the group into the thousands.
  std::vector<std::string> parts(1);
  for (char c : words) {
    if (c == ' ' || c == '-') {
      if (!parts.back().empty()) parts.emplace_back();
    } else {
      parts.back() += lower(c);
    }
  }
  if (parts.back().empty()) parts.pop_back();
  TFP_CHECK(!parts.empty(), "words_to_number: no words in \"", words, "\"");
  int64_t total = 0, group = 0;
  bool seen_thousand = false, any = false;
  for (const std::string& w : parts) {
    if (w == "and") continue;
    int n = -1;
    for (int i = 0; i < 20 && n < 0; ++i)
      if (w == kOnes[i]) n = i;
    for (int i = 2; i < 10 && n < 0; ++i)
      if (w == kTens[i]) n = 10 * i;
    if (n >= 0) {
      group += n;
      any = true;
    } else if (w == "hundred") {
      TFP_CHECK(group >= 1 && group <= 9, "words_to_number: \"hundred\" after ", group, " in \"", words, "\"");
      group *= 100;
    } else if (w == "thousand") {
      TFP_CHECK(!seen_thousand && group >= 1 && group <= 999, "words_to_number: misplaced \"thousand\" in \"",
                words, "\"");
      total = group * 1000;
      group = 0;
      seen_thousand = true;
    } else {
      TFP_FAIL("words_to_number: unknown word \"", w, "\" in \"", words, "\"");
    }
  }
  TFP_CHECK(any, "words_to_number: no number word in \"", words, "\"");
  return total + group;
}

const std::string& NumbersTask::vocab() {
  static const std::string v =
      "_.> -abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  return v;
}

int NumbersTask::token(char c) {
  const size_t i = vocab().find(c);
  TFP_CHECK(i != std::string::npos, "numbers task: character '", c, "' is not in the vocabulary");
  return static_cast<int>(i);
}

char NumbersTask::character(int id) {
  TFP_CHECK(id >= 0 && id < vocab_size(), "numbers task: token id ", id, " outside the vocabulary of ",
            vocab_size());
  return vocab()[static_cast<size_t>(id)];
}

bool NumbersTask::is_held_out(int64_t value) const {
  if (value < 100) return false;
  return hash_value(value, seed_) % 10 == 0;
}

NumberStyle random_style(Rng& rng) {
  NumberStyle st;
  st.and_hundred = rng.below(2) == 1;
  st.and_thousand = rng.below(4) == 0;
  st.hyphen = rng.below(4) != 0;
  // Mostly lower case; the other cases teach the model that 'T' and 't' mean the same.
  const int c = rng.below(8);
  st.letter_case = c < 4 ? LetterCase::Lower
                   : c < 6 ? LetterCase::Capitalised
                   : c < 7 ? LetterCase::Title : LetterCase::Upper;
  return st;
}

NumberExample NumbersTask::sample(Rng& rng, bool held_out) const {
  static const int64_t lo[7] = {0, 0, 10, 100, 1000, 10000, 100000};
  for (;;) {
    const int digits = 1 + rng.below(6);
    const int64_t span = (digits == 6 ? 1000000 : lo[digits + 1]) - lo[digits];
    const int64_t v = lo[digits] + static_cast<int64_t>(rng.below(static_cast<uint64_t>(span)));
    if (is_held_out(v) != held_out) continue;
    const NumberStyle st = random_style(rng);
    return {v, number_to_words(v, st), std::to_string(v)};
  }
}

std::vector<NumberExample> NumbersTask::held_out_set(int n) const {
  Rng rng = Rng::stream(seed_, /*label "held-out numbers"*/ 3);
  std::vector<NumberExample> out;
  for (int i = 0; i < n; ++i) out.push_back(sample(rng, true));
  return out;
}

std::vector<int> NumbersTask::encode_text(const std::string& text) {
  std::vector<int> ids;
  for (char c : text) ids.push_back(token(c));
  return ids;
}

Batch NumbersTask::encode(const std::vector<NumberExample>& examples) {
  TFP_CHECK(!examples.empty(), "numbers task: empty batch");
  Batch b;
  b.B = static_cast<int>(examples.size());
  for (const NumberExample& e : examples) {
    TFP_CHECK(!e.source.empty() && e.source.size() <= size_t{kMaxSource}, "numbers task: source of ",
              e.source.size(), " characters (1..", kMaxSource, ")");
    TFP_CHECK(!e.target.empty() && e.target.size() <= size_t{kMaxTarget}, "numbers task: target \"",
              e.target, "\" must have 1..", kMaxTarget, " digits");
    b.S = std::max(b.S, static_cast<int>(e.source.size()));
    b.T = std::max(b.T, static_cast<int>(e.target.size()) + 1);
  }
  const int ignore = -100;
  for (const NumberExample& e : examples) {
    for (int s = 0; s < b.S; ++s) {
      const bool real = s < static_cast<int>(e.source.size());
      b.src.push_back(real ? token(e.source[s]) : kPad);
      b.src_pad.push_back(real ? 0 : 1);
    }
    const std::string in = ">" + e.target, out = e.target + ".";
    for (int t = 0; t < b.T; ++t) {
      const bool real = t < static_cast<int>(in.size());
      b.tgt.push_back(real ? token(in[t]) : kPad);
      b.targets.push_back(real ? token(out[t]) : ignore);
    }
  }
  return b;
}

std::string NumbersTask::tokenizer_json() {
  // Our Char tokenizer (tokenizer/char_model.h); the Fuse decoder joins tokens without
  // spaces, so decoding the ids of "3", "4", "2" gives "342".
  nlohmann::json vocab_j = nlohmann::json::object();
  for (int i = 0; i < vocab_size(); ++i) vocab_j[std::string(1, character(i))] = i;
  nlohmann::json j = {{"version", "1.0"},
                      {"added_tokens", nlohmann::json::array()},
                      {"normalizer", nullptr},
                      {"pre_tokenizer", nullptr},
                      {"post_processor", nullptr},
                      {"decoder", {{"type", "Fuse"}}},
                      {"model", {{"type", "Char"}, {"vocab", vocab_j}, {"unk_token", nullptr}}}};
  return j.dump(2);
}

}  // namespace tfp::train
