// libFuzzer target (issue 32): config.json mutated as a JSON tree (json_mutator.h) beside
// a small checkpoint kept as it is, then everything fuzz_model_forward does with it:
// model::load_model (depth limit, family parse, counts and ids against the file, bind)
// and one forward pass of whatever loads.
// Input: config.json, kFileSeparator, model.safetensors [, kFileSeparator, input bytes],
// as fuzz_model_forward's (its seeds are the fixtures' and shipped models' configs with
// their checkpoints: tools/fuzz.sh, fuzz/json_seeds.py). Run with -max_len=1048576
// -len_control=0 so a value can be nested 100,000 levels deep.
#include "fuzz_model_forward.cpp"  // LLVMFuzzerTestOneInput: load + forward
#include "json_mutator.h"

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned seed) {
  return tfp::fuzz::mutate_json_input(data, size, max_size, seed, /*part=*/0);
}
