// What the query-key drill-down's entry points share (api_attention_steps.cpp): the
// token-id one, tfp_model_attention_steps, and the embeddings one,
// tfp_model_attention_steps_embeddings (api_forward_embeddings.cpp). Each runs its own
// forward pass with the observer these name, then hands the records to steps_result.
#pragma once
#include <string>
#include <vector>

#include "api/tfp_api.h"
#include "nn/observer.h"
#include "model/config.h"

namespace tfp::api {

// Which block (set, layer) names ("enc.1.attn", "dec.0.cross"), every index checked
// before any forward pass runs, so that a bad request costs nothing and its message says
// what is valid. enc_queries / dec_queries: how many queries the encoder's and the
// decoder's inputs have; enc_input / dec_input name those inputs in messages ("input",
// "decoder input (tgt_ids)"). `f` names the C function.
std::string steps_block(const char* f, const model::ModelConfig& c, const char* set, int layer, int head,
                        int query, int enc_queries, int dec_queries, const char* enc_input,
                        const char* dec_input);

// The exact names the observer must record for `block`: its q, k, v and mask.
std::vector<std::string> steps_records(const std::string& block);

// Replays row `query` of head `head` from the recorded q, k, v, mask with the block's own
// scale and soft-cap (inspect/attention_steps.h) and packs the tensor list
// tfp_inspect_api.h documents.
tfp_tensors* steps_result(const nn::RecordingObserver& obs, const std::string& block, int head,
                          int query, const model::ModelConfig& config);

}  // namespace tfp::api
