// Finding added tokens ("<s>", "<|im_start|>", "[MASK]", ...) in text, as Hugging Face's
// AddedVocabulary does: leftmost-longest matches over all tokens at once (a trie over
// code points, so thousands of added tokens cost no more than a few), then per token
//   single_word  the match must not have a word character (\w) right before or after it
//                (a rejected match is skipped whole, as HF's automaton does)
//   lstrip       the match takes the whitespace before it (not past the previous match)
//   rstrip       the match takes the whitespace after it
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace tfp {

struct AddedTokenRules {
  bool single_word = false, lstrip = false, rstrip = false;
};

class AddedTokenMatcher {
 public:
  struct Match {
    uint32_t begin, end;  // code points, including stripped whitespace
    int32_t token;        // the index given to add()
  };
  void add(const std::u32string& content, int32_t token, AddedTokenRules rules);
  bool empty() const { return rules_.empty(); }
  std::vector<Match> find(std::u32string_view text) const;

 private:
  std::unordered_map<uint64_t, int32_t> edges_;  // (node << 21 | cp) -> child
  std::vector<int32_t> terminal_{-1};            // node -> index into rules_/tokens_, -1
  std::vector<AddedTokenRules> rules_;
  std::vector<int32_t> tokens_;
};

}  // namespace tfp
