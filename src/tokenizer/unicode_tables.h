// Declarations of the generated Unicode tables (unicode_tables.cpp, written by
// tools/gen_unicode_tables.py from Python's unicodedata). Every table is sorted by code
// point and non-overlapping, so a binary search answers "is cp in this class?".
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

extern const char* const kUnicodeVersion;
extern const std::span<const CodeRange> letter_ranges;     // \p{L}
extern const std::span<const CodeRange> number_ranges;     // \p{N}
extern const std::span<const CodeRange> space_sep_ranges;  // Zs
extern const std::span<const CodeRange> punct_ranges;      // P*
extern const std::span<const CodeRange> other_ranges;      // Cc Cf Co Cn
extern const std::span<const CodeRange> mark_nsp_ranges;   // Mn
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
