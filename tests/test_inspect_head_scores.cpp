// Head finders (inspect/head_scores.h) and their C API.
// Oracles: hand-built maps of an ideal induction head, duplicate-token head and a
// previous-token/sink mix on a 7-token repeated sequence (scores derived in comments);
// TransformerLens's detect_head "mul" formula re-implemented here from its definition
// in double (the detection patterns built as head_detector.py builds them: an eye
// shifted below the diagonal; an equality mask with its diagonal zeroed, tril; that mask
// rolled one column right with column 0 zeroed, tril; then the exclusions applied to a
// copy of the map and sum(A * P) / sum(A)), on random causal maps over tokens drawn
// from a small vocabulary so that the patterns have collisions beyond the repeat.
// Tolerance: 1e-6 absolute (float32 results of double sums over <= 400 terms).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "api/tfp_inspect_api.h"
#include "test_attention_maps.h"
#include "inspect/head_scores.h"

using namespace tfp;
using inspect::attention_head_scores;

namespace {

// Three heads on tokens [9, 3, 4, 5, 3, 4, 5] (prefix, R = 3, repeat), T = 7:
//   head 0 induction: rows 0..3 all on key 0, rows 4..6 on i − 2 (the token after the
//          earlier occurrence: 4 → 2, 5 → 3, 6 → 4)
//   head 1 duplicate: rows 0..3 on themselves, rows 4..6 on i − 3
//   head 2 rows i >= 1: 0.5 on key 0 and 0.5 on i − 1 (row 1: both are key 0, so 1.0)
Tensor hand_maps() {
  const int T = 7;
  Tensor p({3, T, T});
  auto at = [&](int h, int i, int j) -> float& { return p.ptr()[(h * T + i) * T + j]; };
  for (int i = 0; i < T; ++i) {
    at(0, i, i < 4 ? 0 : i - 2) = 1;
    at(1, i, i < 4 ? i : i - 3) = 1;
    if (i == 0) at(2, 0, 0) = 1;
    else { at(2, i, 0) += 0.5f; at(2, i, i - 1) += 0.5f; }
  }
  return p;
}
const int32_t kHandTokens[7] = {9, 3, 4, 5, 3, 4, 5};

// TransformerLens's detect_head with error_measure "mul", from its definition.
double tl_score(const Tensor& p, int h, const std::vector<int32_t>& tok, int kind, bool exclude_bos,
                bool exclude_current) {
  const int T = static_cast<int>(tok.size());
  std::vector<std::vector<double>> dup(T, std::vector<double>(T, 0)), pat(T, std::vector<double>(T, 0));
  for (int i = 0; i < T; ++i)
    for (int j = 0; j < T; ++j) dup[i][j] = (i != j && tok[i] == tok[j]) ? 1 : 0;  // eq mask, diagonal 0
  for (int i = 0; i < T; ++i)
    for (int j = 0; j < T; ++j) {
      double v = 0;
      if (kind == 0) v = (j == i - 1) ? 1 : 0;              // eye(T − 1) at [1:, :−1]
      if (kind == 1) v = dup[i][j];
      if (kind == 2) v = j == 0 ? 0 : dup[i][(j - 1 + T) % T];  // roll right, column 0 zeroed
      pat[i][j] = j <= i ? v : 0;                            // tril
    }
  double num = 0, den = 0;
  for (int i = 0; i < T; ++i)
    for (int j = 0; j < T; ++j) {
      double a = p.data[static_cast<size_t>((h * T + i) * T + j)];
      if (exclude_bos && j == 0) a = 0;
      if (exclude_current && i == j) a = 0;
      num += a * pat[i][j];
      den += a;
    }
  return num / den;
}

Tensor causal_probs(int H, int T, unsigned seed) { return testing::causal_probs(H, T, seed, 4.0); }

}  // namespace

