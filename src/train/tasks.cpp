#include "train/tasks.h"

#include <algorithm>

#include "core/error.h"

namespace tfp::train {

const char* task_name(TaskKind k) {
  switch (k) {
    case TaskKind::Copy: return "copy";
    case TaskKind::Reverse: return "reverse";
    case TaskKind::Sort: return "sort";
    case TaskKind::Add: return "add";
  }
  return "?";
}

TaskKind parse_task(const std::string& name) {
  for (TaskKind k : {TaskKind::Copy, TaskKind::Reverse, TaskKind::Sort, TaskKind::Add})
    if (name == task_name(k)) return k;
  TFP_FAIL("task: unknown task \"", name, "\" (choose copy, reverse, sort or add)");
}

Task::Task(TaskKind kind, uint64_t seed, int size)
    : kind_(kind), seed_(seed), size_(size > 0 ? size : (kind == TaskKind::Add ? 3 : 8)) {
  TFP_CHECK(size_ <= 32, "task: size ", size_, " is too large for a toy task (at most 32)");
  // Strings of 1 digit have only 10 prompts; held out ones could never be learned from
  // their own kind, so lengths start at 2.
  min_len_ = std::min(2, size_);
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
    case TaskKind::Copy: return prompt;
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
  }
  return {};
}

bool Task::is_held_out(const std::string& prompt) const {
  // FNV-1a over the prompt, mixed with the seed through SplitMix64.
  uint64_t h = 1469598103934665603ull;
  for (char c : prompt) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  Rng mix(h ^ seed_);
  return (mix.next_u64() >> 61) == 0;  // top 3 bits zero: 1/8 of prompts
}

Example Task::sample(Rng& rng, bool held_out) const {
  for (;;) {
    std::string prompt;
    if (kind_ == TaskKind::Add) {
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

int Task::max_prompt_len() const { return kind_ == TaskKind::Add ? 2 * size_ + 1 : size_; }
int Task::max_answer_len() const { return kind_ == TaskKind::Add ? size_ + 1 : size_; }

int Task::context_len(model::Architecture arch) const {
  if (arch == model::Architecture::encoder_decoder)
    return std::max(max_prompt_len(), max_answer_len() + 1);
  return max_prompt_len() + 1 + max_answer_len();  // + end mark − 1 (inputs drop the last)
}

Batch Task::encode(const std::vector<Example>& examples, model::Architecture arch) const {
  Batch b;
  b.B = static_cast<int>(examples.size());
  const int ignore = -100;
  if (arch == model::Architecture::encoder_decoder) {
    b.S = max_prompt_len();
    b.T = max_answer_len() + 1;
    for (const Example& e : examples) {
      for (int s = 0; s < b.S; ++s) {
        const bool real = s < static_cast<int>(e.prompt.size());
        b.src.push_back(real ? token(e.prompt[s]) : kPad);
        b.src_pad.push_back(real ? 0 : 1);
      }
      const std::string in = std::string(1, separator()) + e.answer;  // ">1413"
      const std::string out = e.answer + '.';                          // "1413."
      for (int t = 0; t < b.T; ++t) {
        const bool real = t < static_cast<int>(in.size());
        b.tgt.push_back(real ? token(in[t]) : kPad);
        b.targets.push_back(real ? token(out[t]) : ignore);
      }
    }
  } else {
    b.T = context_len(arch);
    for (const Example& e : examples) {
      const std::string full = e.prompt + separator() + e.answer + '.';  // "3141>1413."
      const int graded_from = static_cast<int>(e.prompt.size());  // target index of answer[0]
      for (int t = 0; t < b.T; ++t) {
        const bool real = t + 1 < static_cast<int>(full.size());
        b.tgt.push_back(t < static_cast<int>(full.size()) ? token(full[t]) : kPad);
        b.targets.push_back(real && t >= graded_from ? token(full[t + 1]) : ignore);
      }
    }
  }
  return b;
}

}  // namespace tfp::train
