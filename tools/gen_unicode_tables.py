#!/usr/bin/env python3
"""Generates src/tokenizer/unicode_tables.cpp: the Unicode data the tokenizers need.

Source of truth: Python's `unicodedata` module (run with /usr/bin/python3; its Unicode
version is written into the generated file). Only what the tokenizers use is emitted:

  letter      \\p{L}  = Lu Ll Lt Lm Lo        (GPT-2 pre-tokenisation regex)
  number      \\p{N}  = Nd Nl No              (GPT-2 pre-tokenisation regex)
  space_sep   Zs                               (JS \\s and BERT whitespace are built on it)
  punct       P*     = Pc Pd Ps Pe Pi Pf Po  (BERT punctuation, plus ASCII symbols in C++)
  other       Cc Cf Co Cn                      (BERT "control": removed by clean_text)
  mark_nsp    Mn                               (removed after NFD by strip_accents)
  ccc         canonical combining class != 0  (canonical ordering step of NFD)
  decomp      full canonical decomposition    (NFD; Hangul syllables are arithmetic in C++)
  lower       simple lowercase as (lo, hi, delta, stride) runs
  category    general category of every assigned code point, as runs (Cn omitted):
              the regex matcher's \\p{..} classes
  kdecomp     full compatibility decomposition where it differs from the canonical one (NFKD)
  compose     canonical composition pairs (first, second) -> composed, without the
              composition exclusions (NFC, NFKC); derived as "NFC keeps the composed char"

Usage:  /usr/bin/python3 tools/gen_unicode_tables.py > src/tokenizer/unicode_tables.cpp
"""
import sys
import unicodedata

MAX_CP = 0x110000
SURROGATES = range(0xD800, 0xE000)
HANGUL_FIRST, HANGUL_LAST = 0xAC00, 0xD7A3


def ranges_where(pred):
    """Maximal [lo, hi] runs of code points for which pred(cp) holds."""
    out, start = [], None
    for cp in range(MAX_CP + 1):
        ok = cp < MAX_CP and cp not in SURROGATES and pred(cp)
        if ok and start is None:
            start = cp
        elif not ok and start is not None:
            out.append((start, cp - 1))
            start = None
    return out


def cat(cp):
    return unicodedata.category(chr(cp))


def emit_ranges(name, ranges, out):
    out.append(f"const CodeRange {name}[] = {{  // {len(ranges)} runs")
    row = []
    for lo, hi in ranges:
        row.append(f"{{0x{lo:X},0x{hi:X}}}")
        if len(row) == 6:
            out.append("  " + ",".join(row) + ",")
            row = []
    if row:
        out.append("  " + ",".join(row) + ",")
    out.append("};")
    out.append(f"const std::span<const CodeRange> {name}_ranges({name});")
    out.append("")


def ccc_runs():
    runs = []
    for cp in range(MAX_CP):
        if cp in SURROGATES:
            continue
        c = unicodedata.combining(chr(cp))
        if not c:
            continue
        if runs and runs[-1][1] == cp - 1 and runs[-1][2] == c:
            runs[-1][1] = cp
        else:
            runs.append([cp, cp, c])
    return runs


def full_decomposition(cp):
    """Recursive canonical decomposition (what NFD does before reordering)."""
    d = unicodedata.decomposition(chr(cp))
    if not d or d.startswith("<"):  # none, or a compatibility mapping (NFKD only)
        return [cp]
    out = []
    for part in d.split():
        out.extend(full_decomposition(int(part, 16)))
    return out


def lower_runs():
    """Simple lowercase mappings grouped into runs of equal delta and stride.

    A run (lo, hi, delta, stride) maps cp -> cp + delta for cp = lo, lo+stride, ..., hi.
    U+0130 (capital I with dot) lowercases to two code points; it is handled in C++."""
    pairs = []
    for cp in range(MAX_CP):
        if cp in SURROGATES:
            continue
        low = chr(cp).lower()
        if len(low) != 1:
            assert cp == 0x130, hex(cp)  # the only multi-code-point lowercase
            continue
        if ord(low) != cp:
            pairs.append((cp, ord(low) - cp))
    runs = []
    for cp, delta in pairs:
        if runs:
            lo, hi, d, stride = runs[-1]
            step = cp - hi
            if d == delta and (stride == 0 and step in (1, 2) or step == stride):
                runs[-1] = [lo, cp, d, step]
                continue
        runs.append([cp, cp, delta, 0])
    return [(lo, hi, d, s if s else 1) for lo, hi, d, s in runs]


CATEGORIES = ["Cn", "Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl", "No", "Pc", "Pd", "Ps",
              "Pe", "Pi", "Pf", "Po", "Sm", "Sc", "Sk", "So", "Zs", "Zl", "Zp", "Cc", "Cf", "Cs", "Co"]


def category_runs():
    runs = []
    for cp in range(MAX_CP):
        c = cat(cp)
        if c == "Cn":
            continue
        k = CATEGORIES.index(c)
        if runs and runs[-1][1] == cp - 1 and runs[-1][2] == k:
            runs[-1][1] = cp
        else:
            runs.append([cp, cp, k])
    return runs


def full_compat_decomposition(cp):
    """Recursive compatibility decomposition (NFKD before reordering)."""
    d = unicodedata.decomposition(chr(cp))
    if not d:
        return [cp]
    out = []
    for part in d.split():
        if part.startswith("<"):
            continue
        out.extend(full_compat_decomposition(int(part, 16)))
    return out


