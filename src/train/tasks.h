// Toy sequence tasks for training a tiny transformer in seconds: copy, reverse, sort and
// addition over digit strings, and two tasks of the shipped encoder–decoder models,
// number words → digits (train/seq_numbers.h) and written dates → ISO (train/seq_dates.h),
// each with its own character vocabulary, seeded data and a held-out split. Each task has
// crisp attention patterns to watch form: copy attends to the same offset, reverse to the
// mirror position, sort to the next-smallest digit, addition to the aligned digits of both
// operands, numbers to the word that says each digit, dates-iso to the year, month and day
// wherever the written form puts them.
//
//   copy     "3141"     → "3141"        reverse  "3141" → "1413"
//   sort     "3141"     → "1134"        add      "123+045" → "0168"  (fixed width: N-digit
//            operands zero-padded, an N+1-digit sum, so digit i always sits at position i)
//
//   numbers  "forty-two"  → "42"         dates-iso "3 March 2021" → "2021-03-03"
//   induction "qkcxv"     → "qkcxv"      (distinct random letters, 3..size of them: the
//            sequence seen once, then again with no separator between, decoder-only;
//            graded from the second repeated letter on, which a causal model predicts
//            from the letter after the earlier occurrence of the current one — what an
//            induction head does; with rotary positions and varying lengths no fixed
//            offset finds it. The first repeated letter cannot be predicted: generation
//            is given it, and stops at the end mark or after the prompt's length.)
//
// Vocabulary, one token per character (code point), per task; every task has '_' padding
// at 0 and its end mark at 1:
//   copy, reverse, sort, add (15 tokens): '_' padding (0), '.' end (1), '>' and '='
//     separators (2, 3), '+' (4), '0'..'9' (5..14) — the static vocab() below.
//   numbers (67 tokens): NumbersTask's, '_' (0), '.' end (1), '>' separator (2), ' ', '-',
//     letters of both cases, digits — the shipped numbers models' vocabulary.
//   induction (29 tokens): '_' (0), '.' end (1), '>' separator (2), 'a'..'z' (3..28).
//   dates (73 tokens): DatesTask's, '_' (0), '#' end (1, as '.' occurs in "3.3.2021"),
//     '>' separator (2), ' ', '-', ',', '/', '.', digits, letters, '年', '月', '日'.
// The numbers and dates tasks have one fixed size (size 0 or their own: 6 digits, 10
// characters of ISO date); their prompts are drawn by the shipped generators, with their
// surface variants (letter case, "and", hyphens; twelve written date forms).
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
// draws accept only them, so no held-out prompt is ever trained on. numbers and dates
// keep their generators' rules, by VALUE and by DATE (a seeded hash, 1/10; numbers below
// 100 are never held out), so no spelling of a held-out number or date is trained on.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/config.h"
#include "train/rng.h"
#include "train/train_model.h"

namespace tfp::train {

enum class TaskKind { Copy, Reverse, Sort, Add, Numbers, Dates, Induction };

// "copy", "reverse", "sort", "add", "numbers", "dates-iso" (not "dates": that name is the
// CLI's recipe of the shipped dates model, `tfp train dates`), "induction".
const char* task_name(TaskKind k);
TaskKind parse_task(const std::string& name);   // throws tfp::Error listing the choices

struct Example {
  std::string prompt;  // "3141"
  std::string answer;  // "1413" (without the end mark)
};

class Task {
 public:
  // size: digits per string (copy/reverse/sort: lengths min_len..size) or per operand (add).
  // 0 = the default (8 for copy/reverse/sort, 3 for add, 12 letters for induction, at most
  // 26). numbers: 6 (digits), dates: 10 (the ISO date), fixed.
  Task(TaskKind kind, uint64_t seed, int size = 0);

  TaskKind kind() const { return kind_; }
  int size() const { return size_; }

  // The digit tasks' vocabulary (copy, reverse, sort, add).
  static const std::string& vocab();         // "_.>=+0123456789"
  static int vocab_size() { return 15; }
  static int token(char c);                  // throws on a character outside the vocab
  static char character(int id);
  static constexpr int kPad = 0, kEnd = 1;   // in every task's vocabulary

  // This task's vocabulary: one UTF-8 character per token, id order.
  const std::vector<std::string>& pieces() const { return pieces_; }
  int n_tokens() const { return static_cast<int>(pieces_.size()); }
  std::string vocab_text() const;                     // the pieces joined
  int id(const std::string& piece) const;             // throws naming the task's characters
  const std::string& piece(int id) const;             // throws on an id outside
  std::vector<int> tokenize(const std::string& text) const;  // per character (code point)
  int length(const std::string& text) const;          // characters (code points)
  // Why a prompt a reader typed is not one this task takes ("" = it is): a character
  // outside the prompt alphabet, a length outside 1..max_prompt_len, or (numbers, dates)
  // words or a date the generator's reader does not understand.
  std::string prompt_error(const std::string& prompt) const;

  // The answer for a prompt (the task's ground truth).
  std::string solve(const std::string& prompt) const;
  char separator() const { return kind_ == TaskKind::Add ? '=' : '>'; }
  // Whether the separator is in the sequences (induction's repeat follows the prompt directly).
  bool has_separator() const { return kind_ != TaskKind::Induction; }
  int separator_id() const { return id(std::string(1, separator())); }
  char end_mark() const { return kind_ == TaskKind::Dates ? '#' : '.'; }

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
  std::vector<std::string> pieces_;
};

}  // namespace tfp::train
