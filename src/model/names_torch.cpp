// PyTorch nn.Transformer / nn.TransformerEncoder / nn.TransformerDecoder state_dict
// names → roles. nn.MultiheadAttention keeps q|k|v fused in in_proj_weight (3C, C) and
// in_proj_bias (3C); its output is out_proj. Encoder layers: norm1 after self-attention,
// norm2 after the feed-forward; decoder layers: norm1 self-attention, norm2
// cross-attention (multihead_attn), norm3 feed-forward.
#include "model/names_table.h"

namespace tfp::model {

namespace {

// The rules of one encoder layer stack whose layers are named "<stack>{i}.".
#define TFP_ENCODER_RULES(S)                                                   \
  {"enc.{i}.attn.qkv.weight", S "{i}.self_attn.in_proj_weight"},               \
      {"enc.{i}.attn.qkv.bias", S "{i}.self_attn.in_proj_bias"},               \
      {"enc.{i}.attn.out.weight", S "{i}.self_attn.out_proj.weight"},          \
      {"enc.{i}.attn.out.bias", S "{i}.self_attn.out_proj.bias"},              \
      {"enc.{i}.ffn.fc1.weight", S "{i}.linear1.weight"},                      \
      {"enc.{i}.ffn.fc1.bias", S "{i}.linear1.bias"},                          \
      {"enc.{i}.ffn.fc2.weight", S "{i}.linear2.weight"},                      \
      {"enc.{i}.ffn.fc2.bias", S "{i}.linear2.bias"},                          \
      {"enc.{i}.norm_attn.gamma", S "{i}.norm1.weight"},                       \
      {"enc.{i}.norm_attn.beta", S "{i}.norm1.bias"},                          \
      {"enc.{i}.norm_ffn.gamma", S "{i}.norm2.weight"},                        \
      {"enc.{i}.norm_ffn.beta", S "{i}.norm2.bias"}

#define TFP_DECODER_RULES(S)                                                   \
  {"dec.{i}.attn.qkv.weight", S "{i}.self_attn.in_proj_weight"},               \
      {"dec.{i}.attn.qkv.bias", S "{i}.self_attn.in_proj_bias"},               \
      {"dec.{i}.attn.out.weight", S "{i}.self_attn.out_proj.weight"},          \
      {"dec.{i}.attn.out.bias", S "{i}.self_attn.out_proj.bias"},              \
      {"dec.{i}.cross.qkv.weight", S "{i}.multihead_attn.in_proj_weight"},     \
      {"dec.{i}.cross.qkv.bias", S "{i}.multihead_attn.in_proj_bias"},         \
      {"dec.{i}.cross.out.weight", S "{i}.multihead_attn.out_proj.weight"},    \
      {"dec.{i}.cross.out.bias", S "{i}.multihead_attn.out_proj.bias"},        \
      {"dec.{i}.ffn.fc1.weight", S "{i}.linear1.weight"},                      \
      {"dec.{i}.ffn.fc1.bias", S "{i}.linear1.bias"},                          \
      {"dec.{i}.ffn.fc2.weight", S "{i}.linear2.weight"},                      \
      {"dec.{i}.ffn.fc2.bias", S "{i}.linear2.bias"},                          \
      {"dec.{i}.norm_attn.gamma", S "{i}.norm1.weight"},                       \
      {"dec.{i}.norm_attn.beta", S "{i}.norm1.bias"},                          \
      {"dec.{i}.norm_cross.gamma", S "{i}.norm2.weight"},                      \
      {"dec.{i}.norm_cross.beta", S "{i}.norm2.bias"},                         \
      {"dec.{i}.norm_ffn.gamma", S "{i}.norm3.weight"},                        \
      {"dec.{i}.norm_ffn.beta", S "{i}.norm3.bias"}

}  // namespace

const NameTable& names_torch_transformer() {
  static const NameTable table{
      "torch_transformer",
      {},
      {
          TFP_ENCODER_RULES("encoder.layers."),
          TFP_DECODER_RULES("decoder.layers."),
          {"enc.norm.gamma", "encoder.norm.weight"},
          {"enc.norm.beta", "encoder.norm.bias"},
          {"dec.norm.gamma", "decoder.norm.weight"},
          {"dec.norm.beta", "decoder.norm.bias"},
      },
      {},
      {},
  };
  return table;
}

const NameTable& names_torch_encoder() {
  static const NameTable table{
      "torch_transformer (encoder)",
      {"encoder."},
      {
          TFP_ENCODER_RULES("layers."),
          {"enc.norm.gamma", "norm.weight"},
          {"enc.norm.beta", "norm.bias"},
      },
      {},
      {},
  };
  return table;
}

const NameTable& names_torch_decoder() {
  static const NameTable table{
      "torch_transformer (decoder)",
      {"decoder."},
      {
          TFP_DECODER_RULES("layers."),
          {"dec.norm.gamma", "norm.weight"},
          {"dec.norm.beta", "norm.bias"},
      },
      {},
      {},
  };
  return table;
}

#undef TFP_ENCODER_RULES
#undef TFP_DECODER_RULES

}  // namespace tfp::model
