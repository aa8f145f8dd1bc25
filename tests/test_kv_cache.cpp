// KV-cached incremental decoding equals full recomputation: decoder-only (GPT-2 shape)
// and encoder-decoder token models, token by token; and PyTorch's nn.Transformer
// decoder fed one target embedding at a time against the golden fixture.
// Oracles: the uncached forward pass of the same model (tolerance 1e-5: only summation
// order differs), and PyTorch 1.13 (tolerance 1e-4).
#include <doctest/doctest.h>

#include "nn/observer.h"
#include "model/kv_cache.h"
#include "model/transformer.h"
#include "test_layers_fixture.h"

using namespace tfp;
using namespace tfp_test;

namespace {
Tensor row_of(const Tensor& x, int64_t r) {
  const int64_t C = x.dim(-1);
  return Tensor({1, C}, std::vector<float>(x.row(r), x.row(r) + C));
}
Tensor rows(const Tensor& x, int64_t r0, int64_t n) {
  const int64_t C = x.dim(-1);
  return Tensor({n, C}, std::vector<float>(x.row(r0), x.row(r0) + n * C));
}
}  // namespace

TEST_CASE("kv cache: decoder-only decoding equals full recomputation") {
  model::ModelConfig cfg;
  cfg.architecture = model::Architecture::decoder_only;
  cfg.d_model = 16; cfg.n_heads = 4; cfg.d_ff = 40; cfg.vocab_size = 31; cfg.max_positions = 10;
  cfg.n_decoder_layers = 3;
  cfg.norm_first = true;
  cfg.activation = nn::Activation::gelu_tanh;
  cfg.decoder_final_norm = true;
  const model::ModelWeights w = model::random_weights(cfg, 21, 0.3f, true);

  const std::vector<int32_t> seq = {3, 14, 15, 9, 26, 5, 30};
  const Tensor full = model::forward_decoder_only(cfg, w, seq).logits;  // (7, V)
  nn::RecordingObserver full_rec({"dec.2.attn.probs"});
  model::forward_decoder_only(cfg, w, seq, &full_rec);
  const Tensor& full_probs = full_rec.get("dec.2.attn.probs");  // (H, 7, 7)

  model::KVCache cache(cfg);
  CHECK(cache.capacity() == 10);
  // The prompt (3 tokens) in one call, then one token per call.
  const Tensor first = model::decoder_only_step(cfg, w, cache, std::span(seq).first(3)).logits;
  CHECK(max_abs_diff(first, rows(full, 0, 3)) <= 1e-5f);
  for (int64_t t = 3; t < 7; ++t) {
    CAPTURE(t);
    nn::RecordingObserver rec({"dec.2.attn.probs"});
    const Tensor step =
        model::decoder_only_step(cfg, w, cache, std::span(seq).subspan(t, 1), &rec).logits;
    CHECK(cache.length() == t + 1);
    CHECK(max_abs_diff(step, row_of(full, t)) <= 1e-5f);
    // The step's attention row (H, 1, t+1) is row t of the full pass's probabilities.
    const Tensor& p = rec.get("dec.2.attn.probs");
    REQUIRE(p.shape == Shape{4, 1, t + 1});
    for (int64_t h = 0; h < 4; ++h)
      for (int64_t j = 0; j <= t; ++j)
        CHECK(p.data[h * (t + 1) + j] == doctest::Approx(full_probs.data[(h * 7 + t) * 7 + j]).epsilon(1e-5));
  }
  // Capacity is the context length: four more tokens would need position 10.
  CHECK_THROWS_WITH_AS(model::decoder_only_step(cfg, w, cache, std::vector<int32_t>{1, 2, 3, 4}),
                       "embed: positions 7..10 exceed the context length max_positions = 10",
                       Error);
  CHECK(cache.length() == 7);  // the failed call appended nothing
  cache.clear();
  CHECK(cache.length() == 0);
  CHECK(max_abs_diff(model::decoder_only_step(cfg, w, cache, seq).logits, full) <= 1e-5f);
  // A prefill that keeps only the last k rows' logits (a generation's): those rows, the same cache.
  for (const int64_t k : {1, 2, 3, 9}) {
    CAPTURE(k);
    model::KVCache c(cfg);
    const Tensor last = model::decoder_only_step(cfg, w, c, std::span(seq).first(3), nullptr, k).logits;
    const int64_t n = std::min<int64_t>(k, 3);
    REQUIRE(last.shape == Shape{n, 31});
    CHECK(max_abs_diff(last, rows(full, 3 - n, n)) <= 1e-5f);
    CHECK(c.length() == 3);
    CHECK(max_abs_diff(model::decoder_only_step(cfg, w, c, std::span(seq).subspan(3, 1)).logits, row_of(full, 3)) <= 1e-5f);
  }
}

