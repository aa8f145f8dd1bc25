// Activation patching (TransformerLens's patching.py conventions): run a corrupted prompt
// with one activation replaced by its value from the clean prompt's run, and measure how
// much of the clean behaviour comes back.
//
// Metric, at the last position T-1 of each run:
//   logit_diff = logit(answer) - logit(foil)
//   logprob    = log softmax(logits)[answer]      (in double, stored as float)
// Normalised: (patched - corrupted) / (clean - corrupted), per metric. When the clean and
// corrupted metric are equal (e.g. the same ids) the normalisation is undefined: the
// metric's `normalizable` is false and its `normalized` table is left empty - never NaN.
//
// Runs: clean once (recording what the sweeps need), corrupted once (the baseline, keeping
// its residual stream before each block), then one corrupted run per cell of each sweep,
// under the observer's edits (nn/observer.h). A patch in block l cannot change blocks < l,
// so a cell's run starts at block l from the kept stream (model::forward_decoder_only_from):
// about half the blocks of a whole sweep, with the same numbers as whole runs.
//   resid      (L+1, T)     "embed.out" (resid_pre of block 0), "dec.{i}.out" (resid_pre of
//                           block i+1; the last row is resid_post of the last block) at one
//                           position (TransformerLens get_act_patch_resid_pre plus the
//                           final resid_post row)
//   attn_out   (L, T)       "dec.{i}.attn.out" (after the out-projection, before the
//                           residual; get_act_patch_attn_out) at one position
//   mlp_out    (L, T)       "dec.{i}.ffn.out" (get_act_patch_mlp_out) at one position
//   head_all   (L, H)       head h's slice of "dec.{i}.attn.head_out" (probs·v, TL's z)
//                           at every position at once (get_act_patch_attn_head_out_all_pos)
//   head_pos   (L, T, H)    the same at one position (get_act_patch_attn_head_out_by_pos,
//                           ordered [layer][position][head])
//   head_q     (L, H)       head h's queries "dec.{i}.attn.hook_q" at every position
//                           (get_act_patch_attn_head_q_all_pos; after rotation, which is
//                           the same in both runs, so patching before or after it agrees)
//   head_k, head_v (L, Hkv) key / value head g's "hook_k" / "hook_v" at every position (one
//                           per key/value head: with grouped-query attention a patch
//                           reaches every query head that reads it)
//   head_pattern (L, H)     head h's attention pattern "hook_pattern" (get_act_patch_attn_head_pattern_all_pos)
// `intervention` (may be null, e.g. a head mask) sees every run first, the clean run too.
// `layer` >= 0 computes only that layer's row of each sweep (its layer axis then has size
// 1; resid takes 0..L, the others 0..L-1): a caller sweeping layer by layer can report
// progress and stop between calls.
//
// Models: decoder-only token models with an LM head (every decoder-only family the engine
// runs reports these names: GPT-2, GPT-Neo, Pythia parallel or not, BLOOM, Llama, Mistral,
// Qwen, Gemma). Encoder-only and encoder-decoder models are refused by name.
//
// Legend: L decoder layers, T tokens, H heads.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "model/transformer.h"
#include "nn/observer.h"

namespace tfp::inspect {

enum PatchKinds : unsigned {
  patch_resid = 1u,
  patch_attn_out = 2u,
  patch_mlp_out = 4u,
  patch_head_all = 8u,
  patch_head_pos = 16u,
  patch_head_q = 32u,
  patch_head_k = 64u,
  patch_head_v = 128u,
  patch_head_pattern = 256u,
  patch_all = 511u,
};

// One metric over one sweep: row-major values of the sweep's shape.
struct PatchTable {
  std::string kind;             // "resid", "attn_out", "mlp_out", "head_all", "head_pos", "head_q", "head_k", "head_v", "head_pattern"
  std::vector<int64_t> dims;    // (L+1, T), (L, T), (L, T), (L, H), (L, T, H), (L, H), (L, Hkv), (L, Hkv), (L, H); L+1 or L is 1 for one layer
  std::vector<float> logit_diff, logprob;                   // raw metric of each patched run
  std::vector<float> logit_diff_norm, logprob_norm;         // empty when not normalizable
};

struct ActivationPatching {
  int64_t L = 0, T = 0, H = 0, Hkv = 0;
  double clean_logit_diff = 0, corrupted_logit_diff = 0;
  double clean_logprob = 0, corrupted_logprob = 0;
  bool logit_diff_normalizable = false, logprob_normalizable = false;
  std::vector<PatchTable> tables;  // in the order of PatchKinds, those asked for
};

// Why a metric run refuses this model or input ("" when it does not): a decoder-only
// token model with an LM head, ids (called `what` in the message) and the answer and foil
// in its vocabulary. The C API checks it first to answer TFP_ERR_INVALID_ARGUMENT.
std::string metric_input_refusal(const model::ModelConfig& cfg, std::span<const int32_t> ids, const char* what,
                                 int32_t answer, int32_t foil);

// The metric of a forward pass's last logits row (V): {logit_diff, logprob}.
std::pair<double, double> patching_metric(std::span<const float> logits, int32_t answer, int32_t foil);

// clean and corrupted ids of the same length T >= 1, answer and foil token ids in the
// vocabulary (they may be equal: the logit difference is then 0 everywhere), kinds a
// non-zero combination of PatchKinds. Throws tfp::Error naming the problem otherwise.
ActivationPatching activation_patching(const model::ModelConfig& cfg, const model::ModelWeights& w,
                                       std::span<const int32_t> clean, std::span<const int32_t> corrupted,
                                       int32_t answer, int32_t foil, unsigned kinds,
                                       nn::Observer* intervention = nullptr, int64_t layer = -1);

// Zero and mean ablation of each head's output (TransformerLens: the hook_z of one head
// replaced by 0, or by its mean over the prompt's positions), one run per head: the
// metric at the last position with that head ablated, (L, H) row-major, beside the
// metric of the run without ablation. The mean is taken in the run itself, which equals
// the unablated run's value there (earlier layers are untouched).
struct HeadAblation {
  int64_t L = 0, H = 0;
  double logit_diff = 0, logprob = 0;      // without ablation
  std::vector<float> ablated_logit_diff;   // (L, H)
  std::vector<float> ablated_logprob;      // (L, H)
};

enum class AblationMode { zero, mean };

HeadAblation head_ablation(const model::ModelConfig& cfg, const model::ModelWeights& w, std::span<const int32_t> ids,
                           int32_t answer, int32_t foil, AblationMode mode, nn::Observer* intervention = nullptr);

}  // namespace tfp::inspect
