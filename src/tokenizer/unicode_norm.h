// Unicode normalisation forms (UAX #15) on text that carries its origins, for the NFD,
// NFKD, NFC and NFKC normalizers of tokenizer.json.
//
//   NFD   canonical decomposition, then canonical ordering of combining marks
//   NFKD  the same with compatibility mappings too ("ﬁ" -> "f" "i", "①" -> "1")
//   NFC   NFD, then canonical composition ("e" + U+0301 -> "é")
//   NFKC  NFKD, then canonical composition
//
// The data (decompositions, composition pairs without the exclusions, combining classes)
// is Unicode 9.0.0's, as in unicode-normalization-alignments 0.1.12, the crate Hugging Face
// tokenizers normalizes with (unicode_tables.cpp). A composed character
// keeps the origin of its starter and widens its span over the marks it absorbed.
#pragma once
#include "tokenizer/normalizer.h"

namespace tfp {

enum class NormalForm { NFD, NFKD, NFC, NFKC };

const char* normal_form_name(NormalForm f);

void apply_normal_form(NormalizedText& text, NormalForm form);

}  // namespace tfp
