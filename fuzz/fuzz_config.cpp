// libFuzzer target: config.json parsing for every family (model/config_json.h,
// model/family_*.cpp) and the checkpoint name mapping (model/names_table.h).
// Input: config.json, then optionally kFileSeparator and a tensor list, one tensor per
// line: "name d0 d1 ...". The listed tensors become a zero-filled F32 safetensors file
// (at most kMaxElements in all) that bind_checkpoint maps onto the parsed config, as the
// loader does, so prefixes, {i} patterns, Conv1D layouts and the fused-qkv reordering
// all see names and shapes they did not expect.
// Invariants: a parsed config passes check_config, and config_to_json's form of it
// parses back to the same form (our own config format round-trips).
#include <sstream>

#include "core/error.h"
#include "fuzz_util.h"
#include "model/config_json.h"
#include "model/names_table.h"
#include "model/weights.h"

namespace {

constexpr int64_t kMaxElements = int64_t{1} << 20;

// "name d0 d1 ..." lines → a safetensors file; nullopt when the list is unusable.
std::vector<uint8_t> tensors_file(std::string_view list) {
  tfp::io::SafeTensorsWriter writer;
  int64_t total = 0;
  std::istringstream lines{std::string(list)};
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string name;
    if (!(words >> name)) continue;
    tfp::Shape shape;
    int64_t numel = 1;
    long long d = 0;
    while (shape.size() < 4 && words >> d) {
      if (d < 0 || d > kMaxElements) return {};
      shape.push_back(d);
      numel *= d;
      if (numel > kMaxElements) return {};
    }
    total += numel;
    if (total > kMaxElements) return {};
    const std::vector<float> zeros(static_cast<size_t>(numel), 0.0f);
    writer.add_f32(name, shape, zeros.data());
  }
  return writer.finish();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tfp::model;
  const std::vector<std::string_view> files = tfp::fuzz::split_files(data, size, 2);
  ParsedConfig parsed;
  try {
    parsed = parse_config_json(files[0], "fuzz/config.json");
  } catch (const tfp::Error& e) {
    tfp::fuzz::refused(e);
    return 0;
  }
  check_config(parsed.config);  // the parser promises it; a throw here escapes as a finding
  const std::string ours = config_to_json(parsed.config);
  const std::string again = config_to_json(parse_config_json(ours, "fuzz/ours.json").config);
  TFP_FUZZ_ASSERT(ours == again);

  if (files.size() < 2) return 0;
  try {
    std::vector<uint8_t> bytes = tensors_file(files[1]);
    if (bytes.empty()) return 0;
    const tfp::io::SafeTensors st = tfp::io::SafeTensors::parse(std::move(bytes), "fuzz/model.safetensors");
    ModelConfig cfg = parsed.config;
    if (parsed.family == CheckpointFamily::bert && bert_has_mlm_head(st)) cfg.encoder_head = EncoderHead::masked_lm;
    ModelWeights w = ModelWeights::for_config(cfg);
    const BindReport report = bind_checkpoint(cfg, parsed.family, st, w);
    TFP_FUZZ_ASSERT(report.bound <= st.size());
    validate_weights(cfg, w);  // a bind that succeeded leaves usable weights
  } catch (const tfp::Error& e) {
    tfp::fuzz::refused(e);
  }
  return 0;
}
