// The architecture description of tfp info (see describe.h). Reads ModelConfig only; the
// numbers it derives (1/sqrt(D), rotated dimensions, ALiBi slopes) come from the same
// functions the forward pass calls.
#include "cli/describe.h"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "nn/feed_forward.h"
#include "nn/positional_alibi.h"

namespace tfp::cli {

namespace {

using model::Architecture;
using model::ModelConfig;
using model::Positional;

// A number as a person writes it: 10000, 0.25, 1e+06.
std::string num(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

const char* positions_name(Positional p) {
  switch (p) {
    case Positional::none: return "none";
    case Positional::learned: return "learned";
    case Positional::sinusoidal: return "sinusoidal";
    case Positional::rope: return "rope";
    case Positional::alibi: return "alibi";
    case Positional::relative: return "relative_buckets";
  }
  return "?";
}

const char* scaling_name(nn::RopeScaling s) {
  switch (s) {
    case nn::RopeScaling::None: return "none";
    case nn::RopeScaling::Linear: return "linear";
    case nn::RopeScaling::Llama3: return "llama3";
  }
  return "?";
}

// Where the norms sit around each sublayer.
const char* norm_placement(const ModelConfig& c) {
  if (c.sandwich_norms) return "sandwich";  // before the sublayer and on its output
  return c.norm_first ? "pre" : "post";
}

int64_t rotated_dims(const ModelConfig& c) {
  return static_cast<int64_t>(static_cast<double>(c.head_dim()) * c.rope.fraction);
}

// The score scale the attention applies: attn_scale, or 1/sqrt(D) when it is 0.
double score_scale(const ModelConfig& c) {
  return c.attn_scale > 0 ? c.attn_scale : 1.0 / std::sqrt(static_cast<double>(c.head_dim()));
}

// "1/sqrt(8)" when the scale is one (Gemma's query_pre_attn_scalar), else the number.
std::string scale_text(float scale) {
  if (scale == 1.0f) return "1";
  const double n = 1.0 / (static_cast<double>(scale) * scale);
  const double r = std::round(n);
  if (r >= 1 && std::fabs(n - r) < 1e-4 * r) return "1/sqrt(" + num(r) + ")";
  return num(scale);
}

// A float field as the config wrote it (1e-05, not 9.99999975e-06).
double as_written(float x) { return std::stod(num(x)); }

std::string activation_text(nn::Activation a) {
  switch (a) {
    case nn::Activation::relu: return "relu";
    case nn::Activation::gelu_erf: return "gelu (erf)";
    case nn::Activation::gelu_tanh: return "gelu (tanh approximation)";
    case nn::Activation::silu: return "silu";
  }
  return "?";
}

// The stack whose self-attention layers the windows describe.
int64_t windowed_layers(const ModelConfig& c) {
  return c.architecture == Architecture::encoder_only ? c.n_encoder_layers : c.n_decoder_layers;
}

bool any_window(const ModelConfig& c) {
  for (int64_t i = 0; i < windowed_layers(c); ++i)
    if (c.window(static_cast<size_t>(i)) > 0) return true;
  return false;
}

std::string positions_sentence(const ModelConfig& c) {
  switch (c.positional) {
    case Positional::none: return "no positional information";
    case Positional::learned:
      return "learned absolute positions (a table of " + std::to_string(c.max_positions) +
             " rows added to the token embeddings)";
    case Positional::sinusoidal:
      return std::string("sinusoidal positions added to the token embeddings (") +
             (c.sinusoidal_halves ? "sines in the first half of the channels, cosines in the second"
                                  : "sin/cos interleaved") +
             ")";
    case Positional::rope: {
      const int64_t R = rotated_dims(c);
      std::string s = "RoPE base " + num(c.rope.base) + " on " +
                      (R == c.head_dim() ? "all " + std::to_string(R)
                                         : std::to_string(R) + " of the " + std::to_string(c.head_dim())) +
                      " dimensions of each head (" + (c.rope.interleaved ? "adjacent pairs" : "rotate-half") + ")";
      if (c.rope.scaling != nn::RopeScaling::None)
        s += ", " + std::string(scaling_name(c.rope.scaling)) + " scaling by " + num(c.rope.factor);
      if (c.rope.local_base > 0) s += "; local layers use base " + num(c.rope.local_base) + " unscaled";
      return s;
    }
    case Positional::alibi:
      return "ALiBi: a per-head linear distance penalty added to the scores, no position embeddings";
    case Positional::relative:
      return "relative position buckets (" + std::to_string(c.relative.num_buckets) + " buckets, max distance " +
             std::to_string(c.relative.max_distance) +
             "): a learned per-head bias added to the scores, bidirectional in the encoder, causal in the decoder, "
             "computed in layer 0 and shared by every layer of the stack";
  }
  return "?";
}

std::string attention_sentence(const ModelConfig& c) {
  const int64_t H = c.n_heads, KV = c.kv_heads(), D = c.head_dim();
  std::string s = std::to_string(H) + " heads of size " + std::to_string(D);
  if (KV == 1 && H > 1)
    s += " sharing 1 key/value head (multi-query)";
  else if (KV != H)
    s += " sharing " + std::to_string(KV) + " key/value heads (grouped-query, " + std::to_string(H / KV) +
         " query heads each)";
  if (c.attn_scale <= 0)
    s += ", scores scaled by 1/sqrt(" + std::to_string(D) + ")";
  else if (c.attn_scale == 1.0f)
    s += ", scores not scaled";
  else
    s += ", scores scaled by " + scale_text(c.attn_scale) + " (not 1/sqrt(" + std::to_string(D) + "))";
  if (c.attn_softcap > 0) s += ", soft-capped at " + num(c.attn_softcap) + " (cap * tanh(score / cap))";
  if (c.qk_norm) s += ", q and k normed per head";
  if (any_window(c)) {
    s += ", windows per layer [";
    for (int64_t i = 0; i < windowed_layers(c); ++i) {
      const int64_t W = c.window(static_cast<size_t>(i));
      s += (i ? ", " : "") + (W > 0 ? "local " + std::to_string(W) : std::string("global"));
    }
    s += "]";
  }
  return s;
}

std::string norm_sentence(const ModelConfig& c) {
  std::string s = c.norm == model::NormKind::rms_norm ? "RMSNorm" : "LayerNorm";
  if (c.norm_plus_one) s += " with (1 + w) weights";
  if (c.sandwich_norms)
    s += " before each sublayer and on its output (sandwich)";
  else
    s += c.norm_first ? " before each sublayer (pre-norm)" : " after each residual sum (post-norm)";
  s += c.parallel_residual ? ", attention and MLP in parallel (x + attn(n1(x)) + mlp(n2(x)))" : ", sequential residual";
  return s;
}

std::string mlp_sentence(const ModelConfig& c) {
  return std::string(c.gated_ffn ? "gated " : "") + activation_text(c.activation) + " MLP of width " +
         std::to_string(c.d_ff) + (c.gated_ffn ? " (act(gate(x)) * up(x), then down)" : "");
}

std::string head_sentence(const ModelConfig& c) {
  std::string s;
  if (c.embedding_scale != 1.0f) s += "embeddings x " + num(c.embedding_scale) + ", ";
  if (c.embedding_norm) s += "a norm after the embeddings, ";
  if (!c.has_decoder() || !c.lm_head) {
    s += c.encoder_head == model::EncoderHead::token_classifier
             ? "a token classifier of " + std::to_string(c.n_labels) + " labels"
         : c.encoder_head == model::EncoderHead::masked_lm ? "a masked-LM head tied to the embeddings"
                                                           : "hidden states out (no head)";
    return s;
  }
  s += c.tied_lm_head ? "LM head tied to the embeddings" : "separate LM head";
  if (c.lm_head_scale != 1.0f) s += " (hidden x " + num(c.lm_head_scale) + " first)";
  if (c.final_softcap > 0) s += ", logits soft-capped at " + num(c.final_softcap);
  return s;
}

}  // namespace

std::string describe_summary(const ModelConfig& c) {
  std::ostringstream s;
  if (!c.has_embeddings) {  // PyTorch nn.Transformer / TransformerEncoder / TransformerDecoder
    s << "PyTorch nn.Transformer";
    if (c.architecture == Architecture::encoder_only)
      s << "Encoder, " << c.n_encoder_layers << " layers";
    else if (c.n_encoder_layers == 0)
      s << "Decoder (its memory is an input), " << c.n_decoder_layers << " layers";
    else
      s << ", " << c.n_encoder_layers << " encoder and " << c.n_decoder_layers << " decoder layers";
    s << " (masks as the caller gives them)";
  } else {
    switch (c.architecture) {
      case Architecture::decoder_only:
        s << "decoder-only Transformer, " << c.n_decoder_layers << " causal layers";
        break;
      case Architecture::encoder_only:
        s << "encoder-only Transformer, " << c.n_encoder_layers << " bidirectional layers";
        break;
      case Architecture::encoder_decoder:
        s << "encoder-decoder Transformer, " << c.n_encoder_layers << " encoder and " << c.n_decoder_layers
          << " decoder layers (decoder: causal self-attention, then cross-attention over the encoder's output)";
        break;
    }
  }
  s << " of width " << c.d_model << ": " << attention_sentence(c) << "; ";
  if (c.has_embeddings)
    s << positions_sentence(c) << "; ";
  else
    s << "takes embeddings as input, no positions of its own; ";
  s << norm_sentence(c) << "; " << mlp_sentence(c);
  if (c.has_embeddings) s << "; " << head_sentence(c);
  return s.str();
}

void write_description(JsonWriter& w, const ModelConfig& c) {
  w.begin_object();
  w.key("summary").value(describe_summary(c));
  w.key("kind").value("transformer");
  w.key("layers").begin_object();
  w.key("encoder").value(c.n_encoder_layers).key("decoder").value(c.n_decoder_layers);
  w.end_object();
  w.key("width").value(c.d_model);

  w.key("positions").begin_object();
  w.key("kind").value(c.has_embeddings ? positions_name(c.positional) : "none");
  switch (c.has_embeddings ? c.positional : Positional::none) {
    case Positional::none: break;
    case Positional::learned: w.key("max_positions").value(c.max_positions); break;
    case Positional::sinusoidal: w.key("layout").value(c.sinusoidal_halves ? "halves" : "interleaved"); break;
    case Positional::rope: {
      w.key("base").value(c.rope.base);
      w.key("local_base");  // Gemma 3's local layers
      if (c.rope.local_base > 0)
        w.value(c.rope.local_base);
      else
        w.null();
      w.key("base_per_layer").begin_array();  // local (windowed) layers use local_base when set
      for (int64_t i = 0; i < windowed_layers(c); ++i)
        w.value(c.window(static_cast<size_t>(i)) > 0 && c.rope.local_base > 0 ? c.rope.local_base : c.rope.base);
      w.end_array();
      w.key("fraction").value(c.rope.fraction);
      w.key("rotated_dims").value(rotated_dims(c));
      w.key("pairing").value(c.rope.interleaved ? "adjacent_pairs" : "rotate_half");
      w.key("scaling");
      if (c.rope.scaling == nn::RopeScaling::None) {
        w.null();
      } else {
        w.begin_object();
        w.key("type").value(scaling_name(c.rope.scaling));
        w.key("factor").value(c.rope.factor);
        if (c.rope.scaling == nn::RopeScaling::Llama3) {
          w.key("low_freq_factor").value(c.rope.low_freq_factor);
          w.key("high_freq_factor").value(c.rope.high_freq_factor);
          w.key("original_max_positions").value(c.rope.original_max_positions);
        }
        w.key("applies_to").value(c.rope.local_base > 0 ? "global layers" : "every layer");
        w.end_object();
      }
      break;
    }
    case Positional::alibi: {
      const std::vector<float> slopes = nn::alibi_slopes(static_cast<int>(c.n_heads));
      w.key("slopes").values(std::vector<double>(slopes.begin(), slopes.end()));
      break;
    }
    case Positional::relative:
      w.key("num_buckets").value(int64_t{c.relative.num_buckets});
      w.key("max_distance").value(int64_t{c.relative.max_distance});
      w.key("encoder").value("bidirectional").key("decoder").value("causal");
      w.key("shared_across_layers").value(true);
      break;
  }
  w.end_object();

  w.key("attention").begin_object();
  w.key("heads").value(c.n_heads);
  w.key("kv_heads").value(c.kv_heads());
  w.key("kind").value(c.kv_heads() == c.n_heads ? "multi-head" : c.kv_heads() == 1 ? "multi-query" : "grouped-query");
  w.key("head_dim").value(c.head_dim());
  w.key("scale").value(score_scale(c));
  w.key("scale_text")
      .value(c.attn_scale <= 0 ? "1/sqrt(" + std::to_string(c.head_dim()) + ")" : scale_text(c.attn_scale));
  w.key("scale_rule").value(c.attn_scale <= 0 ? "1/sqrt(head_dim)" : c.attn_scale == 1.0f ? "none" : "config");
  w.key("softcap");
  if (c.attn_softcap > 0)
    w.value(static_cast<double>(c.attn_softcap));
  else
    w.null();
  w.key("qk_norm").value(c.qk_norm);
  w.key("fused_qkv").value(c.fused_qkv);
  // Per layer of the self-attention stack: 0 = global, W = a query sees itself and the
  // W - 1 keys before it.
  w.key("windows").begin_array();
  for (int64_t i = 0; i < windowed_layers(c); ++i) w.value(c.window(static_cast<size_t>(i)));
  w.end_array();
  w.key("windows_stack").value(c.architecture == Architecture::encoder_only ? "encoder" : "decoder");
  w.end_object();

  w.key("norm").begin_object();
  w.key("kind").value(c.norm == model::NormKind::rms_norm ? "rms_norm" : "layer_norm");
  w.key("weight").value(c.norm_plus_one ? "1 + w" : "w");
  w.key("placement").value(norm_placement(c));
  w.key("eps").value(as_written(c.layer_norm_eps));
  w.key("embedding_norm").value(c.embedding_norm);
  w.key("encoder_final_norm").value(c.encoder_final_norm);
  w.key("decoder_final_norm").value(c.decoder_final_norm);
  w.end_object();
  w.key("residual").value(c.parallel_residual ? "parallel" : "sequential");

  w.key("mlp").begin_object();
  w.key("activation").value(nn::activation_name(c.activation));
  w.key("gated").value(c.gated_ffn);
  w.key("width").value(c.d_ff);
  w.end_object();

  w.key("embeddings").begin_object();
  w.key("vocab_size").value(c.vocab_size);
  w.key("scale").value(static_cast<double>(c.embedding_scale));
  w.key("token_types").value(c.type_vocab_size);
  w.end_object();
  w.key("head").begin_object();
  if (c.has_decoder() && c.lm_head && c.has_embeddings) {
    w.key("kind").value("lm");
    w.key("tied").value(c.tied_lm_head);
    w.key("scale").value(static_cast<double>(c.lm_head_scale));
    w.key("final_softcap");
    if (c.final_softcap > 0)
      w.value(static_cast<double>(c.final_softcap));
    else
      w.null();
  } else {
    w.key("kind").value(c.encoder_head == model::EncoderHead::token_classifier ? "token_classifier"
                        : c.encoder_head == model::EncoderHead::masked_lm      ? "masked_lm"
                                                                               : "none");
  }
  w.end_object();
  w.end_object();
}

}  // namespace tfp::cli
