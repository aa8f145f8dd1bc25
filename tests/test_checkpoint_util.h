// Helpers shared by the checkpoint tests: fixture paths, expected.json, and comparing a
// tensor with nested JSON arrays under a max-abs-error tolerance.
#pragma once
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "api/tfp_api.h"
#include "core/tensor.h"
#include "io/file.h"
#include "io/safetensors.h"
#include "model/model.h"
#include "model/weights_stream.h"

namespace tfp::testing {

/** What `f` throws: the engine's error message, or "(no error)". */
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

/** What load_model says of these files: its error, or "(no error)". */
inline std::string load_error(model::ModelFiles f) {
  return error_of([&] { model::load_model(std::move(f)); });
}

inline std::string checkpoint_dir(const std::string& name) {
  return std::string(TFP_FIXTURES_DIR) + "/checkpoints/" + name;
}

struct Streamed {
  std::vector<uint8_t> file;
  bool narrowed = false;
};

// The bytes fed through a model::WeightsStream `piece` at a time (the last piece shorter),
// as the page feeds a stream: the file to load and whether the stream narrowed it.
inline Streamed stream_in(const std::vector<uint8_t>& bytes, const std::string& config, model::Precision p,
                          size_t piece) {
  model::WeightsStream s(bytes.size(), "stream/model.safetensors", config, p);
  for (size_t at = 0; at < bytes.size(); at += piece) {
    const size_t n = std::min(piece, bytes.size() - at);
    std::memcpy(s.next(n), bytes.data() + at, n);
    s.commit(n);
  }
  const bool narrowed = s.narrowing();
  return {s.finish(), narrowed};
}

// A model folder (config.json, model.safetensors and, with_tokenizer, tokenizer.json)
// opened through the C API from memory, as the page opens a user's files; `weights`
// replaces the folder's model.safetensors when given.
inline tfp_model* open_through_api(const std::string& dir, const std::string& source, bool with_tokenizer = true,
                                   const std::vector<uint8_t>* weights = nullptr) {
  const std::string config = io::read_text_file(dir + "/config.json");
  const std::string tok = with_tokenizer ? io::read_text_file(dir + "/tokenizer.json") : std::string();
  const std::vector<uint8_t> own = weights ? std::vector<uint8_t>() : io::read_file(dir + "/model.safetensors");
  const std::vector<uint8_t>& w = weights ? *weights : own;
  tfp_model* m = nullptr;
  const int status = tfp_model_load_buffers(config.data(), config.size(), w.data(), w.size(),
                                            with_tokenizer ? tok.data() : nullptr, tok.size(), source.c_str(), &m);
  INFO(tfp_last_error());
  REQUIRE(status == TFP_OK);
  return m;
}

// Writes the model folder `src` (config.json + model.safetensors) into `dir` (emptied first)
// as HF writes a sharded checkpoint: model-0000{1,2}-of-00002.safetensors and
// model.safetensors.index.json. Tensor k of n (file order) goes to the first shard when
// first(k, n); bytes are copied as stored. Returns the index's text.
inline std::string write_two_shards(const std::string& src, const std::filesystem::path& dir,
                                    const std::function<bool(size_t, size_t)>& first) {
  namespace fs = std::filesystem;
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::copy_file(src + "/config.json", dir / "config.json");
  const io::SafeTensors st = io::SafeTensors::load(src + "/model.safetensors");
  io::SafeTensorsWriter a, b;
  nlohmann::json map = nlohmann::json::object();
  size_t k = 0;
  for (const io::TensorEntry& e : st.entries()) {
    const bool one = first(k++, st.size());
    const std::span<const uint8_t> raw = st.bytes(e);
    (one ? a : b).add_raw(e.name, e.dtype, e.shape, raw.data(), raw.size());
    map[e.name] = one ? "model-00001-of-00002.safetensors" : "model-00002-of-00002.safetensors";
  }
  io::write_file((dir / "model-00001-of-00002.safetensors").string(), a.finish());
  io::write_file((dir / "model-00002-of-00002.safetensors").string(), b.finish());
  const std::string index = nlohmann::json{{"metadata", {{"total_size", 0}}}, {"weight_map", map}}.dump();
  io::write_file((dir / "model.safetensors.index.json").string(), index.data(), index.size());
  return index;
}

inline nlohmann::json read_json(const std::string& path) {
  const nlohmann::json j = nlohmann::json::parse(io::read_text_file(path), nullptr, false);
  REQUIRE_FALSE(j.is_discarded());
  return j;
}

inline void flatten(const nlohmann::json& j, std::vector<double>& out, Shape& shape, size_t depth = 0) {
  if (j.is_array()) {
    if (shape.size() <= depth) shape.push_back(static_cast<int64_t>(j.size()));
    for (const auto& x : j) flatten(x, out, shape, depth + 1);
  } else {
    out.push_back(j.get<double>());
  }
}

// Max |got - expected| over every element; shapes must match exactly.
inline double max_abs_diff(const TensorView& got, const nlohmann::json& expected) {
  std::vector<double> want;
  Shape shape;
  flatten(expected, want, shape);
  REQUIRE(got.shape == shape);
  double worst = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const double d = std::fabs(static_cast<double>(got.data[i]) - want[i]);
    worst = std::isnan(d) ? INFINITY : std::max(worst, d);
  }
  return worst;
}

template <typename T>
std::vector<T> json_list(const nlohmann::json& j) {
  return j.get<std::vector<T>>();
}

}  // namespace tfp::testing
