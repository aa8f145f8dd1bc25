#include "train/tasks.h"

#include <algorithm>

#include "core/error.h"
#include "train/seq_dates.h"
#include "train/seq_numbers.h"

namespace tfp::train {

const char* task_name(TaskKind k) {
  switch (k) {
    case TaskKind::Copy: return "copy";
    case TaskKind::Reverse: return "reverse";
    case TaskKind::Sort: return "sort";
    case TaskKind::Add: return "add";
    case TaskKind::Numbers: return "numbers";
    case TaskKind::Dates: return "dates-iso";  // "dates" is the CLI's recipe of the shipped model
    case TaskKind::Induction: return "induction";
  }
  return "?";
}

TaskKind parse_task(const std::string& name) {
  for (TaskKind k : {TaskKind::Copy, TaskKind::Reverse, TaskKind::Sort, TaskKind::Add, TaskKind::Numbers,
                     TaskKind::Dates, TaskKind::Induction})
    if (name == task_name(k)) return k;
  TFP_FAIL("task: unknown task \"", name, "\" (choose copy, reverse, sort, add, numbers, dates-iso or induction)");
}

namespace {

// The characters (code points) of UTF-8 text, each as its bytes; a malformed sequence
// becomes one piece of its bytes, which no vocabulary holds.
std::vector<std::string> utf8_pieces(const std::string& text) {
  std::vector<std::string> out;
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
    size_t k = 1;
    while (k < n && i + k < text.size() && (static_cast<unsigned char>(text[i + k]) & 0xC0) == 0x80) ++k;
    out.push_back(text.substr(i, k));
    i += k;
  }
  return out;
}

bool is_word_task(TaskKind k) { return k == TaskKind::Numbers || k == TaskKind::Dates; }
// The tasks over the static digit vocabulary (Task::vocab()).
bool is_digit_task(TaskKind k) { return !is_word_task(k) && k != TaskKind::Induction; }

constexpr const char* kLetters = "abcdefghijklmnopqrstuvwxyz";

}  // namespace

Task::Task(TaskKind kind, uint64_t seed, int size) : kind_(kind), seed_(seed) {
  if (is_word_task(kind)) {
    const int fixed = kind == TaskKind::Numbers ? NumbersTask::kMaxTarget : DatesTask::kMaxTarget;
    TFP_CHECK(size <= 0 || size == fixed, "task ", task_name(kind), ": the size is fixed (", fixed,
              "), got --size ", size);
    size_ = fixed;
    min_len_ = 1;
    if (kind == TaskKind::Numbers)
      for (char c : NumbersTask::vocab()) pieces_.emplace_back(1, c);
    else
      pieces_ = DatesTask::vocab();
    return;
  }
  if (kind == TaskKind::Induction) {  // distinct letters: at most 26
    size_ = size > 0 ? size : 12;
    TFP_CHECK(size_ >= 3 && size_ <= 26, "task induction: size ", size_, " must be 3 to 26 (distinct letters)");
    min_len_ = 3;
    for (const char* p : {"_", ".", ">"}) pieces_.emplace_back(p);
    for (const char* c = kLetters; *c; ++c) pieces_.emplace_back(1, *c);
    return;
  }
  size_ = size > 0 ? size : (kind == TaskKind::Add ? 3 : 8);
  TFP_CHECK(size_ <= 32, "task: size ", size_, " is too large for a toy task (at most 32)");
  // Strings of 1 digit have only 10 prompts; held out ones could never be learned from
  // their own kind, so lengths start at 2.
  min_len_ = std::min(2, size_);
  for (char c : vocab()) pieces_.emplace_back(1, c);
}

std::string Task::vocab_text() const {
  std::string s;
  for (const std::string& p : pieces_) s += p;
  return s;
}

int Task::id(const std::string& piece) const {
  for (size_t i = 0; i < pieces_.size(); ++i)
    if (pieces_[i] == piece) return static_cast<int>(i);
  TFP_FAIL("task ", task_name(kind_), ": character '", piece, "' is not in the vocabulary \"", vocab_text(),
           "\"");
}

const std::string& Task::piece(int id) const {
  TFP_CHECK(id >= 0 && id < n_tokens(), "task ", task_name(kind_), ": token id ", id, " outside the vocabulary of ",
            n_tokens());
  return pieces_[static_cast<size_t>(id)];
}

std::vector<int> Task::tokenize(const std::string& text) const {
  std::vector<int> ids;
  if (is_digit_task(kind_)) {  // one byte per token: the digit tasks' fast path
    for (char c : text) ids.push_back(token(c));
    return ids;
  }
  for (const std::string& p : utf8_pieces(text)) ids.push_back(id(p));
  return ids;
}

