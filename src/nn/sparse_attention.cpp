// Sparse self-attention (see sparse_attention.h): per head and per query, list the allowed
// keys, score only those, softmax the short row, and mix only their values.
//
// Legend: H heads, T tokens, D key width, Dv value width, K keys of one query.
#include "nn/sparse_attention.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>

#include "kernels/kernels.h"

namespace tfp::nn {

namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// q·k over D floats. Eight independent partial sums (lanes), so the compiler keeps them
// in one vector register without reordering any single sum; D need not be a multiple
// of 8 (scalar tail).
float dot(const float* a, const float* b, int D) {
  float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int c = 0;
  for (; c + 8 <= D; c += 8)
    for (int l = 0; l < 8; ++l) acc[l] += a[c + l] * b[c + l];
  float s = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
  for (; c < D; ++c) s += a[c] * b[c];
  return s;
}

}  // namespace

void validate_sparse_pattern(const char* op, const SparsePattern& p) {
  TFP_CHECK(p.kind == SparseKind::window || p.kind == SparseKind::dilated || p.kind == SparseKind::global,
            op, ": unknown sparse pattern kind ", static_cast<int>(p.kind),
            " (0 window, 1 dilated, 2 global)");
  TFP_CHECK(p.window >= 0, op, ": window must be >= 0, got ", p.window);
  TFP_CHECK(p.dilation >= 1, op, ": dilation must be >= 1, got ", p.dilation);
  TFP_CHECK(p.n_global >= 0, op, ": global tokens must be >= 0, got ", p.n_global);
}

bool sparse_allowed(const SparsePattern& p, int i, int j) {
  if (p.causal && j > i) return false;
  const int64_t dist = std::abs(int64_t{i} - j);
  switch (p.kind) {
    case SparseKind::window: return dist <= p.window;
    case SparseKind::dilated: return dist <= int64_t{p.window} * p.dilation && dist % p.dilation == 0;
    case SparseKind::global: return dist <= p.window || i < p.n_global || j < p.n_global;
  }
  return false;
}

void sparse_keys(const SparsePattern& p, int i, int T, std::vector<int>& keys) {
  keys.clear();
  const int last = p.causal ? i : T - 1;  // the last key any pattern may allow
  switch (p.kind) {
    case SparseKind::window: {
      for (int j = std::max(0, i - p.window); j <= std::min(last, i + p.window); ++j) keys.push_back(j);
      return;
    }
    case SparseKind::dilated: {
      const int d = p.dilation;
      for (int m = std::min(p.window, i / d); m >= 1; --m) keys.push_back(i - m * d);
      keys.push_back(i);
      if (!p.causal)
        for (int m = 1; m <= p.window && int64_t{i} + int64_t{m} * d <= last; ++m) keys.push_back(i + m * d);
      return;
    }
    case SparseKind::global: {
      if (i < p.n_global) {  // a global query sees every key
        for (int j = 0; j <= last; ++j) keys.push_back(j);
        return;
      }
      const int g = std::min(p.n_global, T);
      const int lo = std::max(0, i - p.window), hi = std::min(last, i + p.window);
      for (int j = 0; j < std::min(g, lo); ++j) keys.push_back(j);  // globals before the window
      for (int j = lo; j <= hi; ++j) keys.push_back(j);
      return;
    }
  }
}

std::vector<uint8_t> sparse_pattern_matrix(const SparsePattern& p, int T) {
  validate_sparse_pattern("sparse_pattern_matrix", p);
  std::vector<uint8_t> m(static_cast<size_t>(T) * T, 0);
  std::vector<int> keys;
  for (int i = 0; i < T; ++i) {
    sparse_keys(p, i, T, keys);
    for (int j : keys) m[static_cast<size_t>(i) * T + j] = 1;
  }
  return m;
}

int64_t sparse_pair_count(const SparsePattern& p, int T) {
  validate_sparse_pattern("sparse_pair_count", p);
  int64_t n = 0;
  std::vector<int> keys;
  for (int i = 0; i < T; ++i) {
    sparse_keys(p, i, T, keys);
    n += static_cast<int64_t>(keys.size());
  }
  return n;
}

