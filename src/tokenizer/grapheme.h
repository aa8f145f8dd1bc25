// Extended grapheme clusters ("user-perceived characters", UAX #29), as far as the
// Precompiled normalizer needs them: it looks a whole cluster up before its characters.
//
// Approximate: the Grapheme_Cluster_Break and Extended_Pictographic properties are not in
// our tables, so they are derived from the general categories (Unicode 16.0, the version of
// the unicode-segmentation crate HF's Precompiled uses):
//   Control      Cc, Zl, Zp, and Cf except ZWJ/ZWNJ          (a cluster alone; CR LF stays one)
//   Extend       Mn, Me, ZWNJ, U+FF9E..FF9F, emoji modifiers U+1F3FB..1F3FF, tags E0020..E007F
//   SpacingMark  Mc
//   Pictographic So at U+00A9/U+00AE and from U+2000 on, and U+1F000..1FAFF
//   Hangul L V T LV LVT (arithmetically), regional indicator pairs, ZWJ sequences.
// Prepend characters (GB9b) are not handled.
#pragma once
#include <cstddef>
#include <string_view>

namespace tfp {

// The end (exclusive) of the cluster that starts at `i` (i < text.size()).
size_t grapheme_end(std::u32string_view text, size_t i);

}  // namespace tfp
