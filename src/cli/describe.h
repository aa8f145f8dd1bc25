// What `tfp info` says about a Transformer's architecture, read from the one description
// every model is built from (model::ModelConfig): a one-line summary a reader can follow,
// then the parts where families differ — positions (RoPE with its base, rotated fraction,
// pairing and scaling; ALiBi slopes; T5's relative buckets; learned; sinusoidal), heads
// and key/value heads, head size, score scale, soft-caps, per-layer windows, norms and
// where they sit, residual form, MLP, embeddings and head.
#pragma once
#include <string>

#include "cli/json_writer.h"
#include "model/config.h"

namespace tfp::cli {

// "decoder-only Transformer, 2 layers of width 32: 4 heads of size 8 sharing 2 key/value
// heads (grouped-query); RoPE base 10000 on all 8 dimensions of each head (rotate-half);
// RMSNorm before each sublayer; ..." — one sentence per part, joined by "; ".
std::string describe_summary(const model::ModelConfig& c);

// The "description" object of tfp info (see cli/cmd_info.cpp for its keys).
void write_description(JsonWriter& w, const model::ModelConfig& c);

}  // namespace tfp::cli