TEST_CASE("kv cache: encoder-decoder decoding equals full recomputation") {
  model::ModelConfig cfg;
  cfg.architecture = model::Architecture::encoder_decoder;
  cfg.d_model = 16; cfg.n_heads = 2; cfg.d_ff = 24; cfg.vocab_size = 19; cfg.max_positions = 8;
  cfg.n_encoder_layers = 2; cfg.n_decoder_layers = 2;
  cfg.positional = model::Positional::sinusoidal;
  cfg.embedding_scale = 4.0f;  // sqrt(d_model), as in the paper
  cfg.shared_src_tgt_embeddings = false;
  cfg.tied_lm_head = false;
  const model::ModelWeights w = model::random_weights(cfg, 33, 0.3f, true);

  const std::vector<int32_t> src = {4, 7, 1, 12, 0, 0};
  const std::vector<uint8_t> pad = {0, 0, 0, 0, 1, 1};
  const std::vector<int32_t> tgt = {1, 9, 9, 3, 17};
  const Tensor full = model::forward_encoder_decoder(cfg, w, src, tgt, pad).logits;  // (5, V)

  const Tensor memory = model::encode_source(cfg, w, src, pad);
  model::KVCache cache(cfg);
  for (int64_t t = 0; t < 5; ++t) {
    CAPTURE(t);
    // After the first step the memory's K/V live in the cache; pass none to prove it.
    const TensorView mem = t == 0 ? memory.view() : TensorView{};
    nn::RecordingObserver rec({"dec.1.cross.probs"});
    const Tensor step = model::encoder_decoder_step(cfg, w, cache, mem, pad,
                                                    std::span(tgt).subspan(t, 1), &rec).logits;
    CHECK(cache.has_memory());
    CHECK(max_abs_diff(step, row_of(full, t)) <= 1e-5f);
    const Tensor& cp = rec.get("dec.1.cross.probs");  // (H, 1, S): padding gets exactly 0
    CHECK(cp.shape == Shape{2, 1, 6});
    CHECK(cp.data[4] == 0.0f);
    CHECK(cp.data[5] == 0.0f);
  }
}

TEST_CASE("kv cache: PyTorch nn.Transformer decoder, one target embedding at a time") {
  const json fx = load_layers_fixture("transformer.json");
  for (const json& c : fx.at("cases")) {
    CAPTURE(c.at("name").get<std::string>());
    model::ModelConfig cfg = torch_config(c, model::Architecture::encoder_decoder, 2, 2, true);
    model::ModelWeights w = model::ModelWeights::for_config(cfg);
    bind_torch(cfg, w, c.at("weights"), "encoder.layers.{i}.", "decoder.layers.{i}.");
    const Tensor tgt = to_tensor(c.at("tgt")), y = to_tensor(c.at("y"));
    const Tensor memory = to_tensor(c.at("memory"));
    const int64_t B = tgt.dim(0), T = tgt.dim(1), S = memory.dim(1);
    for (int64_t b = 0; b < B; ++b) {
      CAPTURE(b);
      const Tensor tg = batch_item(tgt, b), yb = batch_item(y, b), mem = batch_item(memory, b);
      const std::vector<uint8_t> pad = batch_mask(c.at("src_key_padding_mask"), b, S);
      model::KVCache cache(cfg);
      for (int64_t t = 0; t < T; ++t) {
        const Tensor out = model::decoder_step(cfg, w, cache, row_of(tg, t), mem, pad);
        CHECK(max_abs_diff(out, row_of(yb, t)) <= 1e-4f);
      }
    }
  }
}
