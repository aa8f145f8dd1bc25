// The precision a model's matrices are held in, chosen at load (issue 14):
//   stored  as the checkpoint stores them (F32; F16/BF16 kept 16-bit unless tiny,
//           kKeep16BitMinBytes, names_table.h; I8 + scales as int8)
//   f32     every matrix widened to f32
//   f16     Linear weights and token tables as IEEE half (a BF16 checkpoint's stay BF16);
//           the kernels widen them as they read (kernels.h MatmulArgs::B16)
//   int8    Linear weights and token tables as int8 with one f32 scale per output channel
//           (per row of a token table: the tied LM head's output channels), quantised by
//           nn/quantize_int8.h; the int8 kernel multiplies them (kernels::matmul_int8),
//           an embedding lookup dequantises its one row
// Biases, norms, position tables stay f32. Whatever the precision, the weights are held
// once: the checkpoint is rewritten by role in the target precision and its own bytes
// are released (peak during the load: the file + the converted weights). A file streamed
// in (model/weights_stream.h, the page's way) has its matrices narrowed as they arrive
// instead: the peak is about the converted weights alone.
//
// int8 in a safetensors file (our format, and what the int8 load writes internally):
//   <name>        dtype I8, the matrix as the slot expects it ((out, in) for our role-named
//                 files; a family's own layout, e.g. GPT-2 Conv1D (in, out), is transposed
//                 once at load)
//   <name>_scale  dtype F32, shape [out]: W[o, i] = q[o, i] · scale[o]
// e.g. "dec.0.attn.qkv.weight" I8 [2304, 768] + "dec.0.attn.qkv.weight_scale" F32 [2304].
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "io/safetensors.h"
#include "model/weights.h"

namespace tfp::model {

enum class Precision { stored, f32, f16, int8 };

constexpr const char* kInt8ScaleSuffix = "_scale";

const char* precision_name(Precision p);  // "stored", "f32", "f16", "int8"
// false for an unknown name ("" reads as stored).
bool precision_from_name(std::string_view name, Precision* out);

// The weights of a bound model as a safetensors file named by role (our own format,
// Linear weights (out, in)), its matrices in precision p (not `stored`).
std::vector<uint8_t> weights_at_precision(const ModelConfig& cfg, const ModelWeights& w, Precision p);

// Bytes the weights occupy as held: f32 4, 16-bit 2, int8 1 per element + 4 per scale.
int64_t weights_bytes_held(const ModelConfig& cfg, const ModelWeights& w);
// What the matrices are held as: "f32", "f16", "bf16", "int8" or "mixed".
std::string weights_precision_held(const ModelConfig& cfg, const ModelWeights& w);

// For the checkpoint binder: binds I8 tensor e and its e.name + "_scale" companion to
// slot (a Linear weight or token table), transposing an InOut Linear's (in, out) matrix
// to (out, in) in place, in st's own bytes, and putting a per-head fused q|k|v's rows and
// scales in q | k | v order (qkv_heads > 0: its H heads of qkv_head_dim). Marks the scale
// entry used. Returns "" or why it cannot ("has no companion 'x_scale' tensor ...").
std::string bind_int8(const io::SafeTensors& st, const io::TensorEntry& e, WeightSlot& slot, int64_t qkv_heads,
                      int64_t qkv_head_dim, std::unordered_set<const io::TensorEntry*>& used);

}  // namespace tfp::model
