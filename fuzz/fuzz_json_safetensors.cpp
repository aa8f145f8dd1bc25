// libFuzzer target (issue 32): the safetensors header's JSON mutated as a tree
// (json_mutator.h: types, nesting, duplicate names, huge or negative shapes and offsets,
// dtypes, dropped and added fields, long names), with data_offsets recomputed one time in
// two so the tensor bytes stay consistent enough to reach the loader; the config.json
// beside it is kept. Then fuzz_model_forward's load_model and forward pass.
// Input: config.json, kFileSeparator, model.safetensors [, kFileSeparator, input bytes].
#include "fuzz_model_forward.cpp"  // LLVMFuzzerTestOneInput: load + forward
#include "json_mutator.h"

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned seed) {
  return tfp::fuzz::mutate_json_input(data, size, max_size, seed, /*part=*/1, /*safetensors=*/true);
}
