// tfp info / tfp forward for the recurrent encoder–decoder (see cli/gru.h).
#include <map>
#include <nlohmann/json.hpp>

#include "cli/gru.h"
#include "io/file.h"
#include "model/gru_seq2seq.h"

namespace tfp::cli {

bool is_gru_dir(const std::string& dir) {
  const std::string config = io::join_path(dir, "config.json");
  return io::dir_exists(dir) && io::file_exists(config) && model::is_gru_config_json(io::read_text_file(config));
}

void gru_info(const std::string& dir, JsonWriter& w) {
  const model::GruSeq2SeqModel m = model::load_gru_seq2seq_dir(dir);
  const model::GruSeq2SeqConfig& c = m.config;
  int64_t parameters = 0;
  for (const auto& [name, shape] : model::gru_tensor_shapes(c)) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    parameters += n;
  }
  std::map<std::string, int64_t> dtypes;
  for (const io::TensorEntry& e : m.tensors->entries()) ++dtypes[io::dtype_name(e.dtype)];
  const int64_t Ce = c.encoder_width();

  w.begin_object();
  w.key("source").value(dir);
  w.key("family").value("tfp");
  w.key("model_type").value("tfp_gru_seq2seq");
  w.key("architecture").value("encoder_decoder");
  w.key("config").raw(nlohmann::json::parse(model::gru_config_to_json(c)).dump());
  w.key("description").begin_object();
  w.key("summary").value(std::string("recurrent encoder-decoder with additive attention: ") +
                         (c.bidirectional ? "bidirectional" : "unidirectional") + " GRU encoder (" +
                         std::to_string(c.encoder_hidden) + " per direction), GRU decoder (" +
                         std::to_string(c.decoder_hidden) + "), additive (Bahdanau) attention of width " +
                         std::to_string(c.attention_dim) + " over the " + std::to_string(Ce) +
                         "-wide encoder states; no self-attention, no positional encoding (the recurrence orders "
                         "the tokens); embeddings " +
                         std::to_string(c.embed_dim));
  w.key("kind").value("recurrent");
  w.key("layers").begin_object().key("encoder").value(int64_t{0}).key("decoder").value(int64_t{1}).end_object();
  w.key("positions").begin_object().key("kind").value("none").key("reason").value("recurrence").end_object();
  w.key("encoder").begin_object();
  w.key("cell").value("gru").key("bidirectional").value(c.bidirectional).key("hidden").value(c.encoder_hidden);
  w.key("output_width").value(Ce);
  w.end_object();
  w.key("decoder").begin_object();
  w.key("cell").value("gru").key("hidden").value(c.decoder_hidden).key("input_width").value(c.embed_dim + Ce);
  w.end_object();
  w.key("attention").begin_object();
  w.key("kind").value("additive").key("heads").value(int64_t{1}).key("dim").value(c.attention_dim);
  w.key("self_attention").value(false).key("cross_attention").value(true);
  w.end_object();
  w.key("max_source_positions").value(c.max_source_positions);
  w.key("max_target_tokens").value(c.max_target_tokens);
  w.end_object();
  w.key("parameters").value(parameters);
  w.key("tensors").value(static_cast<int64_t>(m.tensors->size()));
  w.key("dtypes").begin_object();
  for (const auto& [name, n] : dtypes) w.key(name).value(n);
  w.end_object();
  w.key("metadata").begin_object();
  for (const auto& [k, v] : m.tensors->metadata()) w.key(k).value(v);
  w.end_object();
  w.key("eos_token_id").value(int64_t{c.eos_token_id});
  w.key("decoder_start_token_id").value(int64_t{c.decoder_start_token_id});
  w.key("tokenizer");
  if (m.tokenizer) {
    w.begin_object();
    w.key("vocab_size").value(static_cast<int64_t>(m.tokenizer->vocab_size()));
    w.end_object();
  } else {
    w.null();
  }
  w.end_object();
}

void gru_forward(const Args& a, JsonWriter& w, TextInput& input) {
  for (const char* opt : {"--inputs", "--token-type-ids", "--attention-mask"})
    TFP_CHECK(!a.has(opt), "forward: ", opt, " does not apply to a recurrent encoder-decoder model");
  const std::string& dir = a.positional[0];
  const model::GruSeq2SeqModel m = model::load_gru_seq2seq_dir(dir);
  const Tokenizer* tok = m.tokenizer.get();
  std::optional<std::vector<int32_t>> src =
      token_ids_option(a, "forward", tok, dir, "--ids", "--text", "--text-file", input);
  TFP_CHECK(src.has_value(), "forward: give the input as --ids 1,2,3, --text TEXT or --text-file PATH");
  TFP_CHECK(!src->empty(), "forward: no input tokens");
  const std::vector<int32_t> tgt = decoder_ids(a, tok, dir, m.config.decoder_start_token_id, input);
  const model::GruForwardResult r = model::gru_forward(m, *src, tgt);  // logits (T, V), attention (T, S)

  w.begin_object();
  w.key("ids").values(*src);
  write_tokens(w, "tokens", tok, *src);
  w.key("decoder_ids").values(tgt);
  write_tokens(w, "decoder_tokens", tok, tgt);
  w.key("tgt_ids").values(tgt);
  write_tokens(w, "tgt_tokens", tok, tgt);
  w.key("recurrent").value(true);
  w.key("logits").tensor(r.logits);
  w.key("hidden").tensor(r.states);  // (T, D) the decoder states s_t
  if (a.has("--attention")) {
    Tensor cross = r.attention;  // (T, S) → [1 layer][1 head][T][S]
    cross.shape = {1, 1, r.attention.shape[0], r.attention.shape[1]};
    // No self-attention: zero encoder and decoder self-attention layers.
    w.key("encoder_attentions").begin_array().end_array();
    w.key("decoder_attentions").begin_array().end_array();
    w.key("cross_attentions").tensor(cross);
    w.key("attention").begin_object();
    w.key("encoder").begin_array().end_array();
    w.key("decoder").begin_array().end_array();
    w.key("cross").tensor(cross);
    w.end_object();
  }
  w.end_object();
}

}  // namespace tfp::cli
