// Helpers shared by the layer/model/KV-cache tests: read the PyTorch golden fixtures
// (tests/fixtures/gen_layers.py) and bind PyTorch state_dict names to our weight roles
// through model::weight_slots — the same table the checkpoint binder uses.
#pragma once
#include <algorithm>
#include <cmath>
#include <deque>
#include <fstream>
#include <sstream>
#include <string>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "model/config.h"
#include "model/weights.h"

namespace tfp_test {

using nlohmann::json;

inline json load_layers_fixture(const std::string& name) {
  const std::string path = std::string(TFP_FIXTURES_DIR) + "/layers/" + name;
  std::ifstream f(path);
  REQUIRE_MESSAGE(f.good(), "cannot open fixture ", path);
  std::stringstream ss;
  ss << f.rdbuf();
  json j = json::parse(ss.str(), nullptr, false);
  REQUIRE_MESSAGE(!j.is_discarded(), "bad JSON in ", path);
  return j;
}

inline tfp::Tensor to_tensor(const json& t) {
  tfp::Shape shape = t.at("shape").get<tfp::Shape>();
  return tfp::Tensor(shape, t.at("data").get<std::vector<float>>());
}

// Element b of a batch-first tensor (B, ...) → (...).
inline tfp::Tensor batch_item(const tfp::Tensor& t, int64_t b) {
  tfp::Shape inner(t.shape.begin() + 1, t.shape.end());
  const int64_t n = tfp::numel_of(inner);
  return tfp::Tensor(inner, std::vector<float>(t.data.begin() + b * n, t.data.begin() + (b + 1) * n));
}

inline std::vector<uint8_t> batch_mask(const json& flat, int64_t b, int64_t len) {
  std::vector<uint8_t> m;
  if (flat.is_null()) return m;
  for (int64_t i = 0; i < len; ++i) m.push_back(static_cast<uint8_t>(flat.at(b * len + i).get<int>()));
  return m;
}

// The error metric of these tests: max |a - b| over all elements (shapes must agree).
inline float max_abs_diff(const tfp::Tensor& a, const tfp::Tensor& b) {
  REQUIRE(a.shape == b.shape);
  float m = 0.0f;
  for (size_t i = 0; i < a.data.size(); ++i) {
    const float d = std::fabs(a.data[i] - b.data[i]);
    if (!(d <= m)) m = std::isnan(d) ? INFINITY : d;
  }
  return m;
}

// Role ("enc.1.attn.qkv.weight") → PyTorch name. enc_prefix/dec_prefix are the layer
// prefixes: "encoder.layers.{i}." in nn.Transformer, "" for a bare layer.
inline std::string torch_name(std::string role, const std::string& enc_prefix,
                              const std::string& dec_prefix) {
  auto replace = [&](const std::string& from, const std::string& to) {
    const size_t p = role.find(from);
    if (p != std::string::npos) role.replace(p, from.size(), to);
  };
  const bool dec = role.rfind("dec.", 0) == 0;
  if (role.rfind("enc.norm.", 0) == 0) { replace("enc.norm.", "encoder.norm."); }
  else if (role.rfind("dec.norm.", 0) == 0) { replace("dec.norm.", "decoder.norm."); }
  else {
    // "enc.3." → prefix with the layer index.
    const size_t dot2 = role.find('.', 4);
    const std::string idx = role.substr(4, dot2 - 4);
    std::string prefix = dec ? dec_prefix : enc_prefix;
    const size_t brace = prefix.find("{i}");
    if (brace != std::string::npos) prefix.replace(brace, 3, idx);
    role = prefix + role.substr(dot2 + 1);
    replace("attn.qkv.weight", "self_attn.in_proj_weight");
    replace("attn.qkv.bias", "self_attn.in_proj_bias");
    replace("attn.out.", "self_attn.out_proj.");
    replace("cross.qkv.weight", "multihead_attn.in_proj_weight");
    replace("cross.qkv.bias", "multihead_attn.in_proj_bias");
    replace("cross.out.", "multihead_attn.out_proj.");
    replace("ffn.fc1.", "linear1.");
    replace("ffn.fc2.", "linear2.");
    replace("norm_attn.", "norm1.");
    replace("norm_cross.", "norm2.");
    replace("norm_ffn.", dec ? "norm3." : "norm2.");
  }
  replace(".gamma", ".weight");
  replace(".beta", ".bias");
  return role;
}

// Binds every slot from a PyTorch state_dict in JSON; the tensors are kept in w.storage.
inline void bind_torch(const tfp::model::ModelConfig& cfg, tfp::model::ModelWeights& w,
                       const json& state, const std::string& enc_prefix,
                       const std::string& dec_prefix) {
  for (tfp::model::WeightSlot& s : tfp::model::weight_slots(cfg, w)) {
    const std::string name = torch_name(s.role, enc_prefix, dec_prefix);
    if (state.contains(name)) *s.view = w.own(to_tensor(state.at(name)));
  }
  tfp::model::validate_weights(cfg, w);
}

// A config for PyTorch modules that take embeddings (no vocabulary, no positions).
inline tfp::model::ModelConfig torch_config(const json& c, tfp::model::Architecture arch,
                                            int64_t n_enc, int64_t n_dec, bool final_norms) {
  tfp::model::ModelConfig cfg;
  cfg.architecture = arch;
  cfg.family = "torch_transformer";
  cfg.d_model = c.at("d_model").get<int64_t>();
  cfg.n_heads = c.at("n_heads").get<int64_t>();
  cfg.d_ff = c.at("d_ff").get<int64_t>();
  cfg.n_encoder_layers = n_enc;
  cfg.n_decoder_layers = n_dec;
  cfg.norm_first = c.at("norm_first").get<bool>();
  cfg.activation = tfp::nn::activation_from_string(c.at("activation").get<std::string>());
  cfg.layer_norm_eps = c.at("eps").get<float>();
  cfg.has_embeddings = false;
  cfg.positional = tfp::model::Positional::none;
  cfg.encoder_final_norm = cfg.decoder_final_norm = final_norms;
  cfg.lm_head = false;
  cfg.max_positions = 64;  // KV-cache capacity
  return cfg;
}

}  // namespace tfp_test
