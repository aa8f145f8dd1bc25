// The C API's params structs (tfp_api.h "parameter structs"): their stated defaults, the
// layout description the WASM module's JavaScript writes them by, and the NULL-params
// error of every call that takes one.
// Oracles: the defaults as tfp_api.h states them (and `tfp generate`'s flags); offsetof
// and sizeof of this build (the layout JSON must be exactly them, natively as in WASM);
// the error contract (status + "<call>: params is NULL", the model usable after).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/tfp_api.h"
#include "api/tfp_inspect_api.h"
#include "api/tfp_learn_additive_api.h"
#include "api/tfp_learn_efficiency_api.h"
#include "api/tfp_learn_encoder_api.h"
#include "api/tfp_learn_positions_api.h"
#include "api/tfp_learn_softmax_api.h"
#include "api/tfp_learn_generation_api.h"
#include "api/tfp_patch_api.h"
#include "test_checkpoint_util.h"

using namespace tfp;

TEST_CASE("api params: _init writes the defaults tfp_api.h states") {
  tfp_forward_params f;
  std::memset(&f, 0x5a, sizeof f);
  tfp_forward_params_init(&f);
  CHECK(f.ids == nullptr);
  CHECK(f.n == 0);
  CHECK(f.token_type_ids == nullptr);
  CHECK(f.attention_mask == nullptr);
  CHECK(f.tgt_ids == nullptr);
  CHECK(f.n_tgt == 0);
  CHECK(f.want_attention == 0);
  CHECK(f.logits_last == 0);

  tfp_embeddings_params e;
  std::memset(&e, 0x5a, sizeof e);
  tfp_embeddings_params_init(&e);
  CHECK(e.C == 0);
  CHECK(e.src == nullptr);
  CHECK(e.S == 0);
  CHECK(e.tgt == nullptr);
  CHECK(e.T == 0);
  CHECK(e.src_padding == nullptr);
  CHECK(e.tgt_padding == nullptr);
  CHECK(e.flags == 0);

  tfp_fill_mask_params m;
  std::memset(&m, 0x5a, sizeof m);
  tfp_fill_mask_params_init(&m);
  CHECK(m.ids == nullptr);
  CHECK(m.n == 0);
  CHECK(m.token_type_ids == nullptr);
  CHECK(m.attention_mask == nullptr);
  CHECK(m.mask_id == -1);
  CHECK(m.top_k == 5);

  tfp_generator_params g;
  std::memset(&g, 0x5a, sizeof g);
  tfp_generator_params_init(&g);
  CHECK(g.prompt == nullptr);
  CHECK(g.n == 0);
  CHECK(g.max_tokens == 20);  // `tfp generate --max-tokens`' default
  CHECK(g.temperature == 1.0f);
  CHECK(g.top_k == 0);
  CHECK(g.top_p == 1.0f);
  CHECK(g.seed == 0u);
  CHECK(g.stop_ids == nullptr);
  CHECK(g.n_stop == -1);
  CHECK(g.top_n == 0);

  tfp_translate_params t;
  std::memset(&t, 0x5a, sizeof t);
  tfp_translate_params_init(&t);
  CHECK(t.src_ids == nullptr);
  CHECK(t.n == 0);
  CHECK(t.beam_size == 1);
  CHECK(t.max_tokens == 0);
  CHECK(t.start_id == -1);
  CHECK(t.eos_id == -1);

  tfp_learn_efficiency_params l;
  std::memset(&l, 0x5a, sizeof l);
  tfp_learn_efficiency_params_init(&l);
  CHECK(l.d == 128);
  CHECK(l.heads == 4);
  CHECK(l.lengths == nullptr);
  CHECK(l.n_lengths == 0);
  CHECK(l.kind == 0);
  CHECK(l.window == 16);
  CHECK(l.dilation == 1);
  CHECK(l.n_global == 0);
  CHECK(l.repeats == 7);
  CHECK(l.seed == 1u);

  tfp_learn_additive_params a;
  std::memset(&a, 0x5a, sizeof a);
  tfp_learn_additive_params_init(&a);
  CHECK(a.s == nullptr);
  CHECK(a.Tq == 0);
  CHECK(a.b == nullptr);
  CHECK(a.A == 0);

  tfp_learn_sparse_params sp;
  std::memset(&sp, 0x5a, sizeof sp);
  tfp_learn_sparse_params_init(&sp);
  CHECK(sp.kind == 0);
  CHECK(sp.T == 0);
  CHECK(sp.window == 0);
  CHECK(sp.dilation == 1);
  CHECK(sp.n_global == 0);
  CHECK(sp.causal == 0);
  tfp_learn_softmax_params sm;
  std::memset(&sm, 0x5a, sizeof sm);
  tfp_learn_softmax_params_init(&sm);
  CHECK(sm.scores == nullptr);
  CHECK(sm.n == 0);
  CHECK(sm.temperature == 1.0f);
  CHECK(sm.masked == nullptr);
  CHECK(sm.variant == 0);
  tfp_learn_encoder_depth_params ed;
  std::memset(&ed, 0x5a, sizeof ed);
  tfp_learn_encoder_depth_params_init(&ed);
  CHECK(ed.C == 0);
  CHECK(ed.seed == 0u);
  tfp_learn_relative_bias_params rb;
  std::memset(&rb, 0x5a, sizeof rb);
  tfp_learn_relative_bias_params_init(&rb);
  CHECK(rb.bucketing == 0);
  CHECK(rb.seed == 0u);

  tfp_forward_params_init(nullptr);  // NULL is a no-op for every _init
  tfp_translate_params_init(nullptr);
}

