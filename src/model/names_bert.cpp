// Hugging Face BERT (BertModel / BertFor*) tensor names → roles. Attention has separate
// query/key/value Linears; LayerNorms were called gamma/beta in older checkpoints.
//
// The masked-LM head (BertForMaskedLM / BertForPreTraining cls.predictions.*) is bound
// when the file has it (bert_has_mlm_head; the loader then sets encoder_head =
// masked_lm): transform.dense → activation → transform.LayerNorm → decoder, where the
// decoder's weight is the word embedding table (tied; HF drops the duplicate when it
// saves safetensors) unless the file stores cls.predictions.decoder.weight, and its bias
// is cls.predictions.bias (HF ties cls.predictions.decoder.bias to it: the same vector,
// saved under either name or both).
// Not run, reported as unused-but-allowed: the pooler, the next-sentence head
// cls.seq_relationship.*, classifier heads.
#include "model/names_table.h"

namespace tfp::model {

bool bert_has_mlm_head(const io::SafeTensors& st) {
  for (const io::TensorEntry& e : st.entries()) {
    std::string_view name = e.name;
    if (name.starts_with("bert.")) name.remove_prefix(5);
    if (name.starts_with("cls.predictions.")) return true;
  }
  return false;
}

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
          {"mlm.transform.weight", "cls.predictions.transform.dense.weight"},
          {"mlm.transform.bias", "cls.predictions.transform.dense.bias"},
          {"mlm.norm.gamma",
           "cls.predictions.transform.LayerNorm.weight|cls.predictions.transform.LayerNorm.gamma"},
          {"mlm.norm.beta",
           "cls.predictions.transform.LayerNorm.bias|cls.predictions.transform.LayerNorm.beta"},
          {"mlm.decoder.weight", "cls.predictions.decoder.weight"},
          {"mlm.bias", "cls.predictions.bias|cls.predictions.decoder.bias"},
      },
      // Ignored: BertEmbeddings' buffers, saved by older transformers versions (HF
      // BertModel / BertForMaskedLM _keys_to_ignore_on_load_missing [r"position_ids"], and
      // from_pretrained's own r"(^|\.)position_ids$" rule; token_type_ids is a
      // non-persistent buffer, which from_pretrained drops from unexpected keys).
      {"embeddings.position_ids", "embeddings.token_type_ids"},
      {"pooler.*", "cls.*", "classifier.*", "qa_outputs.*"},
  };
  return table;
}

}  // namespace tfp::model
