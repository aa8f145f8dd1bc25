// Inputs for PyTorch nn.Transformer / TransformerEncoder / TransformerDecoder checkpoints,
// read from a safetensors file of named tensors, batch-first as PyTorch's batch_first=True:
//   src (B, S, C)  tgt (B, T, C)  memory (B, S, C) (decoder only)          F32/F16/BF16
//   src_mask (S, S)  tgt_mask (T, T)  memory_mask (T, S)     float = added to the scores,
//                                                            BOOL  = true means masked
//   src_key_padding_mask (B, S)  tgt_key_padding_mask (B, T)
//   memory_key_padding_mask (B, S)                           BOOL, true = padding
// A rank-2 src/tgt/memory (L, C) is a batch of one. Per-head (B·H, L, S) masks are not
// supported. Which tensors are needed: transformer → src, tgt; encoder → src;
// decoder → tgt, memory. Any other tensor name is an error (a typo must not be ignored).
#pragma once
#include "io/safetensors.h"
#include "model/config_json.h"
#include "model/transformer.h"

namespace tfp::model {

struct TorchInputs {
  Tensor src, tgt, memory;  // (S, C), (T, C), (S, C) of one batch item; empty when not used
  TransformerMasks masks;
};

// B, checked to agree across every batched input.
int64_t torch_batch_size(CheckpointFamily family, const io::SafeTensors& inputs);
// Batch item b.
TorchInputs torch_inputs(const ModelConfig& cfg, CheckpointFamily family,
                         const io::SafeTensors& inputs, int64_t b);

struct TorchResult {
  Tensor output;  // (T, C) decoder output, or (S, C) for an encoder
  Tensor memory;  // (S, C) encoder output of an nn.Transformer; empty otherwise
};

// The module's forward for one batch item; attention and intermediates go to `obs`.
TorchResult run_torch(const ModelConfig& cfg, const ModelWeights& w, CheckpointFamily family,
                      const TorchInputs& in, nn::Observer* obs = nullptr);

}  // namespace tfp::model
