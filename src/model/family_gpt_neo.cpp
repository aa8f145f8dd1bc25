// GPT-Neo (the TinyStories models, Hugging Face GPTNeoForCausalLM): GPT-2's layout with
// learned positions and a tied head, separate q/k/v without biases, global and local
// (window_size) layers alternating as attention_types says, and no 1/√d scaling of the
// scores (GPT-Neo's own choice).
#include "model/families.h"

namespace tfp::model {

namespace {
// "attention_types": [[["global", "local"], 2]] → global, local, global, local.
std::vector<std::string> layer_kinds(const Fields& f, int64_t n_layers) {
  std::vector<std::string> kinds;
  if (const json* list = f.find("attention_layers"); list && list->is_array()) {
    for (const json& k : *list)
      if (k.is_string()) kinds.push_back(k.get<std::string>());
  } else if (const json* types = f.find("attention_types"); types && types->is_array()) {
    for (const json& group : *types) {
      if (!group.is_array() || group.size() != 2 || !group[0].is_array() || !group[1].is_number_integer())
        f.fail("field \"attention_types\": each entry must be [[kinds...], repeats], got ", group.dump());
      for (int64_t r = 0; r < group[1].get<int64_t>(); ++r)
        for (const json& k : group[0])
          if (k.is_string()) kinds.push_back(k.get<std::string>());
    }
  }
  if (static_cast<int64_t>(kinds.size()) != n_layers)
    f.fail("attention_types/attention_layers give ", kinds.size(), " layer kinds for ", n_layers, " layers");
  for (const std::string& k : kinds)
    if (k != "global" && k != "local") f.fail("attention kind \"", k, "\" is not supported (global, local)");
  return kinds;
}
}  // namespace

ParsedConfig parse_gpt_neo(const Fields& f) {
  ParsedConfig p;
  p.family = CheckpointFamily::gpt_neo;
  ModelConfig& c = p.config;
  c.architecture = Architecture::decoder_only;
  c.family = "gpt_neo";
  c.d_model = f.integer("hidden_size");
  c.n_heads = f.integer("num_heads");
  c.n_decoder_layers = f.integer("num_layers");
  c.d_ff = f.integer("intermediate_size", 4 * c.d_model);
  c.vocab_size = f.integer("vocab_size");
  c.max_positions = f.integer("max_position_embeddings", 2048);
  c.layer_norm_eps = f.number("layer_norm_epsilon", 1e-5f);
  c.activation = f.activation("activation_function", "gelu_new");
  c.norm_first = true;
  c.positional = Positional::learned;
  c.attn_scale = 1.0f;  // GPT-Neo does not scale q·k
  c.qkv_bias = false;
  c.decoder_final_norm = true;
  c.fused_qkv = false;
  c.lm_head = true;
  c.tied_lm_head = true;
  const int64_t window = f.integer("window_size", 256);
  for (const std::string& k : layer_kinds(f, c.n_decoder_layers)) c.layer_windows.push_back(k == "local" ? window : 0);
  return p;
}

const NameTable& names_gpt_neo() {
  static const NameTable table{
      "gpt_neo",
      {"transformer."},
      {
          {"embed.token", "wte.weight"},
          {"embed.position", "wpe.weight"},
          {"dec.{i}.norm_attn.gamma", "h.{i}.ln_1.weight"},
          {"dec.{i}.norm_attn.beta", "h.{i}.ln_1.bias"},
          {"dec.{i}.attn.q.weight", "h.{i}.attn.attention.q_proj.weight"},
          {"dec.{i}.attn.k.weight", "h.{i}.attn.attention.k_proj.weight"},
          {"dec.{i}.attn.v.weight", "h.{i}.attn.attention.v_proj.weight"},
          {"dec.{i}.attn.out.weight", "h.{i}.attn.attention.out_proj.weight"},
          {"dec.{i}.attn.out.bias", "h.{i}.attn.attention.out_proj.bias"},
          {"dec.{i}.norm_ffn.gamma", "h.{i}.ln_2.weight"},
          {"dec.{i}.norm_ffn.beta", "h.{i}.ln_2.bias"},
          {"dec.{i}.ffn.fc1.weight", "h.{i}.mlp.c_fc.weight"},
          {"dec.{i}.ffn.fc1.bias", "h.{i}.mlp.c_fc.bias"},
          {"dec.{i}.ffn.fc2.weight", "h.{i}.mlp.c_proj.weight"},
          {"dec.{i}.ffn.fc2.bias", "h.{i}.mlp.c_proj.bias"},
          {"dec.norm.gamma", "ln_f.weight"},
          {"dec.norm.beta", "ln_f.bias"},
      },
      // Ignored: the causal-mask buffers older files carry (HF GPTNeoForCausalLM
      // _keys_to_ignore_on_load_missing [r"h\.\d+\.attn\.masked_bias",
      // r"h\.\d+\.attn\.attention\.bias"], transformers 4.2x; today non-persistent
      // buffers of GPTNeoSelfAttention, dropped from a file's unexpected keys).
      {"h.{i}.attn.attention.bias", "h.{i}.attn.attention.masked_bias"},
      {"lm_head.weight"},
  };
  return table;
}

}  // namespace tfp::model