std::vector<int> sparse_reach(const SparsePattern& p, int T, int layers) {
  validate_sparse_pattern("sparse_reach", p);
  TFP_CHECK(layers >= 1, "sparse_reach: layers must be >= 1, got ", layers);
  const size_t n = static_cast<size_t>(T);
  std::vector<int> first(n * n, 0);
  std::vector<uint8_t> reach(n * n, 0), next(n * n, 0);  // after l layers: may j influence i?
  std::vector<int> keys;
  for (int l = 1; l <= layers; ++l) {
    for (int i = 0; i < T; ++i) {
      uint8_t* row = next.data() + size_t(i) * n;
      std::fill(row, row + n, uint8_t{0});
      sparse_keys(p, i, T, keys);
      for (int k : keys) {
        if (l == 1) { row[k] = 1; continue; }
        const uint8_t* via = reach.data() + size_t(k) * n;  // what reached k after l − 1 layers
        for (size_t j = 0; j < n; ++j) row[j] |= via[j];
      }
    }
    reach.swap(next);
    for (size_t e = 0; e < n * n; ++e)
      if (reach[e] && first[e] == 0) first[e] = l;
  }
  return first;
}

AttentionMask sparse_as_dense_mask(const SparsePattern& p, int T) {
  validate_sparse_pattern("sparse_as_dense_mask", p);
  AttentionMask mask;
  mask.additive = Tensor({int64_t{T}, int64_t{T}}, kNegInf);
  std::vector<int> keys;
  for (int i = 0; i < T; ++i) {
    sparse_keys(p, i, T, keys);
    for (int j : keys) mask.additive.data[static_cast<size_t>(i) * T + j] = 0.0f;
  }
  return mask;
}

AttentionResult sparse_attention(const TensorView& q,  // (H, T, D)
                                 const TensorView& k,  // (H, T, D)
                                 const TensorView& v,  // (H, T, Dv)
                                 const SparsePattern& p, float scale, bool need_probs) {
  const char* op = "sparse_attention";
  check_qkv_shapes(op, q, k, v);
  validate_sparse_pattern(op, p);
  const int64_t H = q.shape[0], T = q.shape[1], D = q.shape[2], Dv = v.shape[2];
  TFP_CHECK(k.shape[1] == T, op, ": self-attention only: q has ", T, " tokens, k has ", k.shape[1]);
  TFP_CHECK(H > 0 && T > 0 && D > 0 && Dv > 0, op, ": empty attention: q ", shape_str(q.shape),
            ", v ", shape_str(v.shape));
  TFP_CHECK(H * T * T <= INT_MAX || !need_probs, op, ": probs too large for T = ", T);
  TFP_CHECK(std::isfinite(scale), op, ": scale must be finite, got ", scale);

  AttentionResult r;
  r.out = Tensor({H, T, Dv});
  if (need_probs) r.probs = Tensor({H, T, T});
  std::vector<int> keys;
  std::vector<float> s;  // (K) one query's scores, then its weights
  for (int64_t h = 0; h < H; ++h) {
    const float* qh = q.data + h * T * D;
    const float* kh = k.data + h * T * D;
    const float* vh = v.data + h * T * Dv;
    for (int64_t i = 0; i < T; ++i) {
      sparse_keys(p, static_cast<int>(i), static_cast<int>(T), keys);
      const int K = static_cast<int>(keys.size());  // >= 1: every pattern keeps j = i
      s.resize(static_cast<size_t>(K));
      for (int a = 0; a < K; ++a) s[a] = scale * dot(qh + i * D, kh + int64_t{keys[a]} * D, static_cast<int>(D));
      kernels::softmax_rows(s.data(), 1, K, K);  // subtracts the row max first
      float* o = r.out.ptr() + (h * T + i) * Dv;   // (Dv), zero-initialised
      for (int a = 0; a < K; ++a) {
        const float w = s[a];
        const float* vj = vh + int64_t{keys[a]} * Dv;
        for (int64_t c = 0; c < Dv; ++c) o[c] += w * vj[c];
      }
      if (need_probs) {
        float* pr = r.probs.ptr() + (h * T + i) * T;
        for (int a = 0; a < K; ++a) pr[keys[a]] = s[a];
      }
    }
  }
  return r;
}

}  // namespace tfp::nn