TEST_CASE("head scores: hand-built induction, duplicate and previous/sink heads") {
  const Tensor p = hand_maps();
  const Tensor s = attention_head_scores(p.view(), kHandTokens, 3);
  REQUIRE(s.shape == Shape{3, inspect::kHeadScoreCount});
  // Head 0. detect_head: induction rows 4, 5, 6 put 1 on their pattern key (tokens[j − 1]
  // = tokens[i] at j = 2, 3, 4) out of Σ A = 7 rows → 3/7; previous: only row 1 (its key
  // 0 is i − 1) → 1/7; duplicate 0. Plain: induction 1, duplicate 0, previous 0.
  const float* h0 = s.row(0);
  CHECK(h0[inspect::kInductionTL] == doctest::Approx(3.0 / 7).epsilon(1e-6));
  CHECK(h0[inspect::kPreviousTL] == doctest::Approx(1.0 / 7).epsilon(1e-6));
  CHECK(h0[inspect::kDuplicateTL] == 0.0f);
  CHECK(h0[inspect::kInduction] == doctest::Approx(1.0));
  CHECK(h0[inspect::kDuplicate] == 0.0f);
  CHECK(h0[inspect::kPrevious] == 0.0f);
  // Head 1: duplicate 3/7 (detect_head), 1 (plain); nothing else.
  const float* h1 = s.row(1);
  CHECK(h1[inspect::kDuplicateTL] == doctest::Approx(3.0 / 7).epsilon(1e-6));
  CHECK(h1[inspect::kDuplicate] == doctest::Approx(1.0));
  CHECK(h1[inspect::kInductionTL] == 0.0f);
  CHECK(h1[inspect::kPreviousTL] == 0.0f);
  CHECK(h1[inspect::kInduction] == 0.0f);
  CHECK(h1[inspect::kPrevious] == 0.0f);
  // Head 2: detect_head previous (1 + 5 × 0.5) / 7 = 0.5; plain previous over rows 4..6
  // 0.5; no duplicate or induction key gets anything.
  const float* h2 = s.row(2);
  CHECK(h2[inspect::kPreviousTL] == doctest::Approx(0.5).epsilon(1e-6));
  CHECK(h2[inspect::kPrevious] == doctest::Approx(0.5).epsilon(1e-6));
  CHECK(h2[inspect::kDuplicateTL] == 0.0f);
  CHECK(h2[inspect::kInductionTL] == 0.0f);
  CHECK(h2[inspect::kDuplicate] == 0.0f);
  CHECK(h2[inspect::kInduction] == 0.0f);

  // exclude_bos: column 0 zeroed. Head 0 keeps only rows 4..6 (Σ A = 3): induction 1,
  // previous 0. Head 2: row 1 loses everything, rows 2..6 keep their 0.5 on i − 1 (Σ A =
  // 2.5), all of it previous-token → 1. exclude_current: head 1 keeps rows 4..6 →
  // duplicate 1.
  inspect::HeadScoreOptions bos;
  bos.exclude_bos = true;
  const Tensor sb = attention_head_scores(p.view(), kHandTokens, 3, bos);
  CHECK(sb.row(0)[inspect::kInductionTL] == doctest::Approx(1.0));
  CHECK(sb.row(0)[inspect::kPreviousTL] == 0.0f);
  CHECK(sb.row(2)[inspect::kPreviousTL] == doctest::Approx(1.0));
  CHECK(sb.row(0)[inspect::kInduction] == doctest::Approx(1.0));  // plain scores ignore the flags
  inspect::HeadScoreOptions cur;
  cur.exclude_current = true;
  const Tensor sc = attention_head_scores(p.view(), kHandTokens, 3, cur);
  CHECK(sc.row(1)[inspect::kDuplicateTL] == doctest::Approx(1.0));
  // A map that the exclusions leave empty: NaN, as 0/0 in TransformerLens.
  Tensor one({1, 2, 2});
  one.ptr()[0] = 1;
  one.ptr()[2] = 1;  // rows 0 and 1 both on key 0
  const int32_t two[2] = {7, 7};
  const Tensor sn = attention_head_scores(one.view(), two, 1, bos);
  CHECK(std::isnan(sn.row(0)[inspect::kPreviousTL]));
  CHECK(sn.row(0)[inspect::kDuplicate] == doctest::Approx(1.0));  // row 1 on key 0, its earlier occurrence
}

