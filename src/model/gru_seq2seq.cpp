// Loading and running the GRU encoder–decoder. See gru_seq2seq.h and, for the maths,
// train/seq_gru_model.h.
#include "model/gru_seq2seq.h"

#include <cmath>
#include <cstring>

#include <nlohmann/json.hpp>

#include "io/file.h"
#include "io/json_depth.h"
#include "io/json_excerpt.h"
#include "kernels/kernels.h"
#include "tokenizer/tokenizer_json.h"

namespace tfp::model {

void check_gru_config(const GruSeq2SeqConfig& c) {
  const char* op = "gru_seq2seq config";
  TFP_CHECK(c.vocab_size > 0 && c.embed_dim > 0 && c.encoder_hidden > 0 && c.decoder_hidden > 0 &&
                c.attention_dim > 0,
            op, ": vocab_size, embed_dim, encoder_hidden, decoder_hidden and attention_dim must be positive");
  TFP_CHECK(c.max_source_positions > 0 && c.max_target_tokens > 0, op,
            ": max_source_positions and max_target_tokens must be positive");
  TFP_CHECK(c.decoder_start_token_id >= 0 && c.decoder_start_token_id < c.vocab_size, op,
            ": decoder_start_token_id ", c.decoder_start_token_id, " outside the vocabulary of ", c.vocab_size);
  TFP_CHECK(c.eos_token_id < c.vocab_size, op, ": eos_token_id ", c.eos_token_id, " outside the vocabulary");
}

bool is_gru_config_json(std::string_view text) {
  if (io::json_nesting(text).depth > io::kMaxJsonDepth) return false;  // the config reader says why
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  return j.is_object() && j.contains("model_type") && j["model_type"] == "tfp_gru_seq2seq";
}

GruSeq2SeqConfig parse_gru_config_json(std::string_view text, const std::string& source) {
  io::check_json_depth(text, source);
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  TFP_CHECK(j.is_object(), source, ": not a JSON object");
  TFP_CHECK(j.contains("model_type") && j["model_type"] == "tfp_gru_seq2seq", source,
            ": \"model_type\" must be \"tfp_gru_seq2seq\"");
  auto integer = [&](const char* key, int64_t fallback, bool required) -> int64_t {
    if (!j.contains(key)) {
      TFP_CHECK(!required, source, ": tfp_gru_seq2seq config needs integer \"", key, "\"");
      return fallback;
    }
    TFP_CHECK(j[key].is_number_integer(), source, ": \"", key, "\" must be an integer");
    return j[key].get<int64_t>();
  };
  GruSeq2SeqConfig c;
  c.vocab_size = integer("vocab_size", 0, true);
  c.embed_dim = integer("embed_dim", 0, true);
  c.encoder_hidden = integer("encoder_hidden", 0, true);
  c.decoder_hidden = integer("decoder_hidden", 0, true);
  c.attention_dim = integer("attention_dim", 0, true);
  c.max_source_positions = integer("max_source_positions", 0, true);
  c.max_target_tokens = integer("max_target_tokens", 0, true);
  c.eos_token_id = static_cast<int32_t>(integer("eos_token_id", -1, false));
  c.decoder_start_token_id = static_cast<int32_t>(integer("decoder_start_token_id", 0, true));
  c.pad_token_id = static_cast<int32_t>(integer("pad_token_id", 0, false));
  if (j.contains("bidirectional")) {
    TFP_CHECK(j["bidirectional"].is_boolean(), source, ": \"bidirectional\" must be true or false");
    c.bidirectional = j["bidirectional"].get<bool>();
  }
  check_gru_config(c);
  return c;
}

std::string gru_config_to_json(const GruSeq2SeqConfig& c) {
  nlohmann::json j = {{"model_type", "tfp_gru_seq2seq"},
                      {"vocab_size", c.vocab_size},
                      {"embed_dim", c.embed_dim},
                      {"encoder_hidden", c.encoder_hidden},
                      {"bidirectional", c.bidirectional},
                      {"decoder_hidden", c.decoder_hidden},
                      {"attention_dim", c.attention_dim},
                      {"max_source_positions", c.max_source_positions},
                      {"max_target_tokens", c.max_target_tokens},
                      {"eos_token_id", c.eos_token_id},
                      {"decoder_start_token_id", c.decoder_start_token_id},
                      {"pad_token_id", c.pad_token_id}};
  return j.dump(2);
}

std::vector<std::pair<std::string, Shape>> gru_tensor_shapes(const GruSeq2SeqConfig& c) {
  const int64_t V = c.vocab_size, E = c.embed_dim, H = c.encoder_hidden, D = c.decoder_hidden,
                A = c.attention_dim, Ce = c.encoder_width();
  std::vector<std::pair<std::string, Shape>> s = {{"embed.weight", {V, E}}};
  for (const std::string suffix : {"", "_reverse"}) {
    if (!suffix.empty() && !c.bidirectional) break;
    s.push_back({"encoder.weight_ih_l0" + suffix, {3 * H, E}});
    s.push_back({"encoder.weight_hh_l0" + suffix, {3 * H, H}});
    s.push_back({"encoder.bias_ih_l0" + suffix, {3 * H}});
    s.push_back({"encoder.bias_hh_l0" + suffix, {3 * H}});
  }
  s.push_back({"bridge.weight", {D, H}});
  s.push_back({"bridge.bias", {D}});
  s.push_back({"attention.query.weight", {A, D}});
  s.push_back({"attention.query.bias", {A}});
  s.push_back({"attention.key.weight", {A, Ce}});
  s.push_back({"attention.v", {A}});
  s.push_back({"decoder.weight_ih", {3 * D, E + Ce}});
  s.push_back({"decoder.weight_hh", {3 * D, D}});
  s.push_back({"decoder.bias_ih", {3 * D}});
  s.push_back({"decoder.bias_hh", {3 * D}});
  s.push_back({"out.weight", {V, D + Ce}});
  s.push_back({"out.bias", {V}});
  return s;
}

GruSeq2SeqModel load_gru_seq2seq(const std::string& config_json, std::vector<uint8_t> safetensors,
                                 const std::optional<std::string>& tokenizer_json, const std::string& name) {
  GruSeq2SeqModel m;
  m.config = parse_gru_config_json(config_json, io::join_path(name, "config.json"));
  auto st = std::make_shared<io::SafeTensors>(
      io::SafeTensors::parse(std::move(safetensors), io::join_path(name, "model.safetensors")));
  m.tensors = st;
  const auto shapes = gru_tensor_shapes(m.config);
  std::vector<std::string> problems;
  for (const auto& [tname, shape] : shapes) {
    const io::TensorEntry* e = st->find(tname);
    if (!e) problems.push_back(tname + ": missing");
    else if (e->shape != shape) problems.push_back(tname + ": shape " + shape_str(e->shape) + ", expected " + shape_str(shape));
  }
  for (const io::TensorEntry& e : st->entries()) {
    bool known = false;
    for (const auto& s : shapes) known = known || s.first == e.name;
    if (!known) problems.push_back(e.name + ": unexpected tensor");
  }
  if (!problems.empty()) {
    // The first 20, each in at most 300 bytes (a name is the file's), then a count.
    std::string all;
    for (size_t i = 0; i < problems.size() && i < 20; ++i) all += "\n  " + io::text_excerpt(problems[i], 300);
    if (problems.size() > 20) all += "\n  ... and " + std::to_string(problems.size() - 20) + " more";
    TFP_FAIL(st->source(), ": does not match the tfp_gru_seq2seq layout:", all);
  }
  auto t = [&](const std::string& n) { return st->f32(n); };
  auto gru = [&](const std::string& ih, const std::string& hh, const std::string& bi, const std::string& bh) {
    nn::GruWeights g;
    g.ih.weight = t(ih), g.ih.bias = t(bi), g.hh.weight = t(hh), g.hh.bias = t(bh);
    return g;
  };
  m.embed = t("embed.weight");
  m.enc_fwd = gru("encoder.weight_ih_l0", "encoder.weight_hh_l0", "encoder.bias_ih_l0", "encoder.bias_hh_l0");
  if (m.config.bidirectional)
    m.enc_bwd = gru("encoder.weight_ih_l0_reverse", "encoder.weight_hh_l0_reverse", "encoder.bias_ih_l0_reverse",
                    "encoder.bias_hh_l0_reverse");
  m.bridge.weight = t("bridge.weight"), m.bridge.bias = t("bridge.bias");
  m.attention.query.weight = t("attention.query.weight"), m.attention.query.bias = t("attention.query.bias");
  m.attention.key.weight = t("attention.key.weight");
  m.attention.v = t("attention.v");
  m.dec = gru("decoder.weight_ih", "decoder.weight_hh", "decoder.bias_ih", "decoder.bias_hh");
  m.out.weight = t("out.weight"), m.out.bias = t("out.bias");
  if (tokenizer_json) {
    m.tokenizer = std::make_unique<Tokenizer>(load_tokenizer_json(*tokenizer_json, io::join_path(name, "tokenizer.json")));
    TFP_CHECK(static_cast<int64_t>(m.tokenizer->vocab_size()) <= m.config.vocab_size, name, ": tokenizer.json has ",
              m.tokenizer->vocab_size(), " tokens but vocab_size is ", m.config.vocab_size);
  }
  return m;
}

GruSeq2SeqModel load_gru_seq2seq_dir(const std::string& dir) {
  const std::string tok = io::join_path(dir, "tokenizer.json");
  std::optional<std::string> tok_text;
  if (io::file_exists(tok)) tok_text = io::read_text_file(tok);
  return load_gru_seq2seq(io::read_text_file(io::join_path(dir, "config.json")),
                          io::read_file(io::join_path(dir, "model.safetensors")), tok_text, dir);
}

GruEncoded gru_encode(const GruSeq2SeqModel& m, std::span<const int32_t> src) {
  const GruSeq2SeqConfig& c = m.config;
  const int64_t S = static_cast<int64_t>(src.size()), E = c.embed_dim, H = c.encoder_hidden;
  TFP_CHECK(S > 0 && S <= c.max_source_positions, "gru_encode: source of ", S, " tokens (1..",
            c.max_source_positions, ")");
  Tensor x({S, E});  // (S, E) embeddings
  for (int64_t j = 0; j < S; ++j) {
    TFP_CHECK(src[j] >= 0 && src[j] < c.vocab_size, "gru_encode: token id ", src[j], " at position ", j,
              " outside the vocabulary of ", c.vocab_size);
    std::memcpy(x.row(j), m.embed.data + src[j] * E, sizeof(float) * E);
  }
  const Tensor fwd = nn::gru_sequence(x.view(), m.enc_fwd, false);  // (S, H) h→_j
  GruEncoded r;
  r.states = Tensor({S, c.encoder_width()});
  Tensor bwd;
  if (c.bidirectional) bwd = nn::gru_sequence(x.view(), m.enc_bwd, true);  // (S, H) h←_j
  for (int64_t j = 0; j < S; ++j) {
    std::memcpy(r.states.row(j), fwd.row(j), sizeof(float) * H);
    if (c.bidirectional) std::memcpy(r.states.row(j) + H, bwd.row(j), sizeof(float) * H);
  }
  r.summary = Tensor({H});
  std::memcpy(r.summary.ptr(), c.bidirectional ? bwd.row(0) : fwd.row(S - 1), sizeof(float) * H);
  return r;
}

// One decoder step: attention with s_{t−1}, then the GRU, then the output layer.
Tensor gru_decoder_step(const GruSeq2SeqModel& m, const GruEncoded& enc, Tensor& s, int32_t y_prev, float* probs,
                        float* scores) {
  const GruSeq2SeqConfig& c = m.config;
  const int64_t E = c.embed_dim, Ce = c.encoder_width(), D = c.decoder_hidden, S = enc.states.shape[0];
  TFP_CHECK(y_prev >= 0 && y_prev < c.vocab_size, "gru decoder: token id ", y_prev, " outside the vocabulary");
  const nn::AdditiveAttentionResult a = nn::additive_attention(s.view(), enc.states.view(), m.attention);
  if (probs) std::memcpy(probs, a.probs.ptr(), sizeof(float) * S);
  if (scores) std::memcpy(scores, a.scores.ptr(), sizeof(float) * S);
  Tensor x({1, E + Ce});  // [E[y_{t−1}] ; c_t]
  std::memcpy(x.ptr(), m.embed.data + y_prev * E, sizeof(float) * E);
  std::memcpy(x.ptr() + E, a.context.ptr(), sizeof(float) * Ce);
  s = nn::gru_step(x.view(), s.view(), m.dec);
  Tensor o({1, D + Ce});  // [s_t ; c_t]
  std::memcpy(o.ptr(), s.ptr(), sizeof(float) * D);
  std::memcpy(o.ptr() + D, a.context.ptr(), sizeof(float) * Ce);
  return nn::linear(o.view(), m.out, "gru decoder output");
}

Tensor gru_initial_state(const GruSeq2SeqModel& m, const GruEncoded& enc) {
  Tensor s = nn::linear(TensorView{enc.summary.ptr(), {1, m.config.encoder_hidden}}, m.bridge, "gru bridge");
  for (float& v : s.data) v = std::tanh(v);
  return s;  // (1, D)
}

GruDecodeResult gru_greedy_decode(const GruSeq2SeqModel& m, std::span<const int32_t> src, int max_tokens) {
  const GruSeq2SeqConfig& c = m.config;
  const int limit = max_tokens > 0 ? max_tokens : static_cast<int>(c.max_target_tokens);
  const GruEncoded enc = gru_encode(m, src);
  const int64_t S = enc.states.shape[0];
  Tensor s = gru_initial_state(m, enc);
  GruDecodeResult r;
  std::vector<float> att, scores;
  int32_t y = c.decoder_start_token_id;
  for (int t = 0; t < limit; ++t) {
    att.resize(static_cast<size_t>(t + 1) * S);
    scores.resize(att.size());
    Tensor logits = gru_decoder_step(m, enc, s, y, att.data() + static_cast<size_t>(t) * S,
                                     scores.data() + static_cast<size_t>(t) * S);
    const int64_t V = logits.numel();
    // log p of the argmax: z_max − logsumexp(z).
    kernels::softmax_rows(logits.ptr(), 1, static_cast<int>(V), V);
    y = static_cast<int32_t>(std::max_element(logits.data.begin(), logits.data.end()) - logits.data.begin());
    r.log_prob += std::log(static_cast<double>(logits.data[static_cast<size_t>(y)]));
    r.ids.push_back(y);
    if (y == c.eos_token_id) break;
  }
  r.attention = Tensor({static_cast<int64_t>(r.ids.size()), S}, std::move(att));
  r.scores = Tensor({static_cast<int64_t>(r.ids.size()), S}, std::move(scores));
  return r;
}

GruForwardResult gru_forward(const GruSeq2SeqModel& m, std::span<const int32_t> src, std::span<const int32_t> tgt) {
  TFP_CHECK(!tgt.empty(), "gru_forward: empty decoder input");
  const GruEncoded enc = gru_encode(m, src);
  const int64_t S = enc.states.shape[0], T = static_cast<int64_t>(tgt.size()), V = m.config.vocab_size;
  Tensor s = gru_initial_state(m, enc);
  GruForwardResult r;
  r.logits = Tensor({T, V});
  r.attention = Tensor({T, S});
  r.states = Tensor({T, m.config.decoder_hidden});
  for (int64_t t = 0; t < T; ++t) {
    const Tensor logits = gru_decoder_step(m, enc, s, tgt[t], r.attention.row(t));
    std::memcpy(r.logits.row(t), logits.ptr(), sizeof(float) * V);
    std::memcpy(r.states.row(t), s.ptr(), sizeof(float) * m.config.decoder_hidden);
  }
  return r;
}

namespace {

// The recurrent decoder's memory for beam search: s (1, D) over the shared encoding.
class GruState final : public DecoderState {
 public:
  GruState(const GruSeq2SeqModel& m, const GruEncoded& enc) : m_(m), enc_(enc), s_(gru_initial_state(m, enc)) {}
  std::unique_ptr<DecoderState> clone() const override { return std::make_unique<GruState>(*this); }
  std::vector<float> step(int32_t token) override {
    const Tensor logits = gru_decoder_step(m_, enc_, s_, token, nullptr);  // (1, V)
    return logits.data;
  }

