// See seq_align.h.
#include "train/seq_align.h"

#include "core/error.h"
#include "train/seq_numbers.h"

namespace tfp::train {

std::vector<WordSpan> word_spans(const std::string& source) {
  std::vector<WordSpan> out;
  for (int i = 0; i < static_cast<int>(source.size());) {
    if (source[i] == ' ' || source[i] == '-') {
      ++i;
      continue;
    }
    WordSpan w;
    w.begin = i;
    while (i < static_cast<int>(source.size()) && source[i] != ' ' && source[i] != '-') w.text += source[i++];
    w.end = i;
    out.push_back(w);
  }
  return out;
}

std::vector<int> gold_digit_words(const std::string& source) {
  const int64_t value = words_to_number(source);  // also validates the text
  const std::vector<WordSpan> words = word_spans(source);
  // digit position from the right (0 = units) → word index. Words of the current group
  // (below a thousand) are collected with their positions inside the group and shifted
  // by 3 when "thousand" closes the group.
  int by_pos[6] = {-1, -1, -1, -1, -1, -1};
  struct Entry { int word, pos; };
  std::vector<Entry> group;
  auto lower_word = [](std::string w) {
    for (char& c : w) if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return w;
  };
  for (int i = 0; i < static_cast<int>(words.size()); ++i) {
    const std::string w = lower_word(words[i].text);
    if (w == "and") continue;
    if (w == "hundred") {
      for (Entry& e : group) e.pos += 2;  // "three" hundred: the units word moves to the hundreds
      continue;
    }
    if (w == "thousand") {
      for (const Entry& e : group) by_pos[e.pos + 3] = e.word;
      group.clear();
      continue;
    }
    const int64_t n = words_to_number(w);
    if (n >= 10 && n < 20) {
      group.push_back({i, 1});  // "twelve": both digits
      group.push_back({i, 0});
    } else if (n >= 20) {
      group.push_back({i, 1});
    } else {
      group.push_back({i, 0});
    }
  }
  for (const Entry& e : group) by_pos[e.pos] = e.word;
  const std::string digits = std::to_string(value);
  const int L = static_cast<int>(digits.size());
  std::vector<int> out(static_cast<size_t>(L), -1);
  for (int d = 0; d < L; ++d) {
    const int p = L - 1 - d;
    // A zero digit has a word only for "zero" itself and for the 0 of "ten", "twenty"...
    // which are not produced by that word: "twenty" says 2 in the tens, and the units 0 is
    // the absence of a units word. Teens are the exception handled above.
    out[static_cast<size_t>(d)] = by_pos[p];
    if (digits[d] == '0' && value != 0) {
      const bool teen_ten = by_pos[p] >= 0 && p % 3 == 0 && p + 1 < 6 && by_pos[p + 1] == by_pos[p];
      if (!teen_ten) out[static_cast<size_t>(d)] = -1;
    }
  }
  return out;
}

std::vector<int> attended_words(const std::vector<WordSpan>& words, const float* probs, int rows, int S) {
  std::vector<int> out;
  for (int t = 0; t < rows; ++t) {
    int best = -1;
    double best_mass = -1;
    for (int k = 0; k < static_cast<int>(words.size()); ++k) {
      double mass = 0;
      for (int j = words[k].begin; j < words[k].end && j < S; ++j) mass += probs[static_cast<size_t>(t) * S + j];
      if (mass > best_mass) best_mass = mass, best = k;
    }
    out.push_back(best);
  }
  return out;
}

void score_alignment(AlignmentScore& acc, const std::string& source, const float* probs, int rows, int S) {
  const std::vector<int> gold = gold_digit_words(source);
  const std::vector<WordSpan> words = word_spans(source);
  const int n = std::min(rows, static_cast<int>(gold.size()));
  const std::vector<int> seen = attended_words(words, probs, n, S);
  for (int t = 0; t < n; ++t) {
    if (gold[static_cast<size_t>(t)] < 0) continue;
    ++acc.graded;
    acc.correct += seen[static_cast<size_t>(t)] == gold[static_cast<size_t>(t)];
  }
}

std::string alignment_line(const std::string& source, const std::string& digits, const float* probs, int S) {
  const std::vector<WordSpan> words = word_spans(source);
  const std::vector<int> seen = attended_words(words, probs, static_cast<int>(digits.size()), S);
  std::string line;
  for (size_t t = 0; t < digits.size(); ++t) {
    if (t) line += "  ";
    line += digits[t];
    line += "<-";
    line += seen[t] >= 0 ? words[static_cast<size_t>(seen[t])].text : "?";
  }
  return line;
}

}  // namespace tfp::train
