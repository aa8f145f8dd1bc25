// Reading an attention map of the number-words task against the truth: which source
// word produced each output digit, and which word the model looked at.
//
// Gold alignment. Each non-zero digit of "342005" comes from one word of
// "three hundred and forty-two thousand five": 3 ← three, 4 ← forty, 2 ← two, 5 ← five.
// A teen or "ten" produces two digits (12 ← "twelve" for both '1' and '2'); "zero"
// produces the digit of 0. Other zero digits come from no word (the absence of one in
// their slot) and have no gold word (-1).
//
// Model alignment. For output digit t, the attention mass of each word is the sum of the
// row's weights over the word's characters; the model's word is the one with the most.
// Words are maximal runs of letters (spaces and hyphens separate them).
//
// Legend: T output digits, S source characters.
#pragma once
#include <string>
#include <vector>

namespace tfp::train {

struct WordSpan {
  int begin = 0, end = 0;  // characters [begin, end) of the source
  std::string text;
};

std::vector<WordSpan> word_spans(const std::string& source);

// For each digit of the value's decimal string, the index (into word_spans) of the word
// that produced it, or -1. Throws tfp::Error for text words_to_number rejects.
std::vector<int> gold_digit_words(const std::string& source);

// probs (rows, S) row-major over the source characters: per row, the word with the
// largest attention mass.
std::vector<int> attended_words(const std::vector<WordSpan>& words, const float* probs, int rows, int S);

struct AlignmentScore {
  int graded = 0;   // digits with a gold word
  int correct = 0;  // of those, digits whose most-attended word is the gold one
};
// Adds one example: probs (T, S) with one row per output digit (the end mark's row, if
// present beyond the digits, is ignored).
void score_alignment(AlignmentScore& acc, const std::string& source, const float* probs, int rows, int S);

// "3←three 4←forty 2←two 0←thousand 0←thousand 5←five": each digit with its attended word.
std::string alignment_line(const std::string& source, const std::string& digits, const float* probs, int S);

}  // namespace tfp::train
