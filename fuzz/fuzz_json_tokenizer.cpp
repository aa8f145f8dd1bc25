// libFuzzer target (issue 32): tokenizer.json mutated as a JSON tree (json_mutator.h:
// types, nesting, duplicate keys, ids and counts, dropped and added fields, long strings
// and patterns, vocab and merges replicated), then fuzz_tokenizer_json's load, encode,
// decode and write-back. Input: one tokenizer.json (seeds: every tokenizer.json of
// tests/fixtures and models/, tools/fuzz.sh, fuzz/json_seeds.py).
#include "fuzz_tokenizer_json.cpp"  // LLVMFuzzerTestOneInput: load + encode + write back
#include "json_mutator.h"

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned seed) {
  return tfp::fuzz::mutate_json_input(data, size, max_size, seed, /*part=*/0);
}
