// tfp forward — one forward pass, printed as JSON.
//   token models:    logits (T, V) of decoder LMs, or hidden states (T, C) of encoders;
//                    --attention adds every layer's probabilities [layer][head][Tq][Tk]
//                    under "attention" (rows = queries, post-softmax)
//   encoder–decoder: --ids (or --text, --text-file) is the encoder's input (S tokens),
//                    --decoder-ids (or --decoder-text, --decoder-text-file) the decoder's
//                    (T tokens, starting with the decoder start token); logits (T, V);
//                    --attention adds "encoder_attentions" [layer][head][S][S],
//                    "decoder_attentions" [layer][head][T][T] and "cross_attentions"
//                    [layer][head][T][S] (and, as before, the same under "attention":
//                    {"encoder", "decoder", "cross"}). --tgt-ids/--tgt-text are the older
//                    names of --decoder-ids/--decoder-text.
//   recurrent (numbers-gru): as an encoder–decoder with no self-attention: its additive
//                    attention is one cross-attention layer of one head (cli/gru.h)
//   nn.Transformer*: --inputs FILE.safetensors (see model/torch_inputs.h); output (and
//                    memory) per batch item; --attention adds "<stack>.<i>.<attn|cross>.probs"
//                    per batch item, [batch][head][Tq][Tk]
#include "cli/precision_arg.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/gru.h"
#include "nn/observer.h"
#include "model/model.h"
#include "model/torch_inputs.h"

