// The params structs of tfp_api.h ("parameter structs"): their defaults
// (tfp_<name>_params_init) and their layout as JSON (tfp_params_layout_json), so that a
// caller writing a struct into memory by hand (the WASM module's JavaScript,
// web/src/engine/params.mjs) takes every offset from offsetof here and never restates
// the field order. A new params struct: declare it in its header, add its _init below
// and its fields in layout_json(); tests/js/params_layout.test.mjs checks
// that every struct declared in src/api/tfp_*api.h is listed, field by field.
#include <cstddef>
#include <cstring>
#include <sstream>
#include <string>
#include <type_traits>

#include "api/tfp_api.h"
#include "api/tfp_inspect_api.h"
#include "api/tfp_learn_additive_api.h"
#include "api/tfp_learn_efficiency_api.h"
#include "api/tfp_learn_encoder_api.h"
#include "api/tfp_learn_positions_api.h"
#include "api/tfp_learn_softmax_api.h"
#include "api/tfp_patch_api.h"

namespace {

// The kind of one field, as JavaScript writes it: only these four kinds are allowed in a
// params struct (anything else fails to compile here).
template <typename F>
constexpr const char* field_kind() {
  if constexpr (std::is_pointer_v<F>) {
    return "ptr";
  } else if constexpr (std::is_same_v<F, int32_t>) {
    return "i32";
  } else if constexpr (std::is_same_v<F, uint32_t>) {
    return "u32";
  } else {
    static_assert(std::is_same_v<F, float>, "params fields are int32_t, uint32_t, float or pointers");
    return "f32";
  }
}

struct Layout {
  std::ostringstream os;
  bool first_struct = true, first_field = true;

