// The BPE trainer: count words, then repeatedly merge the most frequent symbol pair.
// See bpe_trainer.h for the algorithm and the tie-break.
#include "tokenizer/bpe_trainer.h"

#include <map>
#include <queue>
#include <unordered_map>

#include "core/error.h"
#include "tokenizer/bpe.h"
#include "tokenizer/pretokenize.h"
#include "tokenizer/unicode.h"

namespace tfp {

namespace {

struct Word {
  std::vector<int32_t> symbols;
  int64_t count;
};

uint64_t pair_key(int32_t a, int32_t b) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(a)) << 32) | static_cast<uint32_t>(b);
}

// A candidate in the priority queue. Counts change as merges happen; instead of
// updating entries in place we push a fresh one and skip stale ones when popped
// (their count no longer equals the live count).
struct Candidate {
  int64_t count;
  int32_t a, b;
};

}  // namespace

Tokenizer train_bpe(const std::vector<std::string>& texts, const BpeTrainerOptions& opt) {
  const size_t base = opt.special_tokens.size() + 256;
  TFP_CHECK(opt.vocab_size >= base, "train_bpe: vocab_size ", opt.vocab_size, " is smaller than the ",
            opt.special_tokens.size(), " special tokens + 256 byte symbols");

  // 1. Word frequencies. std::map keeps words in a fixed (sorted) order: determinism.
  std::map<std::string, int64_t> word_counts;
  for (size_t t = 0; t < texts.size(); ++t) {
    std::u32string cps;
    try {
      cps = unicode::to_u32(texts[t]);
    } catch (const Error& e) {
      TFP_FAIL("train_bpe: text ", t, ": ", e.what());
    }
    for (auto [b, e] : split_gpt2(cps)) ++word_counts[unicode::to_utf8(cps.substr(b, e - b))];
  }

  // 2. The starting vocab and each word spelled in byte symbols.
  std::vector<std::string> tokens;  // id -> token string
  Vocab vocab;
  auto add_token = [&](const std::string& s) {
    vocab.add(s, static_cast<int32_t>(tokens.size()));
    tokens.push_back(s);
  };
  for (const std::string& s : opt.special_tokens) add_token(s);
  const int32_t first_byte = static_cast<int32_t>(tokens.size());
  for (int b = 0; b < 256; ++b) add_token(bytes_to_symbols(std::string(1, static_cast<char>(b))));

  std::vector<Word> words;
  for (const auto& [w, n] : word_counts) {
    Word word{{}, n};
    for (unsigned char c : w) word.symbols.push_back(first_byte + c);
    words.push_back(std::move(word));
  }

  // 3. Pair counts, and for each pair the words it occurs in (may hold stale entries).
  std::unordered_map<uint64_t, int64_t> pair_count;
  std::unordered_map<uint64_t, std::vector<uint32_t>> pair_words;
  auto better = [&](const Candidate& x, const Candidate& y) {  // true if y should pop first
    if (x.count != y.count) return x.count < y.count;
    if (tokens[x.a] != tokens[y.a]) return tokens[x.a] > tokens[y.a];
    return tokens[x.b] > tokens[y.b];
  };
  std::priority_queue<Candidate, std::vector<Candidate>, decltype(better)> queue(better);
  auto add_pairs = [&](uint32_t wi, int64_t sign) {
    const Word& w = words[wi];
    for (size_t i = 0; i + 1 < w.symbols.size(); ++i) {
      const uint64_t k = pair_key(w.symbols[i], w.symbols[i + 1]);
      int64_t& c = pair_count[k];
      c += sign * w.count;
      if (sign > 0) pair_words[k].push_back(wi);
      queue.push({c, w.symbols[i], w.symbols[i + 1]});
    }
  };
  for (uint32_t wi = 0; wi < words.size(); ++wi) add_pairs(wi, +1);

  // 4. Merge loop.
  std::vector<BpeModel::Merge> merges;
  std::vector<uint32_t> last_merge_of_word(words.size(), UINT32_MAX);
  while (tokens.size() < opt.vocab_size && !queue.empty()) {
    const Candidate top = queue.top();
    queue.pop();
    const uint64_t k = pair_key(top.a, top.b);
    if (top.count != pair_count[k] || top.count <= 0) continue;  // stale entry
    if (top.count < opt.min_frequency) break;                    // best is too rare

    const std::string merged_str = tokens[top.a] + tokens[top.b];
    int32_t merged;
    if (auto existing = vocab.find(merged_str)) {
      merged = *existing;  // "ab"+"c" after "a"+"bc": same string, same id
    } else {
      merged = static_cast<int32_t>(tokens.size());
      add_token(merged_str);
    }
    const uint32_t merge_index = static_cast<uint32_t>(merges.size());
    merges.emplace_back(tokens[top.a], tokens[top.b]);

    // Rewrite every word that (still) contains the pair: take its pairs out of the
    // counts, merge left to right, put the new pairs in.
    const std::vector<uint32_t> where = std::move(pair_words[k]);
    pair_words.erase(k);
    for (uint32_t wi : where) {
      if (last_merge_of_word[wi] == merge_index) continue;  // listed twice
      last_merge_of_word[wi] = merge_index;
      Word& w = words[wi];
      add_pairs(wi, -1);
      std::vector<int32_t> next;
      for (size_t i = 0; i < w.symbols.size();) {
        if (i + 1 < w.symbols.size() && w.symbols[i] == top.a && w.symbols[i + 1] == top.b) {
          next.push_back(merged);
          i += 2;
        } else {
          next.push_back(w.symbols[i++]);
        }
      }
      w.symbols.swap(next);
      add_pairs(wi, +1);
    }
  }

  PipelineConfig cfg;
  cfg.pre_tokenizer = PreTokenizerKind::ByteLevel;
  cfg.decoder = DecoderKind::ByteLevel;
  std::vector<AddedToken> added;
  for (size_t i = 0; i < opt.special_tokens.size(); ++i)
    added.push_back({static_cast<int32_t>(i), opt.special_tokens[i], true});
  return Tokenizer(std::make_unique<BpeModel>(std::move(vocab), std::move(merges)), std::move(cfg),
                   std::move(added));
}

}  // namespace tfp
