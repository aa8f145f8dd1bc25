// Hugging Face BERT (BertModel / BertFor*) tensor names → roles. Attention has separate
// query/key/value Linears; LayerNorms were called gamma/beta in older checkpoints.
// The pooler and the pre-training/classification heads (cls.*) are not run: they are
// reported as unused-but-allowed.
#include "model/names_table.h"

namespace tfp::model {

const NameTable& names_bert() {
  static const NameTable table{
      "bert",
      {"bert."},
      {
          {"embed.token", "embeddings.word_embeddings.weight"},
          {"embed.position", "embeddings.position_embeddings.weight"},
          {"embed.token_type", "embeddings.token_type_embeddings.weight"},
          {"embed.norm.gamma", "embeddings.LayerNorm.weight|embeddings.LayerNorm.gamma"},
          {"embed.norm.beta", "embeddings.LayerNorm.bias|embeddings.LayerNorm.beta"},
          {"enc.{i}.attn.q.weight", "encoder.layer.{i}.attention.self.query.weight"},
          {"enc.{i}.attn.q.bias", "encoder.layer.{i}.attention.self.query.bias"},
          {"enc.{i}.attn.k.weight", "encoder.layer.{i}.attention.self.key.weight"},
          {"enc.{i}.attn.k.bias", "encoder.layer.{i}.attention.self.key.bias"},
          {"enc.{i}.attn.v.weight", "encoder.layer.{i}.attention.self.value.weight"},
          {"enc.{i}.attn.v.bias", "encoder.layer.{i}.attention.self.value.bias"},
          {"enc.{i}.attn.out.weight", "encoder.layer.{i}.attention.output.dense.weight"},
          {"enc.{i}.attn.out.bias", "encoder.layer.{i}.attention.output.dense.bias"},
          {"enc.{i}.norm_attn.gamma",
           "encoder.layer.{i}.attention.output.LayerNorm.weight|encoder.layer.{i}.attention.output.LayerNorm.gamma"},
          {"enc.{i}.norm_attn.beta",
           "encoder.layer.{i}.attention.output.LayerNorm.bias|encoder.layer.{i}.attention.output.LayerNorm.beta"},
          {"enc.{i}.ffn.fc1.weight", "encoder.layer.{i}.intermediate.dense.weight"},
          {"enc.{i}.ffn.fc1.bias", "encoder.layer.{i}.intermediate.dense.bias"},
          {"enc.{i}.ffn.fc2.weight", "encoder.layer.{i}.output.dense.weight"},
          {"enc.{i}.ffn.fc2.bias", "encoder.layer.{i}.output.dense.bias"},
          {"enc.{i}.norm_ffn.gamma",
           "encoder.layer.{i}.output.LayerNorm.weight|encoder.layer.{i}.output.LayerNorm.gamma"},
          {"enc.{i}.norm_ffn.beta",
           "encoder.layer.{i}.output.LayerNorm.bias|encoder.layer.{i}.output.LayerNorm.beta"},
      },
      {"embeddings.position_ids"},
      {"pooler.*", "cls.*", "classifier.*", "qa_outputs.*"},
  };
  return table;
}

}  // namespace tfp::model
