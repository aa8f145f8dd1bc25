#include "model/config_bounds.h"

#include <cstdint>

#include "core/error.h"

namespace tfp::model {

void check_config_fits_file(const ModelConfig& c, const io::SafeTensors& st, const std::string& config_source) {
  const uint64_t tensors = st.entries().size();
  uint64_t bytes = 0;
  for (const io::TensorEntry& e : st.entries()) bytes += e.nbytes;
  const std::string file = "'" + st.source() + "'";

  const uint64_t layers = static_cast<uint64_t>(c.n_encoder_layers) + static_cast<uint64_t>(c.n_decoder_layers);
  TFP_CHECK(layers <= tensors, config_source, ": the config declares ", layers, " layer", layers == 1 ? "" : "s",
            " (", c.n_encoder_layers, " encoder, ", c.n_decoder_layers, " decoder), but ", file, " holds ", tensors,
            " tensor", tensors == 1 ? "" : "s", " in all (each layer stores at least one): the config does not describe this file");

  // d_model × n: the elements of a (d_model, n) matrix, at least a byte each.
  const uint64_t C = static_cast<uint64_t>(c.d_model);
  auto fits = [&](const char* what, int64_t n) {
    if (C == 0 || n <= 0) return;
    TFP_CHECK(static_cast<uint64_t>(n) <= bytes / C, config_source, ": the config's ", what, " ", n, " × d_model ", C,
              " is more elements than ", file, " holds bytes (", bytes, "): the config does not describe this file");
  };
  TFP_CHECK(C <= bytes, config_source, ": the config's d_model ", C, " is more than ", file, " holds bytes (", bytes, ")");
  if (layers > 0) {
    fits("d_ff", c.d_ff);
    const uint64_t heads = static_cast<uint64_t>(c.n_heads);
    const uint64_t head_dim = c.head_dim_override > 0 ? static_cast<uint64_t>(c.head_dim_override) : 1;
    TFP_CHECK(heads == 0 || head_dim <= bytes / heads, config_source, ": the config's ", heads, " heads of ", head_dim,
              " are more elements than ", file, " holds bytes (", bytes, ")");
    fits("n_heads × head_dim", static_cast<int64_t>(heads * head_dim));
  }
  if (c.has_embeddings) fits("vocab_size", c.vocab_size);
}

}  // namespace tfp::model
