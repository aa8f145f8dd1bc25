// Hugging Face GPT-2 (GPT2Model / GPT2LMHeadModel) tensor names → roles.
// Conv1D layers (c_attn, c_proj, c_fc) store their weight as (in, out) — the transpose
// of nn.Linear — hence WeightLayout::InOut. The LM head is tied to wte.
#include "model/names_table.h"

namespace tfp::model {

const NameTable& names_gpt2() {
  using nn::WeightLayout;
  static const NameTable table{
      "gpt2",
      {"transformer."},
      {
          {"embed.token", "wte.weight"},
          {"embed.position", "wpe.weight"},
          {"dec.{i}.norm_attn.gamma", "h.{i}.ln_1.weight"},
          {"dec.{i}.norm_attn.beta", "h.{i}.ln_1.bias"},
          {"dec.{i}.attn.qkv.weight", "h.{i}.attn.c_attn.weight", WeightLayout::InOut},
          {"dec.{i}.attn.qkv.bias", "h.{i}.attn.c_attn.bias"},
          {"dec.{i}.attn.out.weight", "h.{i}.attn.c_proj.weight", WeightLayout::InOut},
          {"dec.{i}.attn.out.bias", "h.{i}.attn.c_proj.bias"},
          {"dec.{i}.norm_ffn.gamma", "h.{i}.ln_2.weight"},
          {"dec.{i}.norm_ffn.beta", "h.{i}.ln_2.bias"},
          {"dec.{i}.ffn.fc1.weight", "h.{i}.mlp.c_fc.weight", WeightLayout::InOut},
          {"dec.{i}.ffn.fc1.bias", "h.{i}.mlp.c_fc.bias"},
          {"dec.{i}.ffn.fc2.weight", "h.{i}.mlp.c_proj.weight", WeightLayout::InOut},
          {"dec.{i}.ffn.fc2.bias", "h.{i}.mlp.c_proj.bias"},
          {"dec.norm.gamma", "ln_f.weight"},
          {"dec.norm.beta", "ln_f.bias"},
      },
      // Ignored: the causal-mask buffers older transformers versions saved with every block
      // (HF GPT2Model / GPT2LMHeadModel _keys_to_ignore_on_load_unexpected
      // [r"h\.\d+\.attn\.bias", r"h\.\d+\.attn\.masked_bias"], transformers 4.2x; today
      // non-persistent buffers, which from_pretrained drops from a file's unexpected keys).
      {"h.{i}.attn.bias", "h.{i}.attn.masked_bias"},
      // GPT2LMHeadModel may store the tied head; it is the same matrix as wte.
      {"lm_head.weight"},
  };
  return table;
}

}  // namespace tfp::model
