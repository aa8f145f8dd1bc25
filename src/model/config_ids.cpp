#include "model/config_ids.h"

#include <cstdint>

#include "io/json_excerpt.h"

namespace tfp::model {

namespace {

// One id: an integer in [0, V) (any non-negative integer when V is 0: no vocabulary).
int64_t token_id(const Fields& f, const char* key, const json& v, int64_t V, const char* where = "") {
  const bool integer = v.is_number_integer();
  if (!integer) {
    f.fail("field \"", key, "\"", where, " must be a token id (an integer", V > 0 ? " in 0.." : "",
           V > 0 ? std::to_string(V - 1) : std::string(), "), got ", io::json_excerpt(v));
  }
  if (v.is_number_unsigned() ? v.get<uint64_t>() >= static_cast<uint64_t>(V > 0 ? V : INT64_MAX)
                             : v.get<int64_t>() < 0 || (V > 0 && v.get<int64_t>() >= V))
    f.fail("field \"", key, "\"", where, ": token id ", io::json_excerpt(v), " is outside the vocabulary (",
           V > 0 ? "0.." + std::to_string(V - 1) : std::string("ids are not negative"), ")");
  return v.get<int64_t>();
}

}  // namespace

void read_token_ids(const Fields& f, ParsedConfig& p) {
  const int64_t V = p.config.has_embeddings ? p.config.vocab_size : 0;
  if (const json* eos = f.find("eos_token_id")) {
    if (eos->is_array()) {  // a list: the first is "the" eos, all stop
      for (size_t i = 0; i < eos->size(); ++i) {
        const std::string where = " (entry " + std::to_string(i) + " of the list)";
        const int64_t id = token_id(f, "eos_token_id", (*eos)[i], V, where.c_str());
        if (p.eos_token_id < 0) p.eos_token_id = id;
        else p.more_eos_token_ids.push_back(id);
      }
    } else {
      p.eos_token_id = token_id(f, "eos_token_id", *eos, V);
    }
  }
  if (const json* v = f.find("bos_token_id")) token_id(f, "bos_token_id", *v, V);
  // pad is never read by the forward pass; real checkpoints say "no pad" as -1 or as the
  // vocabulary size (Llama-2 fine-tunes: 32000 of 32000), and Hugging Face opens them: an
  // integer is enough, a fraction or a list is still refused.
  if (const json* v = f.find("pad_token_id"); v && !(v->is_number_integer() && (v->get<int64_t>() == -1 || (V > 0 && v->get<int64_t>() == V))))
    token_id(f, "pad_token_id", *v, V);
  if (const json* s = f.find("decoder_start_token_id")) p.decoder_start_token_id = token_id(f, "decoder_start_token_id", *s, V);
  // A family's own default (T5: the pad id) is inside the vocabulary too.
  if (p.decoder_start_token_id >= 0 && V > 0 && p.decoder_start_token_id >= V)
    f.fail("decoder start token ", p.decoder_start_token_id, " is outside the vocabulary (0..", V - 1, ")");
}

}  // namespace tfp::model
