// Bad input gives a clear tfp::Error naming the operation and the sizes — never a crash:
// heads not dividing d_model, zero-length sequences, wrong mask sizes, out-of-range ids,
// missing / mis-shaped weights (reported by role name), KV cache misuse.
#include <doctest/doctest.h>

#include "model/kv_cache.h"
#include "model/transformer.h"
#include "nn/transformer_block.h"

using namespace tfp;

namespace {
model::ModelConfig small_gpt() {
  model::ModelConfig c;
  c.architecture = model::Architecture::decoder_only;
  c.d_model = 8; c.n_heads = 2; c.d_ff = 16; c.vocab_size = 10; c.max_positions = 6;
  c.n_decoder_layers = 1;
  c.norm_first = true;
  c.decoder_final_norm = true;
  return c;
}
model::ModelConfig small_seq2seq() {
  model::ModelConfig c;
  c.architecture = model::Architecture::encoder_decoder;
  c.d_model = 8; c.n_heads = 2; c.d_ff = 16;
  c.n_encoder_layers = 1; c.n_decoder_layers = 1;
  c.has_embeddings = false;
  c.positional = model::Positional::none;
  c.lm_head = false;
  return c;
}
}  // namespace

TEST_CASE("model errors: heads must divide d_model") {
  model::ModelConfig c = small_gpt();
  c.n_heads = 3;
  CHECK_THROWS_WITH_AS(model::check_config(c), "model config: n_heads 3 does not divide d_model 8",
                       Error);
  CHECK_THROWS_AS(model::random_weights(c, 1), Error);
  // The layer itself checks too.
  const model::ModelConfig ok = small_gpt();
  const model::ModelWeights w = model::random_weights(ok, 1);
  const Tensor x({3, 8}, 0.5f);
  nn::LayerOptions opt{3, nn::Activation::relu, true};
  CHECK_THROWS_WITH_AS(nn::decoder_layer(x.view(), {}, w.decoder_layers[0], opt, {}, {}),
                       "transformer_block: 3 heads do not divide model width 8", Error);
}

TEST_CASE("model errors: zero-length sequences") {
  const model::ModelConfig c = small_gpt();
  const model::ModelWeights w = model::random_weights(c, 1);
  CHECK_THROWS_WITH_AS(model::forward_decoder_only(c, w, std::vector<int32_t>{}),
                       "embed: empty input (0 tokens)", Error);
  const model::ModelConfig s = small_seq2seq();
  const model::ModelWeights ws = model::random_weights(s, 2);
  const Tensor src({0, 8}), tgt({2, 8}, 0.1f);
  CHECK_THROWS_WITH_AS(model::transformer_forward(s, ws, src.view(), tgt.view(), {}),
                       "transformer_encoder_forward: src is an empty sequence [0, 8] (needs at "
                       "least one token)", Error);
  nn::LayerOptions opt{2, nn::Activation::relu, false};
  CHECK_THROWS_WITH_AS(nn::encoder_layer(src.view(), ws.encoder_layers[0], opt, {}),
                       "transformer_block: empty input sequence [0, 8] (needs at least one token)",
                       Error);
}

TEST_CASE("model errors: wrong mask sizes and input widths") {
  const model::ModelConfig s = small_seq2seq();
  const model::ModelWeights w = model::random_weights(s, 3);
  const Tensor src({5, 8}, 0.2f), tgt({3, 8}, 0.1f);
  model::TransformerMasks m;
  m.src_key_padding = {0, 0, 1};  // 3 entries for 5 source tokens
  CHECK_THROWS_WITH_AS(model::transformer_forward(s, w, src.view(), tgt.view(), m),
                       "encoder: source key padding has 3 entries, expected 5", Error);
  m = {};
  m.tgt_mask = Tensor({3, 4});
  CHECK_THROWS_WITH_AS(model::transformer_forward(s, w, src.view(), tgt.view(), m),
                       "decoder: target mask has shape [3, 4], expected [3, 3] or [H, 3, 3]",
                       Error);
  m = {};
  m.memory_key_padding = {0, 0, 0, 0, 0, 0};
  CHECK_THROWS_WITH_AS(model::transformer_forward(s, w, src.view(), tgt.view(), m),
                       "decoder: memory key padding has 6 entries, expected 5", Error);
  const Tensor wide({5, 9}, 0.2f);
  CHECK_THROWS_WITH_AS(model::transformer_forward(s, w, wide.view(), tgt.view(), {}),
                       "transformer_encoder_forward: src has shape [5, 9], expected (tokens, 8)",
                       Error);
  CHECK_THROWS_AS(model::bool_mask({1, 0, 1}, 2, 2), Error);
}

