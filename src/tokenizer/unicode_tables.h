// Declarations of the generated Unicode tables (unicode_tables.cpp, written by
// tools/gen_unicode_tables.mjs). Each table is at the Unicode version Hugging Face tokenizers
// uses for its job, so the versions differ (16.0 classes, 17.0 lowercase and digits, 9.0
// normalization, 8.0 BERT classes; why: tools/unicode_sources.mjs). Every table is sorted by
// code point and non-overlapping, so a binary search answers "is cp in this class?".
// Use the functions in unicode.h; only unicode.cpp reads these tables directly.
#pragma once
#include <cstdint>
#include <span>

namespace tfp::unicode_tables {

struct CodeRange { uint32_t lo, hi; };                        // inclusive
struct CombiningRun { uint32_t lo, hi; uint8_t ccc; };         // canonical combining class
struct Decomposition { uint32_t cp; uint32_t offset, length; };  // into decomp_pool_cps
// cp -> cp + delta for cp = lo, lo + stride, ..., hi (simple lowercase).
struct LowerRun { uint32_t lo, hi; int32_t delta; uint32_t stride; };
struct CategoryRun { uint32_t lo, hi; uint8_t category; };     // index into category_name_list
struct CompositionPair { uint32_t first, second, composed; };  // sorted by (first, second)

extern const char* const kUnicodeVersion;            // of the classes: "16.0.0"
extern const char* const kUnicodeVersions;           // every table's, in words
extern const char* const kNormalizationDataVersion;  // the UCD files the 9.0 subset was taken from
extern const std::span<const CodeRange> letter_ranges;        // \p{L}
extern const std::span<const CodeRange> number_ranges;        // \p{N}
extern const std::span<const CodeRange> space_sep_ranges;     // Zs
extern const std::span<const CodeRange> alphabetic_ranges;    // Alphabetic
extern const std::span<const CodeRange> numeric_ranges;       // N* at Rust std's version
extern const std::span<const CodeRange> bert_punct_ranges;    // P* (8.0)
extern const std::span<const CodeRange> bert_control_ranges;  // Cc Cf Co (8.0)
extern const std::span<const CodeRange> bert_mn_ranges;       // Mn (8.0)
extern const std::span<const CodeRange> mark_ranges;          // M* (9.0)
extern const std::span<const CombiningRun> ccc_runs;
extern const std::span<const uint32_t> decomp_pool_cps;
extern const std::span<const Decomposition> decompositions;
extern const std::span<const LowerRun> lower_runs;
extern const std::span<const char* const> category_name_list;  // "Cn", "Lu", ... (index 0 = Cn)
extern const std::span<const CategoryRun> category_runs;       // unassigned (Cn) omitted
extern const std::span<const uint32_t> kdecomp_pool_cps;
extern const std::span<const Decomposition> compat_decompositions;  // only where != canonical
extern const std::span<const CompositionPair> composition_pairs;

}  // namespace tfp::unicode_tables
