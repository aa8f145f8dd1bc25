// tfp_generator_*: the step-wise generation loop (model/generate.h) behind a handle, plus
// the text each token adds, and tfp_model_translate (model/beam.h).
#include <algorithm>

#include "api/api_decode.h"
#include "api/api_edge.h"
#include "api/api_gru.h"
#include "api/api_model.h"
#include "api/api_tensors.h"
#include "model/beam.h"

using tfp::api::loaded_of;

namespace {

// The text the output has gained since `emitted`. Decoding all ids each time (rather
// than one token alone) keeps multi-token characters and WordPiece joins right; a
// trailing U+FFFD is a character still being spelled by byte-level tokens — held back.
std::string text_delta(const tfp::Tokenizer& tok, const std::vector<int32_t>& ids, std::string& emitted) {
  std::string all = tok.decode(ids);
  static const std::string kReplacement = "\xEF\xBF\xBD";
  while (all.size() >= 3 && all.compare(all.size() - 3, 3, kReplacement) == 0) all.resize(all.size() - 3);
  if (all.size() < emitted.size() || all.compare(0, emitted.size(), emitted) != 0) return {};
  std::string delta = all.substr(emitted.size());
  emitted = std::move(all);
  return delta;
}

}  // namespace

extern "C" {

int tfp_generator_create(tfp_model* model, const tfp_generator_params* p, tfp_generator** out) {
  if (out) *out = nullptr;
  if (!p) return tfp::api::null_params("tfp_generator_create");
  const int32_t *prompt = p->prompt, *stop_ids = p->stop_ids;
  const int32_t n = p->n, max_tokens = p->max_tokens, top_k = p->top_k, n_stop = p->n_stop, top_n = p->top_n;
  const float temperature = p->temperature, top_p = p->top_p;
  const uint32_t seed = p->seed;
  return tfp::api::guard("tfp_generator_create", [&] {
    TFP_API_REQUIRE(out != nullptr, "tfp_generator_create: out is NULL");
    const tfp::model::LoadedModel& lm = loaded_of(model, "tfp_generator_create");
    TFP_API_REQUIRE(prompt != nullptr && n > 0, "tfp_generator_create: the prompt is empty (n = ", n, ")");
    TFP_API_REQUIRE(n_stop <= 0 || stop_ids != nullptr, "tfp_generator_create: stop_ids is NULL");
    TFP_API_REQUIRE(top_n >= 0 && top_n <= 64, "tfp_generator_create: top_n must be in [0, 64], got ", top_n);
    tfp::model::GeneratorOptions opt;
    opt.max_tokens = max_tokens;
    opt.sampling = {temperature, top_k, top_p};
    opt.seed = seed;
    opt.top_n = top_n;
    if (n_stop < 0) {
      for (const int64_t eos : lm.eos_token_ids) opt.stop_ids.push_back(static_cast<int32_t>(eos));
    } else {
      opt.stop_ids.assign(stop_ids, stop_ids + n_stop);
    }
    auto g = std::make_unique<tfp_generator>();
    g->loaded = model->loaded;
    if (!model->head_mask.empty()) {  // generation runs on the ablated model too
      g->head_mask = std::make_unique<tfp::inspect::HeadMaskObserver>(model->head_mask);
      opt.observer = g->head_mask.get();
    }
    g->gen.emplace(lm.config(), lm.weights(), std::span<const int32_t>(prompt, static_cast<size_t>(n)),
                   std::move(opt));
    *out = g.release();
  });
}

void tfp_generator_free(tfp_generator* gen) { delete gen; }

int tfp_generator_next(tfp_generator* gen, int32_t* id, float* prob, int* done) {
  return tfp::api::guard("tfp_generator_next", [&] {
    TFP_API_REQUIRE(gen != nullptr && gen->gen, "tfp_generator_next: generator is NULL");
    TFP_API_REQUIRE(done != nullptr, "tfp_generator_next: done is NULL");
    gen->text.clear();
    std::optional<tfp::model::GeneratorStep> step = gen->gen->next();
    *done = step ? 0 : 1;
    if (!step) return;
    gen->last = std::move(*step);
    gen->output.push_back(gen->last.id);
    if (gen->loaded->tokenizer) gen->text = text_delta(*gen->loaded->tokenizer, gen->output, gen->emitted);
    if (id) *id = gen->last.id;
    if (prob) *prob = gen->last.prob;
  });
}

int tfp_generator_finished(const tfp_generator* gen) { return gen && gen->gen && gen->gen->done() ? 1 : 0; }

const char* tfp_generator_stop_reason(const tfp_generator* gen) {
  if (!gen || !gen->gen || !gen->gen->done()) return "";
  return tfp::model::stop_reason_name(gen->gen->reason());
}

const char* tfp_generator_text(const tfp_generator* gen) { return gen ? gen->text.c_str() : ""; }

int tfp_generator_top(const tfp_generator* gen, int32_t* ids, float* probs, int cap) {
  if (!gen || !ids || !probs || cap <= 0) return 0;
  const int n = std::min(cap, static_cast<int>(gen->last.top.size()));
  for (int i = 0; i < n; ++i) {
    ids[i] = gen->last.top[static_cast<size_t>(i)].first;
    probs[i] = gen->last.top[static_cast<size_t>(i)].second;
  }
  return n;
}

int tfp_model_translate(tfp_model* model, const tfp_translate_params* p, int32_t* out_ids, int capacity, int* out_len,
                        tfp_tensors** alignment) {
  if (!p) {
    if (alignment) *alignment = nullptr;
    if (out_len) *out_len = 0;
    return tfp::api::null_params("tfp_model_translate");
  }
  const int32_t* src_ids = p->src_ids;
  const int32_t n = p->n, beam_size = p->beam_size, max_tokens = p->max_tokens, start_id = p->start_id,
                eos_id = p->eos_id;
  if (model && model->gru)  // the recurrent encoder-decoder (api_gru.h)
    return tfp::api::gru_model_translate(model, src_ids, n, beam_size, max_tokens, start_id, eos_id, out_ids,
                                         capacity, out_len, alignment);
  if (alignment) *alignment = nullptr;
  if (out_len) *out_len = 0;
  return tfp::api::guard("tfp_model_translate", [&] {
    TFP_API_REQUIRE(out_ids != nullptr && out_len != nullptr && alignment != nullptr,
                    "tfp_model_translate: out_ids, out_len or alignment is NULL");
    const tfp::model::LoadedModel& lm = loaded_of(model, "tfp_model_translate");
    TFP_API_REQUIRE(src_ids != nullptr && n > 0, "tfp_model_translate: the source is empty (n = ", n, ")");
    tfp::model::DecodeOptions opt =
        tfp::api::decode_options(lm, beam_size, max_tokens, start_id, eos_id, "tfp_model_translate");
    tfp::inspect::WithHeadMask masked(model->head_mask, nullptr);
    opt.observer = masked.get();  // null without a head mask
    tfp::model::Translation t =
        tfp::model::decode_seq2seq(lm.config(), lm.weights(), std::span<const int32_t>(src_ids, static_cast<size_t>(n)), opt);
    TFP_API_REQUIRE(static_cast<int>(t.ids.size()) <= capacity, "tfp_model_translate: the output has ",
                    t.ids.size(), " tokens, more than out_ids' capacity of ", capacity);
    auto list = std::make_unique<tfp_tensors>();
    list->add("alignment", std::move(t.alignment));
    for (size_t i = 0; i < t.cross_probs.size(); ++i)
      list->add("dec." + std::to_string(i) + ".cross.probs", std::move(t.cross_probs[i]));
    std::copy(t.ids.begin(), t.ids.end(), out_ids);
    *out_len = static_cast<int>(t.ids.size());
    *alignment = list.release();
  });
}

}  // extern "C"