TEST_CASE("model errors: ids, positions, token types") {
  const model::ModelConfig c = small_gpt();
  const model::ModelWeights w = model::random_weights(c, 4);
  CHECK_THROWS_WITH_AS(model::forward_decoder_only(c, w, std::vector<int32_t>{1, 10}),
                       "embed: token id 10 at position 1 is out of range [0, 10)", Error);
  CHECK_THROWS_WITH_AS(model::forward_decoder_only(c, w, std::vector<int32_t>(7, 1)),
                       "embed: positions 0..6 exceed the context length max_positions = 6",
                       Error);
  CHECK_THROWS_WITH_AS(model::forward_encoder_only(c, w, std::vector<int32_t>{1}),
                       "forward_encoder_only: needs an encoder_only model, this one is "
                       "decoder_only", Error);
}

TEST_CASE("model errors: missing and mis-shaped weights are listed by role") {
  const model::ModelConfig c = small_gpt();
  model::ModelWeights w = model::random_weights(c, 5);
  CHECK(model::weight_problems(c, w).empty());
  const Tensor wrong({8, 9});
  w.decoder_layers[0].ffn.fc1.weight = wrong.view();   // expected (16, 8)
  w.decoder_layers[0].norm_attn.gamma = TensorView{};  // missing
  w.decoder_layers[0].attn.qkv.bias = TensorView{};    // optional: not a problem
  const std::vector<std::string> p = model::weight_problems(c, w);
  REQUIRE(p.size() == 2);
  CHECK(p[0] == "dec.0.norm_attn.gamma: missing");
  CHECK(p[1] == "dec.0.ffn.fc1.weight: shape [8, 9], expected [16, 8]");
  CHECK_THROWS_WITH_AS(model::validate_weights(c, w),
                       doctest::Contains("model weights: 2 problems:"), Error);
  // GPT-2 Conv1D layout: the same slot then expects the transpose.
  const Tensor conv({8, 16});
  w.decoder_layers[0].ffn.fc1.weight = conv.view();
  w.decoder_layers[0].ffn.fc1.layout = nn::WeightLayout::InOut;
  CHECK(model::weight_problems(c, w).size() == 1);
  // Layer count mismatch.
  model::ModelWeights fewer = model::ModelWeights::for_config(c);
  fewer.decoder_layers.clear();
  fewer.encoder_layers.resize(1);
  CHECK(model::weight_problems(c, fewer).size() == 1);
}

TEST_CASE("model errors: KV cache misuse") {
  const model::ModelConfig s = small_seq2seq();
  const model::ModelWeights w = model::random_weights(s, 6);
  CHECK_THROWS_WITH_AS(model::KVCache(s, 0), doctest::Contains("no capacity"), Error);
  model::KVCache cache(s, 2);
  const Tensor mem({4, 8}, 0.3f), y({1, 8}, 0.1f);
  // The first step needs the memory.
  CHECK_THROWS_WITH_AS(model::decoder_step(s, w, cache, y.view(), {}),
                       doctest::Contains("memory"), Error);
  model::decoder_step(s, w, cache, y.view(), mem.view());
  model::decoder_step(s, w, cache, y.view(), {});
  CHECK_THROWS_WITH_AS(model::decoder_step(s, w, cache, y.view(), {}),
                       "attention: 2 cached + 1 new positions exceed "
                       "the cache capacity 2", Error);
  model::ModelConfig enc = s;
  enc.architecture = model::Architecture::encoder_only;
  enc.n_decoder_layers = 0;
  CHECK_THROWS_AS(model::KVCache(enc, 4), Error);
}
