// The "number words → digits" task of the shipped encoder–decoder models
// (models/numbers-transformer, models/numbers-gru): English words for a number in
// 0..999,999 in, its decimal digits out.
//
//   "three hundred and forty-two thousand five"  →  "342005"
//   "Nine Thousand And Twelve"                    →  "9012"
//   "SEVENTY SEVEN"                               →  "77"
//
// Why this task: its alignments are crisp and easy to read off an attention map. Each
// output digit comes from one source word ("three" → 3, "forty" → 4, "two" → 2), and a
// zero digit comes from the absence of a word in its slot, so the model has to look at
// "hundred"/"thousand" to know where it is. A good model's cross-attention puts each
// digit's row on the word that produced it.
//
// Surface variants (a NumberStyle, drawn at random per example):
//   and_hundred   "three hundred and five"   vs "three hundred five"
//   and_thousand  "two thousand and five"    vs "two thousand five"   (only when the part
//                                              after "thousand" is below 100, British usage)
//   hyphen        "forty-two"                vs "forty two"
//   letter case   lower, Capitalised first word, Title Case Of Each Word, UPPER
//
// Vocabulary: one character per token, shared by source and target (the Transformer
// trainer ties source and target embeddings, and one tokenizer.json serves both sides):
//   '_' padding (0), '.' end (1), '>' decoder start (2), ' ' (3), '-' (4),
//   'a'..'z' (5..30), 'A'..'Z' (31..56), '0'..'9' (57..66)          — 67 tokens.
// The source alphabet is ' ', '-' and the letters; the target alphabet is the digits and
// the end mark.
//
// Held-out split by VALUE: a value is held out iff a seeded hash of it falls in the lowest
// 1/10 of the range, so no spelling of a held-out number is ever trained on. Values below
// 100 are never held out: they are the words themselves ("seventeen", "forty-two"), and a
// model cannot be asked to read a word it has never seen.
//
// Sampling: the number of digits (1..6) is uniform, then the value is uniform among
// numbers of that many digits, so small numbers are not drowned out by the 900,000
// six-digit ones.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "train/rng.h"
#include "train/train_model.h"

namespace tfp::train {

enum class LetterCase { Lower, Capitalised, Title, Upper };

struct NumberStyle {
  bool and_hundred = true;
  bool and_thousand = false;
  bool hyphen = true;
  LetterCase letter_case = LetterCase::Lower;
};

// Words for value (0..999,999) in the given style. Throws tfp::Error outside that range.
std::string number_to_words(int64_t value, const NumberStyle& style = {});
// The value of English number words as number_to_words writes them, in any case, with
// or without "and" and hyphens. Throws tfp::Error naming an unknown or misplaced word.
int64_t words_to_number(const std::string& words);

struct NumberExample {
  int64_t value = 0;
  std::string source;  // "three hundred and forty-two thousand five"
  std::string target;  // "342005" (without the end mark)
};

class NumbersTask {
 public:
  explicit NumbersTask(uint64_t seed = 1) : seed_(seed) {}

  static const std::string& vocab();  // the 67 characters, id order
  static int vocab_size() { return 67; }
  static int token(char c);           // throws on a character outside the vocab
  static char character(int id);      // throws on an id outside the vocab
  static constexpr int kPad = 0, kEnd = 1, kStart = 2;
  static constexpr int64_t kMaxValue = 999999;
  // Longest source over every value and style ("seven hundred and seventy-seven thousand
  // seven hundred and seventy-seven", 72 characters) and longest target (6 digits).
  static constexpr int kMaxSource = 72, kMaxTarget = 6;

  bool is_held_out(int64_t value) const;
  // A random value and style from the training split (held_out = false) or the held-out one.
  NumberExample sample(Rng& rng, bool held_out) const;
  // The fixed held-out evaluation set: n examples from a seeded stream of their own.
  std::vector<NumberExample> held_out_set(int n) const;

  // Encoder–decoder batch: source = the words, decoder input ">342005", targets
  // "342005."; padded with '_' to the longest example in the batch (targets of padding are
  // ignore_index, padded source tokens are masked keys).
  static Batch encode(const std::vector<NumberExample>& examples);
  static std::vector<int> encode_text(const std::string& text);

  // The tokenizer.json of the models (Char model, Fuse decoder).
  static std::string tokenizer_json();

 private:
  uint64_t seed_;
};

NumberStyle random_style(Rng& rng);

}  // namespace tfp::train