 private:
  const GruSeq2SeqModel& m_;
  const GruEncoded& enc_;
  Tensor s_;  // (1, D)
};

}  // namespace

Translation gru_translate(const GruSeq2SeqModel& m, std::span<const int32_t> src, DecodeOptions opt) {
  const GruSeq2SeqConfig& c = m.config;
  if (opt.start_id < 0) opt.start_id = c.decoder_start_token_id;
  if (opt.eos_id < 0) opt.eos_id = c.eos_token_id;
  TFP_CHECK(!src.empty(), "translate: the source is empty (no tokens)");
  TFP_CHECK(opt.max_tokens >= 0, "translate: max_tokens must be >= 0, got ", opt.max_tokens);
  const int max_tokens = opt.max_tokens > 0 ? opt.max_tokens : static_cast<int>(c.max_target_tokens);
  const GruEncoded enc = gru_encode(m, src);
  Translation t = beam_search(GruState(m, enc), opt, max_tokens, c.vocab_size);
  // Alignment: teacher forcing over start + every output token but the last, so row t
  // is α_t, the attention of the step that chose ids[t].
  std::vector<int32_t> tgt{opt.start_id};
  tgt.insert(tgt.end(), t.ids.begin(), t.ids.end() - 1);
  GruForwardResult f = gru_forward(m, src, tgt);
  const int64_t T = f.attention.shape[0], S = f.attention.shape[1];
  t.cross_probs.push_back(Tensor({1, T, S}));
  t.cross_probs[0].data = f.attention.data;
  t.alignment = std::move(f.attention);
  return t;
}

}  // namespace tfp::model