TEST_CASE("head scores: TransformerLens's detect_head formula and the plain definitions on random maps") {
  const int R = 9, T = 2 * R + 3, H = 4;  // 2 leading tokens: the plain scores read the last 2R only
  const Tensor p = causal_probs(H, T, 12345u);
  std::vector<int32_t> tok(T);
  unsigned s = 777u;
  for (int i = 0; i < R + 2; ++i) { s = s * 1103515245u + 12345u; tok[i] = static_cast<int32_t>((s >> 16) % 5); }
  for (int i = R + 2; i < T; ++i) tok[i] = tok[i - R];
  for (int flags = 0; flags < 4; ++flags) {
    inspect::HeadScoreOptions o;
    o.exclude_bos = (flags & 1) != 0;
    o.exclude_current = (flags & 2) != 0;
    const Tensor sc = attention_head_scores(p.view(), tok.data(), R, o);
    for (int h = 0; h < H; ++h) {
      for (int kind = 0; kind < 3; ++kind)
        CHECK(sc.row(h)[kind] == doctest::Approx(tl_score(p, h, tok, kind, o.exclude_bos, o.exclude_current)).epsilon(1e-6));
      double prev = 0, dup = 0, ind = 0;
      for (int i = T - R; i < T; ++i) {
        const float* row = p.data.data() + (h * T + i) * T;
        prev += row[i - 1];
        dup += row[i - R];
        ind += row[i - R + 1];
      }
      CHECK(sc.row(h)[inspect::kPrevious] == doctest::Approx(prev / R).epsilon(1e-6));
      CHECK(sc.row(h)[inspect::kDuplicate] == doctest::Approx(dup / R).epsilon(1e-6));
      CHECK(sc.row(h)[inspect::kInduction] == doctest::Approx(ind / R).epsilon(1e-6));
    }
  }
  // The C API writes the same numbers.
  std::vector<float> out(static_cast<size_t>(H * inspect::kHeadScoreCount));
  REQUIRE(tfp_attention_head_scores(p.data.data(), H, T, tok.data(), R, 3, out.data()) == 0);
  inspect::HeadScoreOptions both;
  both.exclude_bos = both.exclude_current = true;
  const Tensor ref = attention_head_scores(p.view(), tok.data(), R, both);
  for (size_t i = 0; i < out.size(); ++i) CHECK(out[i] == ref.data[i]);
}

TEST_CASE("head scores: errors") {
  const Tensor p = hand_maps();
  CHECK_THROWS_WITH_AS(attention_head_scores(p.view(), kHandTokens, 4),
                       "attention_head_scores: repeat 4 does not fit T = 7 (need 1 <= R and 2R <= T)", Error);
  CHECK_THROWS_WITH_AS(attention_head_scores(TensorView(p.data.data(), Shape{3, 7, 6}), kHandTokens, 3),
                       "attention_head_scores: probs has shape [3, 7, 6], expected [H, T, T]", Error);
  std::vector<float> out(18);
  CHECK(tfp_attention_head_scores(p.data.data(), 3, 7, kHandTokens, 0, 0, out.data()) != 0);
  CHECK(std::string(tfp_last_error()) ==
        "tfp_attention_head_scores: repeat 0 does not fit T=7 (need 1 <= repeat, 2 * repeat <= T)");
  CHECK(tfp_attention_head_scores(p.data.data(), 3, 7, kHandTokens, 3, 4, out.data()) != 0);
  CHECK(tfp_attention_head_scores(nullptr, 3, 7, kHandTokens, 3, 0, out.data()) != 0);
}