  void begin(const char* name, size_t size) {
    os << (first_struct ? "{" : ",") << "\"" << name << "\":{\"size\":" << size << ",\"fields\":{";
    first_struct = false;
    first_field = true;
  }
  void field(const char* name, size_t offset, const char* kind) {
    os << (first_field ? "" : ",") << "\"" << name << "\":[" << offset << ",\"" << kind << "\"]";
    first_field = false;
  }
  void end() { os << "}}"; }
};

#define TFP_FIELD(S, f) L.field(#f, offsetof(S, f), field_kind<decltype(S::f)>())

std::string layout_json() {
  Layout L;
  L.begin("tfp_forward_params", sizeof(tfp_forward_params));
  TFP_FIELD(tfp_forward_params, ids);
  TFP_FIELD(tfp_forward_params, n);
  TFP_FIELD(tfp_forward_params, token_type_ids);
  TFP_FIELD(tfp_forward_params, attention_mask);
  TFP_FIELD(tfp_forward_params, tgt_ids);
  TFP_FIELD(tfp_forward_params, n_tgt);
  TFP_FIELD(tfp_forward_params, want_attention);
  TFP_FIELD(tfp_forward_params, logits_last);
  L.end();
  L.begin("tfp_embeddings_params", sizeof(tfp_embeddings_params));
  TFP_FIELD(tfp_embeddings_params, C);
  TFP_FIELD(tfp_embeddings_params, src);
  TFP_FIELD(tfp_embeddings_params, S);
  TFP_FIELD(tfp_embeddings_params, tgt);
  TFP_FIELD(tfp_embeddings_params, T);
  TFP_FIELD(tfp_embeddings_params, src_padding);
  TFP_FIELD(tfp_embeddings_params, tgt_padding);
  TFP_FIELD(tfp_embeddings_params, flags);
  L.end();
  L.begin("tfp_fill_mask_params", sizeof(tfp_fill_mask_params));
  TFP_FIELD(tfp_fill_mask_params, ids);
  TFP_FIELD(tfp_fill_mask_params, n);
  TFP_FIELD(tfp_fill_mask_params, token_type_ids);
  TFP_FIELD(tfp_fill_mask_params, attention_mask);
  TFP_FIELD(tfp_fill_mask_params, mask_id);
  TFP_FIELD(tfp_fill_mask_params, top_k);
  L.end();
  L.begin("tfp_generator_params", sizeof(tfp_generator_params));
  TFP_FIELD(tfp_generator_params, prompt);
  TFP_FIELD(tfp_generator_params, n);
  TFP_FIELD(tfp_generator_params, max_tokens);
  TFP_FIELD(tfp_generator_params, temperature);
  TFP_FIELD(tfp_generator_params, top_k);
  TFP_FIELD(tfp_generator_params, top_p);
  TFP_FIELD(tfp_generator_params, seed);
  TFP_FIELD(tfp_generator_params, stop_ids);
  TFP_FIELD(tfp_generator_params, n_stop);
  TFP_FIELD(tfp_generator_params, top_n);
  L.end();
  L.begin("tfp_translate_params", sizeof(tfp_translate_params));
  TFP_FIELD(tfp_translate_params, src_ids);
  TFP_FIELD(tfp_translate_params, n);
  TFP_FIELD(tfp_translate_params, beam_size);
  TFP_FIELD(tfp_translate_params, max_tokens);
  TFP_FIELD(tfp_translate_params, start_id);
  TFP_FIELD(tfp_translate_params, eos_id);
  L.end();
  L.begin("tfp_learn_efficiency_params", sizeof(tfp_learn_efficiency_params));
  TFP_FIELD(tfp_learn_efficiency_params, d);
  TFP_FIELD(tfp_learn_efficiency_params, heads);
  TFP_FIELD(tfp_learn_efficiency_params, lengths);
  TFP_FIELD(tfp_learn_efficiency_params, n_lengths);
  TFP_FIELD(tfp_learn_efficiency_params, kind);
  TFP_FIELD(tfp_learn_efficiency_params, window);
  TFP_FIELD(tfp_learn_efficiency_params, dilation);
  TFP_FIELD(tfp_learn_efficiency_params, n_global);
  TFP_FIELD(tfp_learn_efficiency_params, repeats);
  TFP_FIELD(tfp_learn_efficiency_params, seed);
  L.end();
  L.begin("tfp_learn_additive_params", sizeof(tfp_learn_additive_params));
  TFP_FIELD(tfp_learn_additive_params, s);
  TFP_FIELD(tfp_learn_additive_params, Tq);
  TFP_FIELD(tfp_learn_additive_params, Cs);
  TFP_FIELD(tfp_learn_additive_params, h);
  TFP_FIELD(tfp_learn_additive_params, Tk);
  TFP_FIELD(tfp_learn_additive_params, Ch);
  TFP_FIELD(tfp_learn_additive_params, W);
  TFP_FIELD(tfp_learn_additive_params, b);
  TFP_FIELD(tfp_learn_additive_params, U);
  TFP_FIELD(tfp_learn_additive_params, v);
  TFP_FIELD(tfp_learn_additive_params, A);
  L.end();
  L.begin("tfp_learn_sparse_params", sizeof(tfp_learn_sparse_params));
  TFP_FIELD(tfp_learn_sparse_params, kind);
  TFP_FIELD(tfp_learn_sparse_params, T);
  TFP_FIELD(tfp_learn_sparse_params, window);
  TFP_FIELD(tfp_learn_sparse_params, dilation);
  TFP_FIELD(tfp_learn_sparse_params, n_global);
  TFP_FIELD(tfp_learn_sparse_params, causal);
  L.end();
  L.begin("tfp_learn_encoder_depth_params", sizeof(tfp_learn_encoder_depth_params));
  TFP_FIELD(tfp_learn_encoder_depth_params, C);
  TFP_FIELD(tfp_learn_encoder_depth_params, H);
  TFP_FIELD(tfp_learn_encoder_depth_params, F);
  TFP_FIELD(tfp_learn_encoder_depth_params, T);
  TFP_FIELD(tfp_learn_encoder_depth_params, L);
  TFP_FIELD(tfp_learn_encoder_depth_params, activation);
  TFP_FIELD(tfp_learn_encoder_depth_params, norm_first);
  TFP_FIELD(tfp_learn_encoder_depth_params, seed);
  L.end();
  L.begin("tfp_learn_relative_bias_params", sizeof(tfp_learn_relative_bias_params));
  TFP_FIELD(tfp_learn_relative_bias_params, bucketing);
  TFP_FIELD(tfp_learn_relative_bias_params, bidirectional);
  TFP_FIELD(tfp_learn_relative_bias_params, num_buckets);
  TFP_FIELD(tfp_learn_relative_bias_params, max_distance);
  TFP_FIELD(tfp_learn_relative_bias_params, T);
  TFP_FIELD(tfp_learn_relative_bias_params, seed);
  L.end();
  L.begin("tfp_learn_softmax_params", sizeof(tfp_learn_softmax_params));
  TFP_FIELD(tfp_learn_softmax_params, scores);
  TFP_FIELD(tfp_learn_softmax_params, n);
  TFP_FIELD(tfp_learn_softmax_params, temperature);
  TFP_FIELD(tfp_learn_softmax_params, masked);
  TFP_FIELD(tfp_learn_softmax_params, variant);
  L.end();
  L.begin("tfp_patching_params", sizeof(tfp_patching_params));
  TFP_FIELD(tfp_patching_params, clean);
  TFP_FIELD(tfp_patching_params, corrupted);
  TFP_FIELD(tfp_patching_params, n);
  TFP_FIELD(tfp_patching_params, answer);
  TFP_FIELD(tfp_patching_params, foil);
  TFP_FIELD(tfp_patching_params, kinds);
  TFP_FIELD(tfp_patching_params, layer);
  L.end();
  L.begin("tfp_attn_lab_weights_params", sizeof(tfp_attn_lab_weights_params));
  TFP_FIELD(tfp_attn_lab_weights_params, w_q);
  TFP_FIELD(tfp_attn_lab_weights_params, b_q);
  TFP_FIELD(tfp_attn_lab_weights_params, w_k);
  TFP_FIELD(tfp_attn_lab_weights_params, b_k);
  TFP_FIELD(tfp_attn_lab_weights_params, w_v);
  TFP_FIELD(tfp_attn_lab_weights_params, b_v);
  TFP_FIELD(tfp_attn_lab_weights_params, w_out);
  TFP_FIELD(tfp_attn_lab_weights_params, b_out);
  L.end();
  L.os << "}";
  return L.os.str();
}

#undef TFP_FIELD

// Zero / NULL in every field (all-bits-zero is 0, 0.0f and NULL on every target we build).
template <typename P>
void zero(P* p) {
  static_assert(std::is_trivial_v<P>);
  if (p) std::memset(p, 0, sizeof(P));
}

}  // namespace