namespace tfp::cli {

namespace {

// The encoder's (or only) input: exactly one of --ids, --text, --text-file.
std::vector<int32_t> input_ids(const model::LoadedModel& m, const Args& a, TextInput& input) {
  std::optional<std::vector<int32_t>> ids =
      token_ids_option(a, "forward", m.tokenizer.get(), m.source, "--ids", "--text", "--text-file", input);
  TFP_CHECK(ids.has_value(), "forward: give the input as --ids 1,2,3, --text TEXT or --text-file PATH");
  return std::move(*ids);
}

// [layer][head][Tq][Tk] from "<stack>.<i>.<kind>.probs".
void write_layers(JsonWriter& w, const nn::RecordingObserver& obs, const char* stack, const char* kind,
                  int64_t layers) {
  w.begin_array();
  for (int64_t i = 0; i < layers; ++i)
    w.tensor(obs.get(std::string(stack) + "." + std::to_string(i) + "." + kind + ".probs"));
  w.end_array();
}

void forward_tokens(const model::LoadedModel& m, const Args& a, JsonWriter& w, TextInput& input) {
  const model::ModelConfig& c = m.config();
  TFP_CHECK(c.has_embeddings, "forward: '", m.source,
            "' is a PyTorch nn.Transformer checkpoint (it takes embeddings): pass --inputs FILE.safetensors");
  const bool attention = a.has("--attention");
  nn::RecordingObserver obs(attention ? std::vector<std::string>{"*.probs"} : std::vector<std::string>{});
  nn::Observer* o = attention ? &obs : nullptr;
  if (c.architecture != model::Architecture::encoder_decoder) {
    const char* kind = c.architecture == model::Architecture::decoder_only ? "a decoder-only" : "an encoder-only";
    for (const char* opt : {"--decoder-ids", "--decoder-text", "--decoder-text-file"})
      TFP_CHECK(!a.has(opt), "forward: ", opt, " does not apply to ", kind, " model");
  }
  const std::vector<int32_t> ids = input_ids(m, a, input);
  TFP_CHECK(!ids.empty(), "forward: no input tokens");

  w.begin_object();
  w.key("ids").values(ids);
  write_tokens(w, "tokens", m.tokenizer.get(), ids);
  switch (c.architecture) {
    case model::Architecture::decoder_only: {
      for (const char* opt : {"--token-type-ids", "--attention-mask"})
        TFP_CHECK(!a.has(opt), "forward: ", opt, " does not apply to a decoder-only model");
      const model::ForwardResult r = model::forward_decoder_only(c, m.weights(), ids, o);
      if (!r.logits.empty()) w.key("logits").tensor(r.logits);
      else w.key("hidden").tensor(r.hidden);
      if (attention) write_layers(w.key("attention"), obs, "dec", "attn", c.n_decoder_layers);
      break;
    }
    case model::Architecture::encoder_only: {
      std::vector<int32_t> types;
      if (a.has("--token-type-ids")) {
        types = parse_int_list("--token-type-ids", *a.get("--token-type-ids"));
        TFP_CHECK(types.size() == ids.size(), "forward: --token-type-ids has ", types.size(), " values for ",
                  ids.size(), " tokens");
      }
      std::vector<uint8_t> padding;  // Hugging Face attention_mask: 1 = real token, 0 = padding
      if (a.has("--attention-mask")) {
        const std::vector<int32_t> mask = parse_int_list("--attention-mask", *a.get("--attention-mask"));
        TFP_CHECK(mask.size() == ids.size(), "forward: --attention-mask has ", mask.size(), " values for ",
                  ids.size(), " tokens");
        for (int32_t x : mask) {
          TFP_CHECK(x == 0 || x == 1, "forward: --attention-mask values must be 0 or 1, got ", x);
          padding.push_back(x == 0 ? 1 : 0);
        }
      }
      const model::ForwardResult r = model::forward_encoder_only(c, m.weights(), ids, types, padding, o);
      w.key("hidden").tensor(r.hidden);
      if (!r.logits.empty()) w.key("logits").tensor(r.logits);
      if (attention) write_layers(w.key("attention"), obs, "enc", "attn", c.n_encoder_layers);
      break;
    }
    case model::Architecture::encoder_decoder: {
      for (const char* opt : {"--token-type-ids", "--attention-mask"})
        TFP_CHECK(!a.has(opt), "forward: ", opt, " does not apply to an encoder-decoder model");
      const std::vector<int32_t> tgt = decoder_ids(a, m.tokenizer.get(), m.source, m.decoder_start_token_id, input);
      const model::ForwardResult r = model::forward_encoder_decoder(c, m.weights(), ids, tgt, {}, o);
      w.key("decoder_ids").values(tgt);
      write_tokens(w, "decoder_tokens", m.tokenizer.get(), tgt);
      w.key("tgt_ids").values(tgt);  // the older names of the two above
      write_tokens(w, "tgt_tokens", m.tokenizer.get(), tgt);
      // A config may turn the LM head off: then the decoder's hidden states, as decoder-only models print them.
      if (!r.logits.empty()) w.key("logits").tensor(r.logits);
      else w.key("hidden").tensor(r.hidden);
      if (attention) {
        write_layers(w.key("encoder_attentions"), obs, "enc", "attn", c.n_encoder_layers);  // [L][H][S][S]
        write_layers(w.key("decoder_attentions"), obs, "dec", "attn", c.n_decoder_layers);  // [L][H][T][T]
        write_layers(w.key("cross_attentions"), obs, "dec", "cross", c.n_decoder_layers);   // [L][H][T][S]
        w.key("attention").begin_object();  // the same, as earlier versions printed them
        write_layers(w.key("encoder"), obs, "enc", "attn", c.n_encoder_layers);
        write_layers(w.key("decoder"), obs, "dec", "attn", c.n_decoder_layers);
        write_layers(w.key("cross"), obs, "dec", "cross", c.n_decoder_layers);
        w.end_object();
      }
      break;
    }
  }
  w.end_object();
}

void forward_torch(const model::LoadedModel& m, const Args& a, JsonWriter& w) {
  for (const char* opt : {"--ids", "--text", "--text-file", "--token-type-ids", "--attention-mask", "--decoder-ids",
                          "--decoder-text", "--decoder-text-file"})
    TFP_CHECK(!a.has(opt), "forward: ", opt, " cannot be combined with --inputs");
  const io::SafeTensors inputs = io::SafeTensors::load(*a.get("--inputs"));
  const int64_t B = model::torch_batch_size(m.family, inputs);
  const bool attention = a.has("--attention");
  std::vector<model::TorchResult> results;
  std::vector<nn::RecordingObserver> observers;
  for (int64_t b = 0; b < B; ++b) {
    observers.emplace_back(attention ? std::vector<std::string>{"*.probs"} : std::vector<std::string>{});
    const model::TorchInputs in = model::torch_inputs(m.config(), m.family, inputs, b);
    results.push_back(model::run_torch(m.config(), m.weights(), m.family, in, attention ? &observers.back() : nullptr));
  }
  w.begin_object();
  w.key("batch").value(B);
  w.key("output").begin_array();
  for (const auto& r : results) w.tensor(r.output);
  w.end_array();
  if (!results[0].memory.empty()) {
    w.key("memory").begin_array();
    for (const auto& r : results) w.tensor(r.memory);
    w.end_array();
  }
  if (attention) {
    w.key("attention").begin_object();
    for (size_t k = 0; k < observers[0].records().size(); ++k) {
      w.key(observers[0].records()[k].first).begin_array();
      for (const auto& o : observers) w.tensor(o.records()[k].second);
      w.end_array();
    }
    w.end_object();
  }
  w.end_object();
}

}  // namespace

void cmd_forward(const std::vector<std::string>& argv, JsonWriter& w, TextInput& input) {
  Args a = parse_args(argv, 1, "forward", 1,
                      {"--text", "--text-file", "--ids", "--token-type-ids", "--attention-mask", "--decoder-ids",
                       "--decoder-text", "--decoder-text-file", "--tgt-ids", "--tgt-text", "--inputs", "--precision"},
                      {"--attention"});
  alias_option(a, "forward", "--tgt-ids", "--decoder-ids");
  alias_option(a, "forward", "--tgt-text", "--decoder-text");
  if (is_gru_dir(a.positional[0])) {  // models/numbers-gru: not a Transformer
    gru_forward(a, w, input);
    return;
  }
  const model::LoadedModel m = model::load_model_dir(a.positional[0], precision_arg(a));
  if (a.has("--inputs")) forward_torch(m, a, w);
  else forward_tokens(m, a, w, input);
}

}  // namespace tfp::cli
