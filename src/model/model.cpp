// Loading a model folder or in-memory files into a LoadedModel (see model.h).
#include "model/model.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "io/file.h"
#include "io/json_depth.h"
#include "kernels/kernels.h"
#include "model/config_bounds.h"
#include "model/weight_layout.h"
#include "nn/quantize_int8.h"
#include "tokenizer/tokenizer_json.h"

namespace tfp::model {

namespace {

// HF ties cls.predictions.decoder.bias to cls.predictions.bias (one vector). The binder
// took the first name present; a second copy under the other name must be that same
// vector, else the file is ambiguous and we say so rather than pick one.
void check_bert_decoder_bias(const io::SafeTensors& st, const TensorView& bound) {
  for (const char* name : {"cls.predictions.decoder.bias", "bert.cls.predictions.decoder.bias"}) {
    const io::TensorEntry* e = st.find(name);
    if (!e || !io::dtype_is_float_supported(e->dtype)) continue;
    const TensorView b = st.f32(*e);
    if (b.data == bound.data) continue;  // it is the one that was bound
    bool same = b.shape == bound.shape;
    for (int64_t i = 0; same && i < b.numel(); ++i) same = b.data[i] == bound.data[i];
    TFP_CHECK(same, st.source(), ": tensor '", name, "' ", shape_str(b.shape),
              " differs from cls.predictions.bias ", shape_str(bound.shape),
              ", but BERT ties them (the masked-LM decoder's bias is one vector)");
  }
}

// The shards an index names, checked against the files given and merged into one set:
// every file the weight_map names is there, and every tensor sits in the file it names.
io::SafeTensors load_shards(ModelFiles& files) {
  const std::string where = io::join_path(files.name, "model.safetensors.index.json");
  TFP_CHECK(files.index_json.has_value(), files.name, ": ", files.shards.size(),
            " safetensors shards given without model.safetensors.index.json");
  io::check_json_depth(*files.index_json, where);
  const nlohmann::json index = nlohmann::json::parse(*files.index_json, nullptr, false);
  TFP_CHECK(!index.is_discarded() && index.is_object(), where, ": not a JSON object");
  const auto map = index.find("weight_map");
  TFP_CHECK(map != index.end() && map->is_object() && !map->empty(), where,
            ": needs a non-empty \"weight_map\" of tensor name → shard file");
  std::vector<io::SafeTensors> parsed;
  std::map<std::string, size_t> by_file;
  for (auto& [name, bytes] : files.shards) {
    TFP_CHECK(!by_file.count(name), where, ": shard '", name, "' given twice");
    by_file[name] = parsed.size();
    parsed.push_back(io::SafeTensors::parse(std::move(bytes), io::join_path(files.name, name)));
  }
  for (auto it = map->begin(); it != map->end(); ++it) {
    TFP_CHECK(it->is_string(), where, ": weight_map['", it.key(), "'] must be a file name");
    const std::string file = it->get<std::string>();
    const auto f = by_file.find(file);
    TFP_CHECK(f != by_file.end(), where, ": tensor '", it.key(), "' is in shard '", file,
              "', which was not given (", files.shards.size(), " shard", files.shards.size() == 1 ? "" : "s", " given)");
    TFP_CHECK(parsed[f->second].contains(it.key()), where, ": tensor '", it.key(), "' is not in '", file,
              "' as the index says");
  }
  return io::SafeTensors::merge(std::move(parsed), io::join_path(files.name, "model.safetensors"));
}

}  // namespace

LoadedModel load_model(ModelFiles files) {
  LoadedModel m;
  m.source = files.name;
  const ParsedConfig parsed = parse_config_json(files.config_json, io::join_path(files.name, "config.json"));
  m.family = parsed.family;
  m.model.config = parsed.config;
  auto st = std::make_shared<io::SafeTensors>(
      files.shards.empty()
          ? io::SafeTensors::parse(std::move(files.safetensors), io::join_path(files.name, "model.safetensors"))
          : load_shards(files));
  // Before anything is sized by the config's counts: counts the file can hold.
  check_config_fits_file(m.model.config, *st, io::join_path(files.name, "config.json"));
  // A BERT file saved from BertForMaskedLM / BertForPreTraining carries the masked-LM
  // head (cls.predictions.*): bind and run it, so the output is vocabulary logits. A
  // BertModel file has none and gives hidden states.
  if (m.family == CheckpointFamily::bert && bert_has_mlm_head(*st))
    m.model.config.encoder_head = EncoderHead::masked_lm;
  m.model.weights = ModelWeights::for_config(m.model.config);
  // Asked for f16 or int8: a 16-bit file's matrices are bound as stored, whatever its size
  // (widening them first would only add their f32 size to the load's peak).
  const bool to_narrow = files.precision == Precision::f16 || files.precision == Precision::int8;
  m.report = bind_checkpoint(m.model.config, m.family, *st, m.model.weights, to_narrow ? 0 : kKeep16BitMinBytes);
  if (m.model.config.encoder_head == EncoderHead::masked_lm && m.family == CheckpointFamily::bert)
    check_bert_decoder_bias(*st, m.model.weights.mlm_bias);
  m.tensors = st;
  m.model.backing = st;
  // GPT-2 ties its LM head to wte; a stored lm_head.weight is accepted only if it is that
  // same matrix (an untied head would otherwise be silently replaced by wte), compared in
  // the precision the table is held in: a table narrowed as the file streamed in
  // (model/weights_stream.h) must be the head narrowed the same way.
  if (m.family == CheckpointFamily::gpt2) {
    if (const io::TensorEntry* head = st->find("lm_head.weight"); head && io::dtype_is_float_supported(head->dtype)) {
      // Row by row, through small buffers (no f32 copy of either table).
      const EmbeddingWeights& e = m.model.weights.embed;
      bool same = head->shape == e.token.shape && head->shape.size() == 2;
      const int64_t C = same ? head->shape[1] : 0;
      std::vector<float> a(static_cast<size_t>(C));
      std::vector<int8_t> q(static_cast<size_t>(C));
      for (int64_t r = 0; same && r < head->shape[0]; ++r) {
        io::f32_row(*st, *head, r, a.data());
        if (!e.token8.empty()) {  // int8: quantised as a table row is (one channel)
          float scale = 0;
          nn::quantize_int8_channels_into(a.data(), 1, C, C, 1, q.data(), &scale);
          same = scale == e.token8.scale[r] && std::equal(q.begin(), q.end(), e.token8.q + r * C);
        } else if (!e.token16.empty()) {  // 16-bit: rounded as the table's format rounds
          const uint16_t* row = e.token16.data + r * C;
          for (int64_t c = 0; same && c < C; ++c)
            same = (e.token16.bf16 ? kernels::f32_to_bf16_one(a[c]) : kernels::f32_to_f16_one(a[c])) == row[c];
        } else {
          same = std::equal(a.begin(), a.end(), e.token.data + r * C);
        }
      }
      TFP_CHECK(same, st->source(), ": lm_head.weight differs from wte.weight, but GPT-2 ties them "
                "(untied heads are not supported)");
    }
  }

  // Another precision: rewrite the weights by role in it and bind those; the file's own
  // bytes (and every f32 copy made from them) are released here (model/precision.h).
  // (Already held that way, e.g. f32 asked of an F32 file, or f16 of a BF16 file, whose
  // matrices stay BF16 under f16: nothing to do.)
  const std::string held = weights_precision_held(m.model.config, m.model.weights);
  if (files.precision != Precision::stored && held != precision_name(files.precision) &&
      !(files.precision == Precision::f16 && held == "bf16")) {
    std::vector<uint8_t> bytes = weights_at_precision(m.model.config, m.model.weights, files.precision);
    m.model.weights = ModelWeights::for_config(m.model.config);
    m.model.backing.reset();
    m.tensors.reset();
    st.reset();
    st = std::make_shared<io::SafeTensors>(io::SafeTensors::parse(
        std::move(bytes), io::join_path(files.name, std::string("model.safetensors (") + precision_name(files.precision) + ")")));
    bind_checkpoint(m.model.config, CheckpointFamily::tfp, *st, m.model.weights,
                    files.precision == Precision::f32 ? SIZE_MAX : 0);
    m.tensors = st;
    m.model.backing = st;
  }
  hold_linear_weights_out_in(m.model.config, m.model.weights);  // the M = 1 path reads (out, in) fastest

  if (files.tokenizer_json) {
    m.tokenizer = std::make_unique<Tokenizer>(
        load_tokenizer_json(*files.tokenizer_json, io::join_path(files.name, "tokenizer.json")));
    const ModelConfig& c = m.model.config;
    // Every id the tokenizer can produce must have an embedding row.
    TFP_CHECK(!c.has_embeddings || static_cast<int64_t>(m.tokenizer->vocab_size()) <= c.vocab_size,
              m.source, ": tokenizer.json has ", m.tokenizer->vocab_size(),
              " tokens but the model's vocab_size is ", c.vocab_size);
  }
  m.eos_token_id = parsed.eos_token_id;
  m.decoder_start_token_id = parsed.decoder_start_token_id;
  if (m.eos_token_id < 0 && m.tokenizer) m.eos_token_id = m.tokenizer->special_ids().eos;
  if (m.eos_token_id >= 0) m.eos_token_ids.push_back(m.eos_token_id);
  for (const int64_t id : parsed.more_eos_token_ids)
    if (id != m.eos_token_id) m.eos_token_ids.push_back(id);
  return m;
}

void save_model_dir(const std::string& dir, const std::string& config_json,
                    const std::vector<uint8_t>& safetensors, const std::string& tokenizer_json) {
  std::filesystem::create_directories(dir);
  io::write_file(io::join_path(dir, "config.json"), config_json.data(), config_json.size());
  io::write_file(io::join_path(dir, "model.safetensors"), safetensors);
  io::write_file(io::join_path(dir, "tokenizer.json"), tokenizer_json.data(), tokenizer_json.size());
}

LoadedModel load_model_dir(const std::string& dir, Precision precision) {
  TFP_CHECK(io::dir_exists(dir), "load_model: '", dir, "' is not a folder");
  const std::string weights = io::join_path(dir, "model.safetensors");
  const std::string index = io::join_path(dir, "model.safetensors.index.json");
  ModelFiles files;
  files.name = dir;
  if (io::file_exists(weights)) {
    files.safetensors = io::read_file(weights);
  } else if (io::file_exists(index)) {  // sharded: read every file the index names, once
    files.index_json = io::read_text_file(index);
    io::check_json_depth(*files.index_json, index);
    const nlohmann::json j = nlohmann::json::parse(*files.index_json, nullptr, false);
    const auto map = j.is_object() ? j.find("weight_map") : j.end();
    std::set<std::string> names;
    if (map != j.end() && map->is_object())
      for (const auto& v : *map)
        if (v.is_string()) names.insert(v.get<std::string>());
    for (const std::string& n : names) {
      TFP_CHECK(n.find('/') == std::string::npos && n.find('\\') == std::string::npos, "load_model: ", index,
                " names shard '", n, "' outside the folder");
      const std::string path = io::join_path(dir, n);
      TFP_CHECK(io::file_exists(path), "load_model: ", index, " names shard '", n, "', which is missing");
      files.shards.emplace_back(n, io::read_file(path));
    }
  } else {
    TFP_CHECK(!io::file_exists(io::join_path(dir, "pytorch_model.bin")), "load_model: '", dir,
              "' holds pytorch_model.bin (pickle), which is not supported: save it as model.safetensors");
    TFP_FAIL("load_model: '", dir, "' has no model.safetensors");
  }
  const std::string config = io::join_path(dir, "config.json");
  TFP_CHECK(io::file_exists(config), "load_model: '", dir, "' has no config.json");
  files.config_json = io::read_text_file(config);
  const std::string tok = io::join_path(dir, "tokenizer.json");
  if (io::file_exists(tok)) files.tokenizer_json = io::read_text_file(tok);
  files.precision = precision;
  return load_model(std::move(files));
}

Tokenizer load_tokenizer_dir(const std::string& dir) {
  const std::string tok = io::join_path(dir, "tokenizer.json");
  TFP_CHECK(io::file_exists(tok), "load_tokenizer: '", dir, "' has no tokenizer.json");
  return load_tokenizer_file(tok);
}

std::vector<uint8_t> save_weights_by_role(const ModelConfig& cfg, const ModelWeights& w, io::DType stored) {
  validate_weights(cfg, w);
  io::SafeTensorsWriter writer;
  writer.set_metadata("format", "tfp");
  for (const WeightSlot& s : weight_slots(cfg, const_cast<ModelWeights&>(w))) {
    if (s.empty()) continue;
    Tensor wide;  // a 16-bit tensor, widened
    const TensorView v = s.f32(wide);
    if (s.linear && s.view == &s.linear->weight && s.linear->layout == nn::WeightLayout::InOut) {
      // Our files store every Linear as (out, in): transpose Conv1D-layout weights.
      const int64_t in = v.shape[0], out = v.shape[1];
      Tensor t({out, in});
      kernels::transpose(v.data, in, out, t.ptr());
      writer.add_f32(s.role, t, stored);
    } else {
      writer.add_f32(s.role, v.shape, v.data, stored);
    }
  }
  return writer.finish();
}

}  // namespace tfp::model