extern "C" {

const char* tfp_params_layout_json(void) {
  static const std::string json = layout_json();
  return json.c_str();
}

void tfp_attn_lab_weights_params_init(tfp_attn_lab_weights_params* p) { zero(p); }

void tfp_forward_params_init(tfp_forward_params* p) { zero(p); }

void tfp_embeddings_params_init(tfp_embeddings_params* p) { zero(p); }

void tfp_fill_mask_params_init(tfp_fill_mask_params* p) {
  if (!p) return;
  zero(p);
  p->mask_id = -1;
  p->top_k = 5;
}

void tfp_generator_params_init(tfp_generator_params* p) {
  if (!p) return;
  zero(p);
  p->max_tokens = 20;
  p->temperature = 1.0f;
  p->top_p = 1.0f;
  p->n_stop = -1;
}

void tfp_translate_params_init(tfp_translate_params* p) {
  if (!p) return;
  zero(p);
  p->beam_size = 1;
  p->start_id = -1;
  p->eos_id = -1;
}

void tfp_patching_params_init(tfp_patching_params* p) {
  if (!p) return;
  zero(p);
  p->answer = -1;
  p->foil = -1;
  p->kinds = 511;
  p->layer = -1;
}

void tfp_learn_additive_params_init(tfp_learn_additive_params* p) { zero(p); }

void tfp_learn_sparse_params_init(tfp_learn_sparse_params* p) {
  if (!p) return;
  zero(p);
  p->dilation = 1;
}

void tfp_learn_encoder_depth_params_init(tfp_learn_encoder_depth_params* p) { zero(p); }

void tfp_learn_relative_bias_params_init(tfp_learn_relative_bias_params* p) { zero(p); }

void tfp_learn_softmax_params_init(tfp_learn_softmax_params* p) {
  if (!p) return;
  zero(p);
  p->temperature = 1.0f;
}

void tfp_learn_efficiency_params_init(tfp_learn_efficiency_params* p) {
  if (!p) return;
  zero(p);
  p->d = 128;
  p->heads = 4;
  p->kind = 0;
  p->window = 16;
  p->dilation = 1;
  p->repeats = 7;
  p->seed = 1;
}

}  // extern "C"
