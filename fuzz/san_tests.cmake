# tfp_san_tests: the doctest cases of the loaders, tokenizers and model load under ASan +
# UBSan (included by fuzz/CMakeLists.txt when TFP_SAN_TESTS is ON; run by tools/test.sh).
# Only what those cases need is compiled: the engine core shared with the fuzz targets,
# plus inspect/ and the C API's model side (the checkpoint tests open models through
# tfp_model_load_buffers); not the trainer, the Learn chapters' API or the CLI.
set(TFP_SAN_TEST_FILES
  main.cpp test_tensor.cpp test_safetensors.cpp
  test_checkpoint.cpp test_checkpoint_errors.cpp test_checkpoint_mlm.cpp test_checkpoint_sampling.cpp
  test_checkpoint_torch.cpp test_model.cpp test_model_errors.cpp test_model_tokens.cpp test_kv_cache.cpp
  test_families.cpp test_numerics.cpp test_config_limits.cpp test_soak_findings.cpp
  test_inspect_activation_patching.cpp test_inspect_logit_attribution.cpp test_inspect_gradient_attribution.cpp
  test_tokenizer_pipeline.cpp test_tokenizer_precompiled.cpp test_tokenizer_regex.cpp
  test_tokenizer_roundtrip.cpp test_tokenizer_unicode.cpp test_tokenizer_wordpiece.cpp)
# Left to the plain native and WASM runs: test_tokenizer_gpt2.cpp (57k golden strings
# through one BPE, ~30 s under ASan; fuzz_tokenize covers that code with arbitrary bytes)
# and test_tokenizer_bpe_trainer.cpp (the trainer, not a loader).
list(TRANSFORM TFP_SAN_TEST_FILES PREPEND ${TFP_ROOT}/tests/)

file(GLOB TFP_SAN_API_SOURCES CONFIGURE_DEPENDS ${TFP_ROOT}/src/api/api_*.cpp ${TFP_ROOT}/src/inspect/*.cpp)
list(FILTER TFP_SAN_API_SOURCES EXCLUDE REGEX "/api_trainer\\.cpp$")
add_library(tfp_san_api STATIC ${TFP_SAN_API_SOURCES})
target_link_libraries(tfp_san_api PUBLIC tfp_san_core)
target_precompile_headers(tfp_san_api REUSE_FROM tfp_san_core)

add_executable(tfp_san_tests ${TFP_SAN_TEST_FILES})
target_link_libraries(tfp_san_tests PRIVATE tfp_san_api doctest::doctest)
target_compile_definitions(tfp_san_tests PRIVATE DOCTEST_CONFIG_COLORS_NONE
  TFP_FIXTURES_DIR="${TFP_ROOT}/tests/fixtures")
# doctest and nlohmann/json parsed once for all the test files (main.cpp defines
# DOCTEST_CONFIG_IMPLEMENT before its include, so it goes without).
target_precompile_headers(tfp_san_tests PRIVATE <doctest/doctest.h> <nlohmann/json.hpp> <string> <vector> <map>)
set_property(SOURCE ${TFP_ROOT}/tests/main.cpp PROPERTY SKIP_PRECOMPILE_HEADERS ON)
