// The recurrent encoder–decoder (model_type tfp_gru_seq2seq, models/numbers-gru) in the
// CLI. It is not a Transformer, so model::load_model_dir refuses it; these load it with
// model/gru_seq2seq.h and print what `tfp info` and `tfp forward` print for a Transformer
// encoder–decoder, seen as the C API's inspector sees it (api/api_gru.h): no
// self-attention layers, and its additive (Bahdanau) attention is one cross-attention
// layer of one head. `tfp generate` decodes it in cmd_generate.cpp (model::gru_translate).
#pragma once
#include <string>

#include "cli/args.h"
#include "cli/json_writer.h"
#include "cli/text_input.h"

namespace tfp::cli {

// True when dir/config.json says "model_type": "tfp_gru_seq2seq".
bool is_gru_dir(const std::string& dir);

void gru_info(const std::string& dir, JsonWriter& w);
// --ids/--text/--text-file (source) and --decoder-ids/--decoder-text/--decoder-text-file
// (decoder input, start token first); --attention adds the attention keys.
void gru_forward(const Args& a, JsonWriter& w, TextInput& input);

}  // namespace tfp::cli