def composition_pairs():
    pairs = []
    for cp in range(MAX_CP):
        if cp in SURROGATES or HANGUL_FIRST <= cp <= HANGUL_LAST:
            continue
        d = unicodedata.decomposition(chr(cp))
        if not d or d.startswith("<"):
            continue
        parts = [int(x, 16) for x in d.split()]
        # Singletons and excluded characters never come back from NFC.
        if len(parts) == 2 and unicodedata.normalize("NFC", chr(cp)) == chr(cp):
            pairs.append((parts[0], parts[1], cp))
    return sorted(pairs)


def emit_decomp_table(name, entries, pool, out):
    out.append(f"const uint32_t {name}_pool[] = {{  // {len(pool)} code points")
    for i in range(0, len(pool), 12):
        out.append("  " + ",".join(f"0x{c:X}" for c in pool[i:i + 12]) + ",")
    out.append("};")
    out.append(f"const Decomposition {name}[] = {{  // {len(entries)} code points")
    for i in range(0, len(entries), 6):
        out.append("  " + ",".join(f"{{0x{a:X},{b},{c}}}" for a, b, c in entries[i:i + 6]) + ",")
    out.append("};")


def main():
    out = [
        "// GENERATED by tools/gen_unicode_tables.py from Python's unicodedata "
        f"(Unicode {unicodedata.unidata_version}). Do not edit by hand.",
        "// Sorted, non-overlapping code point tables; unicode.cpp searches them.",
        '#include "tokenizer/unicode_tables.h"',
        "",
        "namespace tfp::unicode_tables {",
        "",
        f'const char* const kUnicodeVersion = "{unicodedata.unidata_version}";',
        "",
    ]
    emit_ranges("letter", ranges_where(lambda c: cat(c)[0] == "L"), out)
    emit_ranges("number", ranges_where(lambda c: cat(c)[0] == "N"), out)
    emit_ranges("space_sep", ranges_where(lambda c: cat(c) == "Zs"), out)
    emit_ranges("punct", ranges_where(lambda c: cat(c)[0] == "P"), out)
    emit_ranges("other", ranges_where(lambda c: cat(c) in ("Cc", "Cf", "Co", "Cn")), out)
    emit_ranges("mark_nsp", ranges_where(lambda c: cat(c) == "Mn"), out)

    runs = ccc_runs()
    out.append(f"const CombiningRun ccc[] = {{  // {len(runs)} runs")
    for i in range(0, len(runs), 5):
        out.append("  " + ",".join(f"{{0x{a:X},0x{b:X},{c}}}" for a, b, c in runs[i:i + 5]) + ",")
    out.append("};")
    out.append("const std::span<const CombiningRun> ccc_runs(ccc);")
    out.append("")

    # Decompositions: entry (cp, offset, length) into one pool of code points.
    entries, pool = [], []
    for cp in range(MAX_CP):
        if cp in SURROGATES or HANGUL_FIRST <= cp <= HANGUL_LAST:
            continue
        full = full_decomposition(cp)
        if full != [cp]:
            entries.append((cp, len(pool), len(full)))
            pool.extend(full)
    out.append(f"const uint32_t decomp_pool[] = {{  // {len(pool)} code points")
    for i in range(0, len(pool), 12):
        out.append("  " + ",".join(f"0x{c:X}" for c in pool[i:i + 12]) + ",")
    out.append("};")
    out.append(f"const Decomposition decomp[] = {{  // {len(entries)} code points")
    for i in range(0, len(entries), 6):
        out.append("  " + ",".join(f"{{0x{a:X},{b},{c}}}" for a, b, c in entries[i:i + 6]) + ",")
    out.append("};")
    out.append("const std::span<const uint32_t> decomp_pool_cps(decomp_pool);")
    out.append("const std::span<const Decomposition> decompositions(decomp);")
    out.append("")

    low = lower_runs()
    out.append(f"const LowerRun lower[] = {{  // {len(low)} runs")
    for i in range(0, len(low), 4):
        out.append("  " + ",".join(f"{{0x{a:X},0x{b:X},{d},{s}}}" for a, b, d, s in low[i:i + 4]) + ",")
    out.append("};")
    out.append("const std::span<const LowerRun> lower_runs(lower);")
    out.append("")
    cats = category_runs()
    out.append("const char* const category_names[] = {" + ",".join(f'"{c}"' for c in CATEGORIES) + "};")
    out.append(f"const CategoryRun category[] = {{  // {len(cats)} runs; index into category_names")
    for i in range(0, len(cats), 5):
        out.append("  " + ",".join(f"{{0x{a:X},0x{b:X},{c}}}" for a, b, c in cats[i:i + 5]) + ",")
    out.append("};")
    out.append("const std::span<const char* const> category_name_list(category_names);")
    out.append("const std::span<const CategoryRun> category_runs(category);")
    out.append("")

    kentries, kpool = [], []
    for cp in range(MAX_CP):
        if cp in SURROGATES or HANGUL_FIRST <= cp <= HANGUL_LAST:
            continue
        full = full_compat_decomposition(cp)
        if full != full_decomposition(cp):
            kentries.append((cp, len(kpool), len(full)))
            kpool.extend(full)
    emit_decomp_table("kdecomp", kentries, kpool, out)
    out.append("const std::span<const uint32_t> kdecomp_pool_cps(kdecomp_pool);")
    out.append("const std::span<const Decomposition> compat_decompositions(kdecomp);")
    out.append("")

    pairs = composition_pairs()
    out.append(f"const CompositionPair compose[] = {{  // {len(pairs)} pairs, sorted")
    for i in range(0, len(pairs), 5):
        out.append("  " + ",".join(f"{{0x{a:X},0x{b:X},0x{c:X}}}" for a, b, c in pairs[i:i + 5]) + ",")
    out.append("};")
    out.append("const std::span<const CompositionPair> composition_pairs(compose);")
    out.append("")
    out.append("}  // namespace tfp::unicode_tables")
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
