// Token models against PyTorch 1.13: a GPT-2-shaped decoder-only model and a BERT-shaped
// encoder-only model, each assembled in tests/fixtures/gen_layers.py from nn.Embedding,
// nn.TransformerEncoderLayer and nn.LayerNorm exactly as GPT-2 / BERT compose them.
// Also: GPT-2's Conv1D (InOut) weight layout and BERT's separate q/k/v projections give
// the same numbers as the fused nn.Linear layout.
// Tolerance: max abs error <= 1e-4 (float32 both sides).
#include <doctest/doctest.h>

#include <functional>

#include "nn/observer.h"
#include "model/transformer.h"
#include "test_layers_fixture.h"

using namespace tfp;
using namespace tfp_test;

namespace {

model::ModelConfig config_of(const json& c, model::Architecture arch) {
  model::ModelConfig cfg;
  cfg.architecture = arch;
  cfg.d_model = c.at("d_model").get<int64_t>();
  cfg.n_heads = c.at("n_heads").get<int64_t>();
  cfg.d_ff = c.at("d_ff").get<int64_t>();
  cfg.vocab_size = c.at("vocab").get<int64_t>();
  cfg.max_positions = c.at("max_positions").get<int64_t>();
  cfg.layer_norm_eps = c.at("eps").get<float>();
  const int64_t L = c.at("n_layers").get<int64_t>();
  if (arch == model::Architecture::decoder_only) {
    cfg.family = "gpt2";
    cfg.n_decoder_layers = L;
    cfg.norm_first = true;
    cfg.activation = nn::Activation::gelu_tanh;
    cfg.decoder_final_norm = true;
  } else {
    cfg.family = "bert";
    cfg.n_encoder_layers = L;
    cfg.activation = nn::Activation::gelu_erf;
    cfg.type_vocab_size = 2;
    cfg.embedding_norm = true;
    cfg.fused_qkv = false;  // BERT stores query/key/value separately
  }
  return cfg;
}

// Role → tensor from the fixture's state dict ("layers.{i}." prefixes), or empty.
Tensor lookup(const json& st, std::string role) {
  if (role == "embed.token") return to_tensor(st.at("tok.weight"));
  if (role == "embed.position") return to_tensor(st.at("pos.weight"));
  if (role == "embed.token_type") return to_tensor(st.at("typ.weight"));
  if (role == "embed.norm.gamma") return to_tensor(st.at("emb_norm.weight"));
  if (role == "embed.norm.beta") return to_tensor(st.at("emb_norm.bias"));
  if (role == "dec.norm.gamma") return to_tensor(st.at("lnf.weight"));
  if (role == "dec.norm.beta") return to_tensor(st.at("lnf.bias"));
  // GPT-2 blocks are PyTorch encoder layers (norm1 / norm2) under a causal mask.
  if (role.rfind("dec.", 0) == 0) role.replace(0, 4, "enc.");
  // Separate q/k/v: rows [part·C, (part+1)·C) of the fused in_proj.
  for (int part = 0; part < 3; ++part) {
    const std::string tag = std::string(".attn.") + "qkv"[part] + ".";
    const size_t at = role.find(tag);
    if (at == std::string::npos) continue;
    const std::string fused = role.substr(0, at) + ".attn.qkv." + role.substr(at + tag.size());
    const Tensor all = to_tensor(st.at(torch_name(fused, "layers.{i}.", "")));
    const int64_t C = all.dim(0) / 3, cols = all.rank() == 2 ? all.dim(1) : 1;
    Shape s = all.shape;
    s[0] = C;
    return Tensor(s, std::vector<float>(all.data.begin() + part * C * cols,
                                        all.data.begin() + (part + 1) * C * cols));
  }
  const std::string name = torch_name(role, "layers.{i}.", "");
  return st.contains(name) ? to_tensor(st.at(name)) : Tensor{};
}

model::ModelWeights bind(const model::ModelConfig& cfg, const json& st) {
  model::ModelWeights w = model::ModelWeights::for_config(cfg);
  for (model::WeightSlot& s : model::weight_slots(cfg, w)) {
    Tensor t = lookup(st, s.role);
    if (!t.empty()) *s.view = w.own(std::move(t));
  }
  model::validate_weights(cfg, w);
  return w;
}

// Rewrites every Linear weight into GPT-2's Conv1D layout: (in, out), layout InOut.
void to_conv1d(const model::ModelConfig& cfg, model::ModelWeights& w) {
  for (model::WeightSlot& s : model::weight_slots(cfg, w)) {
    if (!s.linear || s.view != &s.linear->weight) continue;
    const TensorView v = *s.view;
    const int64_t O = v.dim(0), I = v.dim(1);
    Tensor t({I, O});
    for (int64_t o = 0; o < O; ++o)
      for (int64_t i = 0; i < I; ++i) t.data[i * O + o] = v.data[o * I + i];
    *s.view = w.own(std::move(t));
    s.linear->layout = nn::WeightLayout::InOut;
  }
  model::validate_weights(cfg, w);
}

const json& find_case(const json& fx, const std::string& name) {
  for (const json& c : fx.at("cases"))
    if (c.at("name") == name) return c;
  FAIL("no case ", name);
  return fx;
}

}  // namespace

TEST_CASE("model tokens: GPT-2-shaped decoder-only model matches PyTorch") {
  const json fx = load_layers_fixture("token_models.json");
  const json& c = find_case(fx, "gpt2-like");
  const model::ModelConfig cfg = config_of(c, model::Architecture::decoder_only);
  model::ModelWeights w = bind(cfg, c.at("weights"));
  const std::vector<int32_t> ids = c.at("ids").get<std::vector<int32_t>>();
  nn::RecordingObserver rec({"dec.*.attn.probs"});
  const model::ForwardResult r = model::forward_decoder_only(cfg, w, ids, &rec);
  CHECK(max_abs_diff(r.hidden, to_tensor(c.at("hidden"))) <= 1e-4f);
  CHECK(max_abs_diff(r.logits, to_tensor(c.at("logits"))) <= 1e-4f);
  CHECK(max_abs_diff(rec.get("dec.0.attn.probs"), to_tensor(c.at("probs")[0])) <= 1e-4f);
  CHECK(max_abs_diff(rec.get("dec.1.attn.probs"), to_tensor(c.at("probs")[1])) <= 1e-4f);

  // Same model with every weight stored the Conv1D way.
  to_conv1d(cfg, w);
  CHECK(max_abs_diff(model::forward_decoder_only(cfg, w, ids).logits, r.logits) <= 1e-5f);
}

TEST_CASE("model tokens: BERT-shaped encoder-only model matches PyTorch") {
  const json fx = load_layers_fixture("token_models.json");
  const json& c = find_case(fx, "bert-like");
  const model::ModelConfig cfg = config_of(c, model::Architecture::encoder_only);
  const model::ModelWeights w = bind(cfg, c.at("weights"));
  const std::vector<int32_t> ids = c.at("ids").get<std::vector<int32_t>>();
  const std::vector<int32_t> types = c.at("token_types").get<std::vector<int32_t>>();
  const std::vector<uint8_t> pad = batch_mask(c.at("padding"), 0, static_cast<int64_t>(ids.size()));
  const model::ForwardResult r = model::forward_encoder_only(cfg, w, ids, types, pad);
  CHECK(max_abs_diff(r.hidden, to_tensor(c.at("hidden"))) <= 1e-4f);
  CHECK(r.logits.empty());  // no head configured
}