int Task::length(const std::string& text) const { return static_cast<int>(utf8_pieces(text).size()); }

std::string Task::prompt_error(const std::string& prompt) const {
  const int n = length(prompt), longest = max_prompt_len();
  if (n < 1 || n > longest)
    return "prompt \"" + prompt + "\" has " + std::to_string(n) + " characters; this task takes 1 to " +
           std::to_string(longest);
  // The prompt alphabet: the vocabulary less padding, end mark and separator(s).
  std::string allowed;
  for (size_t i = 0; i < pieces_.size(); ++i) {
    const std::string& p = pieces_[i];
    if (i == kPad || i == kEnd || p == ">" || p == "=") continue;
    if (kind_ != TaskKind::Add && p == "+") continue;
    allowed += p;
  }
  for (const std::string& p : utf8_pieces(prompt)) {
    if (p != "_" && p != ">" && p != "=" && allowed.find(p) != std::string::npos) continue;
    if (is_digit_task(kind_))  // the digit tasks' message, as the C API has always said it
      return "prompt \"" + prompt + "\" may hold only digits (and '+' for add)";
    return "prompt \"" + prompt + "\": the character '" + p + "' is not one the " + task_name(kind_) +
             " task reads (" + allowed + ")";
  }
  try {
    switch (kind_) {
      case TaskKind::Add: {
        const size_t plus = prompt.find('+');
        if (plus == std::string::npos || plus != prompt.rfind('+') || plus != static_cast<size_t>(size_) ||
            prompt.size() != static_cast<size_t>(2 * size_ + 1))
          return "prompt \"" + prompt + "\": add takes two " + std::to_string(size_) +
                 "-digit operands joined by '+'";
        break;
      }
      case TaskKind::Numbers: words_to_number(prompt); break;
      case TaskKind::Dates: parse_written_date(prompt); break;
      case TaskKind::Induction:
        for (size_t i = 0; i < prompt.size(); ++i)
          if (prompt.find(prompt[i], i + 1) != std::string::npos)
            return "prompt \"" + prompt + "\": induction takes distinct letters ('" + prompt[i] + "' twice)";
        if (n < min_len_) return "prompt \"" + prompt + "\": induction takes 3 to " + std::to_string(size_) + " letters";
        break;
      default: break;
    }
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

const std::string& Task::vocab() {
  static const std::string v = "_.>=+0123456789";
  return v;
}

int Task::token(char c) {
  const size_t i = vocab().find(c);
  TFP_CHECK(i != std::string::npos, "task: character '", c, "' is not in the vocabulary \"",
            vocab(), "\"");
  return static_cast<int>(i);
}

char Task::character(int id) {
  TFP_CHECK(id >= 0 && id < vocab_size(), "task: token id ", id, " outside the vocabulary");
  return vocab()[static_cast<size_t>(id)];
}

std::string Task::solve(const std::string& prompt) const {
  switch (kind_) {
    case TaskKind::Copy:
    case TaskKind::Induction: return prompt;
    case TaskKind::Reverse: return std::string(prompt.rbegin(), prompt.rend());
    case TaskKind::Sort: {
      std::string s = prompt;
      std::sort(s.begin(), s.end());
      return s;
    }
    case TaskKind::Add: {
      const size_t plus = prompt.find('+');
      TFP_CHECK(plus != std::string::npos, "task add: prompt \"", prompt, "\" has no '+'");
      const std::string a = prompt.substr(0, plus), b = prompt.substr(plus + 1);
      // Schoolbook addition from the last digit, carrying: works for any width.
      std::string sum(static_cast<size_t>(size_) + 1, '0');
      int carry = 0;
      for (int i = 0; i < size_; ++i) {
        const int d = (a[size_ - 1 - i] - '0') + (b[size_ - 1 - i] - '0') + carry;
        sum[size_ - i] = static_cast<char>('0' + d % 10);
        carry = d / 10;
      }
      sum[0] = static_cast<char>('0' + carry);
      return sum;
    }
    case TaskKind::Numbers: return std::to_string(words_to_number(prompt));
    case TaskKind::Dates: return iso_date(parse_written_date(prompt));
  }
  return {};
}

bool Task::is_held_out(const std::string& prompt) const {
  // numbers and dates: their generators' rules, by value and by date. A prompt that does
  // not parse belongs to neither split's draws; call it training.
  if (kind_ == TaskKind::Numbers) {
    try {
      return NumbersTask(seed_).is_held_out(words_to_number(prompt));
    } catch (const Error&) {
      return false;
    }
  }
  if (kind_ == TaskKind::Dates) {
    try {
      return DatesTask(seed_).is_held_out(parse_written_date(prompt));
    } catch (const Error&) {
      return false;
    }
  }
  // FNV-1a over the prompt, mixed with the seed through SplitMix64.
  uint64_t h = 1469598103934665603ull;
  for (char c : prompt) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  Rng mix(h ^ seed_);
  return (mix.next_u64() >> 61) == 0;  // top 3 bits zero: 1/8 of prompts
}

Example Task::sample(Rng& rng, bool held_out) const {
  if (kind_ == TaskKind::Numbers) {
    const NumberExample e = NumbersTask(seed_).sample(rng, held_out);
    return {e.source, e.target};
  }
  if (kind_ == TaskKind::Dates) {
    const DateExample e = DatesTask(seed_).sample(rng, held_out);
    return {e.source, e.target};
  }
  for (;;) {
    std::string prompt;
    if (kind_ == TaskKind::Induction) {  // distinct letters: a partial Fisher–Yates shuffle
      std::string letters = kLetters;
      const int len = min_len_ + rng.below(size_ - min_len_ + 1);
      for (int i = 0; i < len; ++i) std::swap(letters[i], letters[i + rng.below(26 - i)]);
      prompt = letters.substr(0, static_cast<size_t>(len));
    } else if (kind_ == TaskKind::Add) {
      for (int i = 0; i < size_; ++i) prompt += static_cast<char>('0' + rng.below(10));
      prompt += '+';
      for (int i = 0; i < size_; ++i) prompt += static_cast<char>('0' + rng.below(10));
    } else {
      const int len = min_len_ + rng.below(size_ - min_len_ + 1);
      for (int i = 0; i < len; ++i) prompt += static_cast<char>('0' + rng.below(10));
    }
    if (is_held_out(prompt) == held_out) return {prompt, solve(prompt)};
  }
}

int Task::max_prompt_len() const {
  if (kind_ == TaskKind::Numbers) return NumbersTask::kMaxSource;
  if (kind_ == TaskKind::Dates) return DatesTask::kMaxSource;
  return kind_ == TaskKind::Add ? 2 * size_ + 1 : size_;
}
int Task::max_answer_len() const { return kind_ == TaskKind::Add ? size_ + 1 : size_; }

int Task::context_len(model::Architecture arch) const {
  if (arch == model::Architecture::encoder_decoder)
    return std::max(max_prompt_len(), max_answer_len() + 1);
  return max_prompt_len() + 1 + max_answer_len();  // + end mark − 1 (inputs drop the last)
}

Batch Task::encode(const std::vector<Example>& examples, model::Architecture arch) const {
  TFP_CHECK(has_separator() || arch == model::Architecture::decoder_only, "task ", task_name(kind_),
            ": a decoder-only task (the repeat follows the sequence in one stream)");
  Batch b;
  b.B = static_cast<int>(examples.size());
  const int ignore = -100, sep = separator_id();
  if (arch == model::Architecture::encoder_decoder) {
    b.S = max_prompt_len();
    b.T = max_answer_len() + 1;
    for (const Example& e : examples) {
      const std::vector<int> src = tokenize(e.prompt);
      for (int s = 0; s < b.S; ++s) {
        const bool real = s < static_cast<int>(src.size());
        b.src.push_back(real ? src[s] : kPad);
        b.src_pad.push_back(real ? 0 : 1);
      }
      std::vector<int> in{sep}, out = tokenize(e.answer);  // ">1413", "1413."
      in.insert(in.end(), out.begin(), out.end());
      out.push_back(kEnd);
      for (int t = 0; t < b.T; ++t) {
        const bool real = t < static_cast<int>(in.size());
        b.tgt.push_back(real ? in[t] : kPad);
        b.targets.push_back(real ? out[t] : ignore);
      }
    }
  } else {
    b.T = context_len(arch);
    for (const Example& e : examples) {
      std::vector<int> full = tokenize(e.prompt);  // "3141>1413."
      // The target index of answer[0]; induction ("qkcxvqkcxv."): of answer[1].
      const int graded_from = static_cast<int>(full.size());
      if (has_separator()) full.push_back(sep);
      for (int id : tokenize(e.answer)) full.push_back(id);
      full.push_back(kEnd);
      for (int t = 0; t < b.T; ++t) {
        const bool real = t + 1 < static_cast<int>(full.size());
        b.tgt.push_back(t < static_cast<int>(full.size()) ? full[t] : kPad);
        b.targets.push_back(real && t >= graded_from ? full[t + 1] : ignore);
      }
    }
  }
  return b;
}

}  // namespace tfp::train
