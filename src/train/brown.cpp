// See brown.h.
#include "train/brown.h"

#include <algorithm>
#include <cctype>
#include <unordered_map>

#include "core/error.h"

namespace tfp::train::brown {

namespace {

enum Coarse { NOUN, VERB, ADJ, ADV, PRON, DET, ADP, NUM, CONJ, PRT, PUNCT, X };

const std::unordered_map<std::string, int>& base_table() {
  static const std::unordered_map<std::string, int> table = [] {
    std::unordered_map<std::string, int> t;
    auto put = [&](int c, std::initializer_list<const char*> tags) {
      for (const char* s : tags) t[s] = c;
    };
    put(NOUN, {"nn", "nns", "np", "nps", "nr", "nrs"});
    put(VERB, {"vb", "vbd", "vbg", "vbn", "vbz", "md", "be", "bed", "bedz", "beg", "bem", "ben",
               "ber", "bez", "do", "dod", "doz", "hv", "hvd", "hvg", "hvn", "hvz"});
    put(ADJ, {"jj", "jjr", "jjs", "jjt", "od", "ap"});
    put(ADV, {"rb", "rbr", "rbt", "rn", "ql", "qlp", "wrb", "wql", "abl", "*"});
    // Possessive pronoun tags keep their '$' in the table ("pp$" his, "wp$" whose) since
    // stripping it would leave no tag; the stripping below tries the full tag first.
    put(PRON, {"pn", "pp$", "pp$$", "ppl", "ppls", "ppo", "pps", "ppss", "wp$", "wpo", "wps"});
    put(DET, {"at", "abn", "abx", "dt", "dti", "dts", "dtx", "wdt", "ex"});
    put(ADP, {"in"});
    put(NUM, {"cd"});
    put(CONJ, {"cc", "cs"});
    put(PRT, {"rp", "to"});
    put(PUNCT, {".", ",", ":", ";", "(", ")", "``", "''", "'", "--", "-", "?", "!"});
    put(X, {"uh", "nil", "fw"});
    return t;
  }();
  return table;
}

bool strip_suffix(std::string& s, std::string_view suffix) {
  if (s.size() > suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0) {
    s.resize(s.size() - suffix.size());
    return true;
  }
  return false;
}

bool is_opening(const std::string& w) { return w == "(" || w == "``" || w == "["; }
bool is_closing(const std::string& w) {
  static const char* const kClose[] = {",", ".", ";", ":", "?", "!", ")", "''", "]", "'"};
  for (const char* c : kClose)
    if (w == c) return true;
  return false;
}

}  // namespace

const std::vector<std::string>& coarse_tags() {
  static const std::vector<std::string> names = {"NOUN", "VERB", "ADJ", "ADV",  "PRON", "DET",
                                                 "ADP",  "NUM",  "CONJ", "PRT", ".",    "X"};
  return names;
}

int num_coarse_tags() { return static_cast<int>(coarse_tags().size()); }

int coarse_tag(std::string_view brown_tag) {
  std::string t(brown_tag);
  for (char& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (t.rfind("fw-", 0) == 0) return X;  // foreign word, whatever its grammatical tag
  // Title, headline and citation decorations, possibly stacked ("nn-tl-hl").
  while (strip_suffix(t, "-tl") || strip_suffix(t, "-hl") || strip_suffix(t, "-nc")) {}
  // "ppss+md" ("I'd"): the first part.
  if (const size_t plus = t.find('+'); plus != std::string::npos && plus > 0) t.resize(plus);
  const auto& table = base_table();
  if (auto it = table.find(t); it != table.end()) return it->second;
  // Negated ("md*", "bez*") and possessive ("nn$", "np$") forms of a base tag.
  while (strip_suffix(t, "*") || strip_suffix(t, "$")) {
    if (auto it = table.find(t); it != table.end()) return it->second;
  }
  return X;
}

bool is_held_out(int index) { return index % 10 == 9; }

Document parse_document(const std::string& name, int index, std::string_view text) {
  Document d;
  d.name = name;
  d.index = index;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    const std::string_view line = text.substr(pos, eol - pos);
    pos = eol + 1;
    Sentence s;
    size_t i = 0;
    while (i < line.size()) {
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
      size_t j = i;
      while (j < line.size() && line[j] != ' ' && line[j] != '\t' && line[j] != '\r') ++j;
      if (j > i) {
        const std::string_view tok = line.substr(i, j - i);
        const size_t slash = tok.rfind('/');
        TFP_CHECK(slash != std::string_view::npos && slash > 0 && slash + 1 < tok.size(),
                  "brown: ", name, ": token \"", std::string(tok), "\" is not word/tag");
        s.words.emplace_back(tok.substr(0, slash));
        s.tags.push_back(coarse_tag(tok.substr(slash + 1)));
      }
      i = j;
    }
    if (!s.words.empty()) d.sentences.push_back(std::move(s));
  }
  return d;
}

std::string detokenize(const Sentence& s) {
  std::string out;
  bool glue_next = true;  // no space before the first word or after an opening bracket
  for (const std::string& w : s.words) {
    const bool close = is_closing(w);
    if (!out.empty() && !glue_next && !close) out += ' ';
    out += (w == "``" || w == "''") ? std::string("\"") : w;
    glue_next = is_opening(w);
  }
  return out;
}

std::string document_text(const Document& d) {
  std::string out;
  for (const Sentence& s : d.sentences) {
    if (!out.empty()) out += ' ';
    out += detokenize(s);
  }
  return out;
}

}  // namespace tfp::train::brown
