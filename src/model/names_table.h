// Checkpoint name tables: which tensor in a file fills which role of ModelWeights.
//
// A table lists, per role pattern ("dec.{i}.attn.qkv.weight", {i} = layer index), the
// checkpoint name(s) that hold it ("h.{i}.attn.c_attn.weight") and the layout of Linear
// weights (GPT-2's Conv1D stores (in, out): WeightLayout::InOut). Binding walks the
// engine's own slot list (weight_slots in model/weights.h), so every role the config
// needs is looked up, and then accounts for every tensor in the file:
//   - missing:     a required role whose tensor is absent                     → error
//   - mis-shaped:  a tensor whose shape is not what the role expects          → error
//   - unexpected:  a tensor no role uses and the table does not know          → error
//                  (usually a config that does not match the file, e.g. layer counts)
//   - ignored:     tensors the family's modeling code ignores, as Hugging Face lists
//                  them per class (_keys_to_ignore_on_load_unexpected / _missing) or
//                  drops them (the model's own buffers: GPT-2 attn.bias / masked_bias
//                  causal masks, rotary_emb.inv_freq, BERT embeddings.position_ids; T5's
//                  unused EncDecAttention.relative_attention_bias)             → skipped:
//                  no dtype or shape check, no copy (their bytes stay where the file
//                  holds them); listed by file name in the report's `ignored`
//   - allowed:     known weights of heads the engine does not run (BERT pooler.*,
//                  cls.seq_relationship.*, cls.predictions.* of a head that is
//                  bound under its other name; GPT-2 lm_head.weight, a copy of
//                  the tied wte)                                               → listed in
//                  the report's `unused_allowed`, not an error
// All problems are collected and reported together, by checkpoint name and role.
// Optional name prefixes ("transformer.", "bert.") are stripped before lookup, so both
// GPT2Model and GPT2LMHeadModel (BertModel and BertFor*) files bind.
#pragma once
#include <string>
#include <vector>

#include "io/safetensors.h"
#include "model/config_json.h"
#include "model/weights.h"
#include "nn/linear.h"

namespace tfp::model {

struct NameRule {
  // How the file's tensor becomes the role's: as it is, or reordered from a q|k|v
  // projection fused per head ([h0: q k v][h1: q k v]…, GPT-NeoX and BLOOM) into the
  // engine's q | k | v blocks, in place in the checkpoint's bytes (whatever its dtype:
  // f32, 16-bit kept as stored, int8 rows with their scales).
  enum class Transform { none, per_head_qkv };

  const char* role;   // "dec.{i}.attn.qkv.weight"
  const char* names;  // "h.{i}.attn.c_attn.weight"; alternatives separated by '|' (old names)
  nn::WeightLayout layout = nn::WeightLayout::OutIn;  // for Linear weights
  Transform transform = Transform::none;
};

struct NameTable {
  const char* family;
  std::vector<const char*> prefixes;        // optional prefixes stripped from file names
  std::vector<NameRule> rules;
  // Patterns ('*' and {i}) of the tensors the family's modeling code ignores; each table
  // cites the Hugging Face class whose list it follows.
  std::vector<const char*> ignored;
  std::vector<const char*> allowed_unused;  // patterns of weights we knowingly leave unused
  // The config says which Linear layers carry biases (Llama's attention_bias/mlp_bias,
  // Qwen2's q/k/v): a bias it declares must be in the file. Elsewhere biases are optional
  // (absent = 0), as PyTorch files of bias-free layers have none.
  bool declared_biases_required = false;
};

const NameTable& names_gpt2();
const NameTable& names_bert();
const NameTable& names_torch_transformer();  // nn.Transformer
const NameTable& names_torch_encoder();       // nn.TransformerEncoder
const NameTable& names_torch_decoder();       // nn.TransformerDecoder
// The other families' tables are declared in model/families.h.
// True when a BERT file holds the masked-LM head (any cls.predictions.* tensor, with or
// without the "bert." prefix): the loader then binds it (encoder_head = masked_lm) and a
// missing or mis-shaped part of it is an error naming the tensor.
bool bert_has_mlm_head(const io::SafeTensors& st);
// The table of a family; for CheckpointFamily::tfp (our own files, named by role) null.
const NameTable* name_table_for(CheckpointFamily family);

struct BindReport {
  size_t bound = 0;                         // tensors bound to roles
  std::vector<std::string> unused_allowed;  // file names, e.g. "pooler.dense.weight"
  std::vector<std::string> ignored;         // tensors the table ignores, e.g. "h.0.attn.bias"
};

// How many ignored tensor names a model's info lists ("ignored_tensors"; the count of all
// of them is "ignored_tensor_count"): a GPT-2-xl file carries 96 mask buffers.
constexpr size_t kIgnoredTensorsShown = 20;

// Fills `w` (shaped for cfg) with views into `st` and sets Linear layouts. Throws one
// tfp::Error listing every missing, mis-shaped, unexpected or non-float tensor:
//   "checkpoint 'gpt2/model.safetensors' (gpt2) does not match its config: 2 problems:
//      missing tensor 'h.1.ln_1.weight' (role dec.1.norm_attn.gamma)
//      tensor 'wpe.weight' (role embed.position) has shape [16, 8], expected [32, 8]"
// The views live as long as `st`.
// F16/BF16 Linear weights and token tables stay 16-bit (nn::Linear::weight16,
// EmbeddingWeights::token16) when the file's 16-bit tensors total at least
// keep16_min_bytes (16 MiB by default: all but tiny checkpoints), and are widened to f32
// otherwise (see names_table.cpp for why).
constexpr size_t kKeep16BitMinBytes = size_t{16} << 20;
BindReport bind_checkpoint(const ModelConfig& cfg, CheckpointFamily family,
                           const io::SafeTensors& st, ModelWeights& w,
                           size_t keep16_min_bytes = kKeep16BitMinBytes);

// The tensor of `st` each slot would be bound from, found as bind_checkpoint finds it but
// nothing bound or checked (st may be header only): entry null when the file has none or
// the table has no name for the role. For the streamed load (model/weights_stream.h).
struct SlotSource {
  const io::TensorEntry* entry = nullptr;
  nn::WeightLayout layout = nn::WeightLayout::OutIn;
  NameRule::Transform transform = NameRule::Transform::none;
};
std::vector<SlotSource> slot_sources(CheckpointFamily family, const io::SafeTensors& st,
                                     const std::vector<WeightSlot>& slots);

// Rows [h][q k v][D] → [q k v][h][D] in place, each row_bytes long (a weight row, a bias
// entry, an int8 row's scale): a per-head fused q|k|v (GPT-NeoX, BLOOM) in the engine's
// q | k | v order. rows must be 3·H·D. One copy of the tensor as scratch.
void per_head_qkv_rows_in_place(void* data, int64_t rows, int64_t H, int64_t D, size_t row_bytes);

// '*' matches any run of characters; "{i}" matches a run of digits.
bool name_pattern_match(std::string_view pattern, std::string_view name);

}  // namespace tfp::model