namespace {

// One field of the layout JSON: [offset, kind].
void check_field(const nlohmann::json& s, const char* name, size_t offset, const char* kind) {
  INFO("field " << name);
  REQUIRE(s["fields"].contains(name));
  CHECK(s["fields"][name][0].get<size_t>() == offset);
  CHECK(s["fields"][name][1].get<std::string>() == kind);
}

}  // namespace

TEST_CASE("api params: tfp_params_layout_json is this build's offsetof and sizeof, in declaration order") {
  const nlohmann::json j = nlohmann::json::parse(tfp_params_layout_json());
  REQUIRE(j.is_object());
  CHECK(j.size() == 13);
  // Fields listed in declaration order (nlohmann keeps keys sorted: compare offsets).
  for (const auto& item : j.items()) {
    const std::string name = item.key();  // clang cannot capture a structured binding (INFO's lambda)
    const nlohmann::json& s = item.value();
    INFO(name);
    size_t end = 0;
    std::vector<std::pair<size_t, std::string>> fields;
    for (const auto& [field, v] : s["fields"].items()) fields.emplace_back(v[0].get<size_t>(), field);
    std::sort(fields.begin(), fields.end());
    for (const auto& [offset, field] : fields) {
      CHECK(offset >= end);  // no two fields overlap
      end = offset + (s["fields"][field][1] == "ptr" ? sizeof(void*) : 4);
    }
    CHECK(end <= s["size"].get<size_t>());
  }
  const auto& f = j["tfp_forward_params"];
  CHECK(f["size"].get<size_t>() == sizeof(tfp_forward_params));
  CHECK(f["fields"].size() == 8);
  check_field(f, "ids", offsetof(tfp_forward_params, ids), "ptr");
  check_field(f, "n", offsetof(tfp_forward_params, n), "i32");
  check_field(f, "want_attention", offsetof(tfp_forward_params, want_attention), "i32");
  check_field(f, "logits_last", offsetof(tfp_forward_params, logits_last), "i32");
  const auto& g = j["tfp_generator_params"];
  CHECK(g["size"].get<size_t>() == sizeof(tfp_generator_params));
  CHECK(g["fields"].size() == 10);
  check_field(g, "temperature", offsetof(tfp_generator_params, temperature), "f32");
  check_field(g, "seed", offsetof(tfp_generator_params, seed), "u32");
  check_field(g, "stop_ids", offsetof(tfp_generator_params, stop_ids), "ptr");
  check_field(g, "top_n", offsetof(tfp_generator_params, top_n), "i32");
  CHECK(j["tfp_embeddings_params"]["size"].get<size_t>() == sizeof(tfp_embeddings_params));
  check_field(j["tfp_embeddings_params"], "flags", offsetof(tfp_embeddings_params, flags), "i32");
  CHECK(j["tfp_fill_mask_params"]["size"].get<size_t>() == sizeof(tfp_fill_mask_params));
  check_field(j["tfp_fill_mask_params"], "top_k", offsetof(tfp_fill_mask_params, top_k), "i32");
  CHECK(j["tfp_translate_params"]["size"].get<size_t>() == sizeof(tfp_translate_params));
  check_field(j["tfp_translate_params"], "eos_id", offsetof(tfp_translate_params, eos_id), "i32");
  const auto& pp = j["tfp_patching_params"];
  CHECK(pp["size"].get<size_t>() == sizeof(tfp_patching_params));
  CHECK(pp["fields"].size() == 7);
  check_field(pp, "corrupted", offsetof(tfp_patching_params, corrupted), "ptr");
  check_field(pp, "kinds", offsetof(tfp_patching_params, kinds), "u32");
  check_field(pp, "layer", offsetof(tfp_patching_params, layer), "i32");
}

