// Parameter and FLOP counts of a multi-head self-attention block (nn/attention_cost.h)
// and their C API (tfp_learn_mha_cost), for the Learn chapter "Multi-head attention".
// Oracles:
//  - hand derivations in the comments (small sizes);
//  - parameters: the element counts of the attention tensors of the shipped brown-gpt
//    checkpoint (dec.0.attn.qkv.* and dec.0.attn.out.*, C = 128, H = 4), read from its
//    safetensors header by the engine's reader;
//  - FLOPs: a naive multi-head attention written here with a counter of its multiplies
//    and adds (each (m,k)·(k,n) product's k multiplies + k adds per output), whose total
//    must equal the engine's count for every (C, H, T) tried.
// Tolerance: exact (integers; doubles are exact below 2^53).
#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include "api/tfp_learn_multihead_api.h"
#include "io/safetensors.h"
#include "nn/attention_cost.h"

using namespace tfp;

namespace {

std::string repo_path(const std::string& rel) { return std::string(TFP_FIXTURES_DIR) + "/../../" + rel; }

// Multiplies and adds of one (m, k)·(k, n) product done the naive way: every output is a
// sum of k products, accumulated from 0 (k multiplies, k adds).
int64_t counted_matmul(int64_t m, int64_t k, int64_t n) {
  int64_t ops = 0;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t p = 0; p < k; ++p) ops += 2;
  return ops;
}

// The block's matrix products, head by head, as written in attention_cost.h's legend.
int64_t counted_block(int64_t C, int64_t H, int64_t T) {
  const int64_t D = C / H;
  int64_t ops = 3 * counted_matmul(T, C, C);          // Q, K, V
  for (int64_t h = 0; h < H; ++h) {
    ops += counted_matmul(T, D, T);                    // Q_h·K_hᵀ
    ops += counted_matmul(T, T, D);                    // A_h·V_h
  }
  return ops + counted_matmul(T, C, C);                // concat·W_Oᵀ
}

}  // namespace

TEST_CASE("multi-head cost: hand-derived counts for C = 4, H = 2, T = 3") {
  const nn::MultiHeadCost c = nn::multi_head_attention_cost(4, 2, 3, true);
  CHECK(c.head_dim == 2);                 // 4 / 2
  CHECK(c.params_q == 20);                // 4·4 weights + 4 biases
  CHECK(c.params_out == 20);
  CHECK(c.params_total == 80);            // 4 projections × 20
  CHECK(c.flops_qkv == 288);              // 3 · 2·3·4·4 = 3 · 96
  CHECK(c.flops_scores == 72);            // 2 heads · 2·3·2·3 = 2 · 36 = 2·T²·C
  CHECK(c.flops_mix == 72);               // 2 heads · 2·3·3·2
  CHECK(c.flops_out == 96);               // 2·3·4·4
  CHECK(c.flops_total == 528);            // 288 + 72 + 72 + 96 = 8·3·16 + 4·9·4
  CHECK(c.map_entries == 18);             // 2 maps of 3×3
  const nn::MultiHeadCost nb = nn::multi_head_attention_cost(4, 2, 3, false);
  CHECK(nb.params_total == 64);           // 4 · 4·4, no biases
  CHECK(nb.flops_total == 528);           // biases are outside the matrix-product count
}

TEST_CASE("multi-head cost: parameters and product FLOPs do not depend on the number of heads") {
  const nn::MultiHeadCost one = nn::multi_head_attention_cost(512, 1, 100, true);
  for (int H : {2, 4, 8, 16, 512}) {
    const nn::MultiHeadCost c = nn::multi_head_attention_cost(512, H, 100, true);
    CHECK(c.params_total == one.params_total);
    CHECK(c.flops_total == one.flops_total);
    CHECK(c.map_entries == one.map_entries * H);  // H maps of T×T instead of one
    CHECK(c.head_dim * H == 512);
  }
  CHECK(one.params_total == 4 * 512 * 512 + 4 * 512);  // 1,050,624
}

TEST_CASE("multi-head cost: FLOPs equal a naive block's counted multiplies and adds") {
  for (int C : {4, 8, 12})
    for (int H : {1, 2, 4})
      for (int T : {1, 3, 7}) {
        if (C % H != 0) continue;
        CAPTURE(C); CAPTURE(H); CAPTURE(T);
        CHECK(nn::multi_head_attention_cost(C, H, T, true).flops_total == counted_block(C, H, T));
      }
}

TEST_CASE("multi-head cost: parameters equal brown-gpt's attention tensors") {
  const io::SafeTensors st = io::SafeTensors::load(repo_path("models/brown-gpt/model.safetensors"));
  int64_t stored = 0;
  for (const char* name : {"dec.0.attn.qkv.weight", "dec.0.attn.qkv.bias", "dec.0.attn.out.weight", "dec.0.attn.out.bias"}) {
    int64_t n = 1;
    for (int64_t d : st.entry(name).shape) n *= d;
    stored += n;
  }
  // brown-gpt: d_model 128, 4 heads, fused (384, 128) qkv with (384) bias, (128, 128) out.
  CHECK(stored == 66048);  // 3·128·128 + 384 + 128·128 + 128
  CHECK(nn::multi_head_attention_cost(128, 4, 1, true).params_total == stored);
}

TEST_CASE("tfp_learn_mha_cost: values in order, and bad arguments named") {
  double out[TFP_LEARN_MHA_COST_VALUES] = {};
  REQUIRE(tfp_learn_mha_cost(4, 2, 3, 1, out) == TFP_OK);
  const double want[TFP_LEARN_MHA_COST_VALUES] = {2, 20, 20, 20, 20, 80, 288, 72, 72, 96, 528, 18};
  for (int i = 0; i < TFP_LEARN_MHA_COST_VALUES; ++i) CHECK(out[i] == want[i]);
  // The largest sizes allowed stay exact: 8·T·C² + 4·T²·C at C = 16384, T = 65536.
  REQUIRE(tfp_learn_mha_cost(16384, 16, 65536, 1, out) == TFP_OK);
  CHECK(out[10] == 8.0 * 65536 * 16384.0 * 16384 + 4.0 * 65536 * 65536 * 16384);

  CHECK(tfp_learn_mha_cost(6, 4, 3, 1, out) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(tfp_last_error()) ==
        "tfp_learn_mha_cost: heads (4) must divide d_model (6): each head takes d_model/heads columns");
  CHECK(tfp_learn_mha_cost(0, 1, 3, 1, out) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(tfp_last_error()) == "tfp_learn_mha_cost: d_model must be in [1, 16384], got 0");
  CHECK(tfp_learn_mha_cost(8, 2, 70000, 1, out) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(tfp_last_error()) == "tfp_learn_mha_cost: tokens must be in [1, 65536], got 70000");
  CHECK(tfp_learn_mha_cost(8, 16, 3, 1, out) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(tfp_last_error()) == "tfp_learn_mha_cost: heads must be in [1, d_model = 8], got 16");
  CHECK(tfp_learn_mha_cost(8, 2, 3, 2, out) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(tfp_learn_mha_cost(8, 2, 3, 1, nullptr) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(tfp_last_error()) == "tfp_learn_mha_cost: out is NULL");
  CHECK_THROWS_WITH_AS(nn::multi_head_attention_cost(6, 4, 3, true),
                       "multi_head_attention_cost: heads (4) must divide d_model (6): each head takes d_model/heads columns",
                       tfp::Error);
}
