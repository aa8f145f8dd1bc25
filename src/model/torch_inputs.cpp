// Reading nn.Transformer* inputs from safetensors and running the module (see header).
#include "model/torch_inputs.h"

#include <cstring>

namespace tfp::model {

namespace {

bool is_torch(CheckpointFamily f) {
  return f == CheckpointFamily::torch_transformer || f == CheckpointFamily::torch_encoder ||
         f == CheckpointFamily::torch_decoder;
}

// Sequence inputs the module kind reads.
std::vector<const char*> sequence_names(CheckpointFamily f) {
  switch (f) {
    case CheckpointFamily::torch_transformer: return {"src", "tgt"};
    case CheckpointFamily::torch_encoder: return {"src"};
    case CheckpointFamily::torch_decoder: return {"tgt", "memory"};
    default: return {};
  }
}

const char* const kMaskNames[] = {"src_mask", "tgt_mask", "memory_mask", "src_key_padding_mask",
                                  "tgt_key_padding_mask", "memory_key_padding_mask"};

std::string where(const io::SafeTensors& st, const std::string& name) {
  return "inputs '" + st.source() + "': tensor '" + name + "'";
}

// (B, L, C) or (L, C) → (B, L, C) as a shape.
Shape batched(const io::SafeTensors& st, const io::TensorEntry& e, int64_t C) {
  Shape s = e.shape;
  if (s.size() == 2) s.insert(s.begin(), 1);
  TFP_CHECK(s.size() == 3 && s[2] == C, where(st, e.name), " has shape ", shape_str(e.shape),
            ", expected (batch, length, ", C, ") or (length, ", C, ")");
  TFP_CHECK(s[1] > 0, where(st, e.name), " is empty");
  return s;
}

Tensor sequence(const io::SafeTensors& st, const std::string& name, int64_t C, int64_t b) {
  const io::TensorEntry& e = st.entry(name);
  const Shape s = batched(st, e, C);
  const TensorView v = st.f32(e);
  const int64_t n = s[1] * s[2];
  return Tensor({s[1], s[2]}, std::vector<float>(v.data + b * n, v.data + (b + 1) * n));
}

// A (rows, cols) attention mask: float → additive; BOOL → 0 / -inf.
Tensor attn_mask(const io::SafeTensors& st, const std::string& name, int64_t rows, int64_t cols) {
  const io::TensorEntry* e = st.find(name);
  if (!e) return {};
  TFP_CHECK(e->shape == (Shape{rows, cols}), where(st, name), " has shape ", shape_str(e->shape),
            ", expected [", rows, ", ", cols, "] (per-head 3-D masks are not supported)");
  if (e->dtype == io::DType::BOOL || e->dtype == io::DType::U8) {
    const auto bytes = st.bytes(*e);
    return bool_mask(std::vector<uint8_t>(bytes.begin(), bytes.end()), rows, cols);
  }
  const TensorView v = st.f32(*e);
  return Tensor({rows, cols}, std::vector<float>(v.data, v.data + rows * cols));
}

// A (B, L) key padding mask, BOOL, true = padding → row b.
std::vector<uint8_t> padding(const io::SafeTensors& st, const std::string& name, int64_t B, int64_t L,
                             int64_t b) {
  const io::TensorEntry* e = st.find(name);
  if (!e) return {};
  TFP_CHECK(e->dtype == io::DType::BOOL || e->dtype == io::DType::U8, where(st, name), " has dtype ",
            io::dtype_name(e->dtype), "; key padding masks must be BOOL (true = padding)");
  TFP_CHECK(e->shape == (Shape{B, L}) || (B == 1 && e->shape == Shape{L}), where(st, name), " has shape ",
            shape_str(e->shape), ", expected [", B, ", ", L, "]");
  const auto bytes = st.bytes(*e);
  std::vector<uint8_t> out(bytes.begin() + b * L, bytes.begin() + (b + 1) * L);
  for (uint8_t& x : out) x = x ? 1 : 0;
  return out;
}

}  // namespace

int64_t torch_batch_size(CheckpointFamily family, const io::SafeTensors& inputs) {
  TFP_CHECK(is_torch(family), "inputs: --inputs is for PyTorch nn.Transformer checkpoints, this model is ",
            family_name(family));
  // Every tensor must be one the module reads: a misspelt mask must not be ignored.
  const std::vector<const char*> seqs = sequence_names(family);
  for (const io::TensorEntry& e : inputs.entries()) {
    bool known = false;
    for (const char* n : seqs) known = known || e.name == n;
    for (const char* n : kMaskNames) known = known || e.name == n;
    TFP_CHECK(known, where(inputs, e.name), " is not an input of ", family_name(family), " (expected ",
              family == CheckpointFamily::torch_decoder ? "tgt, memory" : family == CheckpointFamily::torch_encoder ? "src" : "src, tgt",
              " and optional masks)");
  }
  int64_t B = -1;
  for (const char* n : seqs) {
    const io::TensorEntry* e = inputs.find(n);
    TFP_CHECK(e != nullptr, "inputs '", inputs.source(), "': missing tensor '", n, "'");
    const int64_t b = e->shape.size() == 3 ? e->shape[0] : 1;
    TFP_CHECK(B < 0 || B == b, where(inputs, n), " has batch size ", b, ", but another input has ", B);
    B = b;
  }
  TFP_CHECK(B > 0, "inputs '", inputs.source(), "': batch size is 0");
  return B;
}

TorchInputs torch_inputs(const ModelConfig& cfg, CheckpointFamily family, const io::SafeTensors& inputs,
                         int64_t b) {
  const int64_t B = torch_batch_size(family, inputs);
  TFP_CHECK(b >= 0 && b < B, "inputs: batch item ", b, " out of range [0, ", B, ")");
  const int64_t C = cfg.d_model;
  TorchInputs in;
  if (inputs.contains("src")) in.src = sequence(inputs, "src", C, b);
  if (inputs.contains("tgt") && family != CheckpointFamily::torch_encoder) in.tgt = sequence(inputs, "tgt", C, b);
  if (family == CheckpointFamily::torch_decoder) in.memory = sequence(inputs, "memory", C, b);
  const int64_t S = !in.src.empty() ? in.src.dim(0) : !in.memory.empty() ? in.memory.dim(0) : 0;
  const int64_t T = in.tgt.empty() ? 0 : in.tgt.dim(0);
  TransformerMasks& m = in.masks;
  if (!in.src.empty()) {
    m.src_mask = attn_mask(inputs, "src_mask", S, S);
    m.src_key_padding = padding(inputs, "src_key_padding_mask", B, S, b);
  } else {
    TFP_CHECK(!inputs.contains("src_mask") && !inputs.contains("src_key_padding_mask"), "inputs '",
              inputs.source(), "': src masks given but the module has no src");
  }
  if (T > 0) {
    m.tgt_mask = attn_mask(inputs, "tgt_mask", T, T);
    m.tgt_key_padding = padding(inputs, "tgt_key_padding_mask", B, T, b);
    m.memory_mask = attn_mask(inputs, "memory_mask", T, S);
    m.memory_key_padding = padding(inputs, "memory_key_padding_mask", B, S, b);
  } else {
    for (const char* n : {"tgt_mask", "tgt_key_padding_mask", "memory_mask", "memory_key_padding_mask"})
      TFP_CHECK(!inputs.contains(n), where(inputs, n), " given but the module has no decoder");
  }
  return in;
}

TorchResult run_torch(const ModelConfig& cfg, const ModelWeights& w, CheckpointFamily family,
                      const TorchInputs& in, nn::Observer* obs) {
  TorchResult r;
  switch (family) {
    case CheckpointFamily::torch_transformer:
      r.memory = transformer_encoder_forward(cfg, w, in.src, in.masks, obs);
      r.output = transformer_decoder_forward(cfg, w, in.tgt, r.memory, in.masks, obs);
      break;
    case CheckpointFamily::torch_encoder:
      r.output = transformer_encoder_forward(cfg, w, in.src, in.masks, obs);
      break;
    case CheckpointFamily::torch_decoder:
      r.output = transformer_decoder_forward(cfg, w, in.tgt, in.memory, in.masks, obs);
      break;
    default:
      TFP_FAIL("run_torch: ", family_name(family), " is not a PyTorch nn.Transformer checkpoint");
  }
  return r;
}

}  // namespace tfp::model