TEST_CASE("api params: a NULL params struct is an argument error naming the call; the model stays usable") {
  tfp_model* m = testing::open_through_api(testing::checkpoint_dir("gpt2_tiny"), "gpt2_tiny");
  REQUIRE(m != nullptr);
  const auto error = [] { return std::string(tfp_last_error()); };
  tfp_tensors* out = reinterpret_cast<tfp_tensors*>(&out);  // set to NULL on failure
  CHECK(tfp_model_forward(m, nullptr, &out) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(error() == "tfp_model_forward: params is NULL");
  CHECK(out == nullptr);
  CHECK(tfp_model_attention_steps(m, nullptr, "dec", 0, 0, 0, &out) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(error() == "tfp_model_attention_steps: params is NULL");
  CHECK(tfp_model_forward_embeddings(m, nullptr, &out) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(error() == "tfp_model_forward_embeddings: params is NULL");
  CHECK(tfp_model_attention_steps_embeddings(m, nullptr, "dec", 0, 0, 0, &out) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(error() == "tfp_model_attention_steps_embeddings: params is NULL");
  int32_t pos[4], ids[4];
  float probs[4];
  int count = -1;
  CHECK(tfp_model_fill_mask(m, nullptr, pos, ids, probs, &count) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(error() == "tfp_model_fill_mask: params is NULL");
  CHECK(count == 0);
  const float logits[2] = {0, 1};
  CHECK(tfp_fill_mask_logits(logits, 2, nullptr, pos, ids, probs, &count) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(error() == "tfp_fill_mask_logits: params is NULL");
  tfp_generator* gen = reinterpret_cast<tfp_generator*>(&gen);
  CHECK(tfp_generator_create(m, nullptr, &gen) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(error() == "tfp_generator_create: params is NULL");
  CHECK(gen == nullptr);
  int len = -1;
  CHECK(tfp_model_translate(m, nullptr, ids, 4, &len, &out) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(error() == "tfp_model_translate: params is NULL");
  CHECK(len == 0);
  const int32_t lengths[1] = {2};
  double timing[4];
  CHECK(tfp_learn_generation_timing(m, nullptr, lengths, 1, timing, nullptr, nullptr) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(error() == "tfp_learn_generation_timing: params is NULL");
  CHECK(tfp_learn_efficiency_timing(nullptr, timing) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(error() == "tfp_learn_efficiency_timing: params is NULL");
  CHECK(tfp_learn_additive_attention(nullptr, &out) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(error() == "tfp_learn_additive_attention: params is NULL");
  CHECK(tfp_learn_sparse_pattern(nullptr, nullptr, nullptr) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(error() == "tfp_learn_sparse_pattern: params is NULL");
  CHECK(tfp_learn_sparse_reach(nullptr, 1, nullptr, nullptr) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(error() == "tfp_learn_sparse_reach: params is NULL");
  CHECK(tfp_learn_encoder_depth(nullptr, timing) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(error() == "tfp_learn_encoder_depth: params is NULL");
  CHECK(tfp_learn_relative_bias(nullptr, nullptr, nullptr, nullptr) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(error() == "tfp_learn_relative_bias: params is NULL");
  CHECK(tfp_learn_softmax_row(nullptr, nullptr, nullptr, nullptr, nullptr) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(error() == "tfp_learn_softmax_row: params is NULL");
  tfp_attn_lab* lab = nullptr;
  REQUIRE(tfp_attn_lab_create(4, 2, 1, &lab) == TFP_OK);
  CHECK(tfp_attn_lab_set_weights_separate(lab, nullptr) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(error() == "tfp_attn_lab_set_weights_separate: params is NULL");
  tfp_attn_lab_weights_params w;
  tfp_attn_lab_weights_params_init(&w);  // no matrices: the old "required" error
  CHECK(tfp_attn_lab_set_weights_separate(lab, &w) == TFP_ERR_INVALID_ARGUMENT);
  CHECK(error() == "tfp_attn_lab_set_weights_separate: w_q, w_k, w_v and w_out are required");
  tfp_attn_lab_free(lab);

  // Still usable, and the defaults run: a greedy generator from _init.
  const int32_t prompt[3] = {5, 6, 7};
  tfp_generator_params gp;
  tfp_generator_params_init(&gp);
  gp.prompt = prompt;
  gp.n = 3;
  gp.max_tokens = 2;
  gp.temperature = 0.0f;
  REQUIRE(tfp_generator_create(m, &gp, &gen) == TFP_OK);
  int32_t id = -1;
  int done = -1;
  CHECK(tfp_generator_next(gen, &id, nullptr, &done) == TFP_OK);
  CHECK(done == 0);
  tfp_generator_free(gen);
  tfp_model_free(m);
}
