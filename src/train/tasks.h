// Toy sequence tasks for training a tiny transformer in seconds: copy, reverse, sort and
// addition over digit strings, with a character vocabulary, seeded data and a held-out
// split. Each task has crisp attention patterns to watch form: copy attends to the same
// offset, reverse to the mirror position, sort to the next-smallest digit, addition to the
// aligned digits of both operands.
//
//   copy     "3141"     → "3141"        reverse  "3141" → "1413"
//   sort     "3141"     → "1134"        add      "123+045" → "0168"  (fixed width: N-digit
//            operands zero-padded, an N+1-digit sum, so digit i always sits at position i)
//
// Vocabulary (15 tokens, one character each): '_' padding (0), '.' end (1), '>' and '='
// separators (2, 3), '+' (4), '0'..'9' (5..14).
//
// Encodings. Decoder-only (one causal stream, graded only on the answer):
//   "3141>1413."  input = all but the last character, targets = all but the first, and
//   the targets inside the prompt are ignore_index (the model is not asked to predict
//   the random prompt). Encoder-decoder: source "3141", decoder input ">1413", targets
//   "1413.". Both are padded with '_' to the task's longest sequence; padded targets are
//   ignored and padded source tokens are masked as keys.
//
// Held-out split: an example belongs to the held-out set iff a seeded hash of its prompt
// falls in the lowest 1/8 of the range. Training draws reject held-out prompts, evaluation
// draws accept only them, so no held-out prompt is ever trained on.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/config.h"
#include "train/rng.h"
#include "train/train_model.h"

namespace tfp::train {

enum class TaskKind { Copy, Reverse, Sort, Add };

const char* task_name(TaskKind k);              // "copy", "reverse", "sort", "add"
TaskKind parse_task(const std::string& name);   // throws tfp::Error listing the choices

struct Example {
  std::string prompt;  // "3141"
  std::string answer;  // "1413" (without the end mark)
};

class Task {
 public:
  // size: digits per string (copy/reverse/sort: lengths min_len..size) or per operand (add).
  // 0 = the default (8 for copy/reverse/sort, 3 for add).
  Task(TaskKind kind, uint64_t seed, int size = 0);

  TaskKind kind() const { return kind_; }
  int size() const { return size_; }

  static const std::string& vocab();         // "_.>=+0123456789"
  static int vocab_size() { return 15; }
  static int token(char c);                  // throws on a character outside the vocab
  static char character(int id);
  static constexpr int kPad = 0, kEnd = 1;

  // The answer for a prompt (the task's ground truth).
  std::string solve(const std::string& prompt) const;
  char separator() const { return kind_ == TaskKind::Add ? '=' : '>'; }

  bool is_held_out(const std::string& prompt) const;
  // A random example from the training split (held_out = false) or the held-out split.
  Example sample(Rng& rng, bool held_out) const;

  // Longest sequences, for padding and for sizing the model's positions.
  int max_prompt_len() const;
  int max_answer_len() const;
  // Context a model needs: decoder-only max_prompt+1+max_answer (input length);
  // encoder-decoder max(max_prompt, max_answer+1).
  int context_len(model::Architecture arch) const;

  Batch encode(const std::vector<Example>& examples, model::Architecture arch) const;

 private:
  TaskKind kind_;
  uint64_t seed_;
  int size_;
  int min_len_;
};

}  // namespace tfp::train
