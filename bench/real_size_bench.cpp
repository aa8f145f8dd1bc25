// Real-size model benchmark (issue 19 item 6): load time, peak memory, prefill of a
// 32-token prompt and greedy generation with the KV cache, for one model folder, through
// the C API the page uses (tfp_model_files_* staging, shards included).
//
//   real_size_bench DIR [--prompt 32] [--tokens 32] [--context N]
//
// --context N: config.json's max_position_embeddings read as N (the generator's KV cache
// is sized for the whole context: Gemma 3's 32768 positions cost 1.2 GB of cache).
//
// Natively (build/native/real_size_bench) and as WASM under Node (build/wasm/
// real_size_bench.js, NODERAWFS reads the folder) from the same source. The folders come
// from bench/real_size_models.mjs; bench/real_size_models_bench.mjs runs both builds over
// all five and prints the table for bench/RESULTS.md.
//
// Prints one JSON line:
//   load_ms     read the files into the staging buffers + tfp_model_load (parse, BF16 -> f32, bind)
//   prefill_ms  decoder-only: tfp_generator_create + the first tfp_generator_next (the
//               prompt's forward pass and the first token); encoder-decoder: greedy
//               tfp_model_translate of the prompt with max_tokens 1 (encoder + one step)
//   decode_tok_s  the following tokens, one cached step each (encoder-decoder: translate
//               with max_tokens 1 + tokens, less the max_tokens 1 run, over the extra steps)
//   peak_mb     native: the process's peak resident set (getrusage); WASM: the heap's size
//               at the end (WASM memory only grows, so it is the peak)
//   tokens      the greedy ids (the same natively and in WASM, up to float rounding ties)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "api/tfp_api.h"

#ifdef __EMSCRIPTEN__
#include <emscripten/heap.h>
#else
#include <sys/resource.h>
#endif

namespace {

double now_ms() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

bool read_file(const std::string& path, std::vector<char>* out) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  std::fseek(f, 0, SEEK_END);
  long n = std::ftell(f);
  std::fseek(f, 0, SEEK_SET);
  out->resize(static_cast<size_t>(n));
  size_t got = n > 0 ? std::fread(out->data(), 1, static_cast<size_t>(n), f) : 0;
  std::fclose(f);
  return got == static_cast<size_t>(n);
}

/** Reads a file straight into `dst` (the staging buffer). */
bool read_into(const std::string& path, uint8_t* dst, size_t bytes) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  size_t got = std::fread(dst, 1, bytes, f);
  std::fclose(f);
  return got == bytes;
}

long file_size(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return -1;
  std::fseek(f, 0, SEEK_END);
  long n = std::ftell(f);
  std::fclose(f);
  return n;
}

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "real_size_bench: %s: %s\n", what, tfp_last_error());
  std::exit(1);
}

void check(int status, const char* what) {
  if (status != 0) fail(what);
}

double peak_mb() {
#ifdef __EMSCRIPTEN__
  return static_cast<double>(emscripten_get_heap_size()) / (1024.0 * 1024.0);
#else
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0;  // KiB on Linux
#endif
}

/** The shard file names of model.safetensors.index.json's weight_map, each once, in order. */
std::vector<std::string> shard_names(const std::string& index) {
  std::vector<std::string> names;
  size_t at = index.find("\"weight_map\"");
  while (at != std::string::npos) {
    size_t end = index.find(".safetensors\"", at);
    if (end == std::string::npos) break;
    size_t start = index.rfind('"', end - 1);
    std::string name = index.substr(start + 1, end + 12 - start - 1);
    bool seen = false;
    for (const auto& n : names) seen = seen || n == name;
    if (!seen && name.find(':') == std::string::npos) names.push_back(name);
    at = end + 13;
  }
  return names;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: real_size_bench DIR [--prompt 32] [--tokens 32]\n");
    return 2;
  }
  std::string dir = argv[1];
  int n_prompt = 32, n_tokens = 32, context = 0;
  for (int i = 2; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--prompt") == 0)
      n_prompt = std::atoi(argv[i + 1]);
    else if (std::strcmp(argv[i], "--tokens") == 0)
      n_tokens = std::atoi(argv[i + 1]);
    else if (std::strcmp(argv[i], "--context") == 0)
      context = std::atoi(argv[i + 1]);
  }

  // ---- load: stage the files as the page does, then tfp_model_load ----
  const double t0 = now_ms();
  std::vector<char> config, index;
  if (!read_file(dir + "/config.json", &config)) {
    std::fprintf(stderr, "real_size_bench: %s/config.json: cannot read\n", dir.c_str());
    return 1;
  }
  if (context > 0) {
    // "max_position_embeddings": <digits> -> N (the key as every family here spells it).
    std::string text(config.begin(), config.end());
    const std::string key = "\"max_position_embeddings\":";
    size_t at = text.find(key);
    if (at == std::string::npos) {
      std::fprintf(stderr, "real_size_bench: --context: config.json has no max_position_embeddings\n");
      return 1;
    }
    at += key.size();
    while (at < text.size() && text[at] == ' ') at++;
    size_t end = at;
    while (end < text.size() && text[end] >= '0' && text[end] <= '9') end++;
    text.replace(at, end - at, std::to_string(context));
    config.assign(text.begin(), text.end());
  }
  tfp_model_files* files = nullptr;
  long file_bytes = 0;
  int n_shards = 0;
  if (read_file(dir + "/model.safetensors.index.json", &index)) {
    check(tfp_model_files_create(0, &files), "tfp_model_files_create");
    for (const auto& name : shard_names(std::string(index.begin(), index.end()))) {
      const long n = file_size(dir + "/" + name);
      uint8_t* data = nullptr;
      check(tfp_model_files_add_shard(files, name.c_str(), static_cast<size_t>(n), &data), "tfp_model_files_add_shard");
      if (!read_into(dir + "/" + name, data, static_cast<size_t>(n))) fail(name.c_str());
      file_bytes += n;
      n_shards += 1;
    }
    check(tfp_model_files_set_index(files, index.data(), index.size()), "tfp_model_files_set_index");
  } else {
    const long n = file_size(dir + "/model.safetensors");
    check(tfp_model_files_create(static_cast<size_t>(n), &files), "tfp_model_files_create");
    if (!read_into(dir + "/model.safetensors", tfp_model_files_weights(files), static_cast<size_t>(n)))
      fail("model.safetensors");
    file_bytes = n;
    n_shards = 1;
  }
  check(tfp_model_files_set_config(files, config.data(), config.size()), "tfp_model_files_set_config");
  check(tfp_model_files_set_name(files, dir.c_str()), "tfp_model_files_set_name");
  tfp_model* model = nullptr;
  check(tfp_model_load(files, &model), "tfp_model_load");
  tfp_model_files_free(files);
  const double load_ms = now_ms() - t0;
  const double mb_after_load = peak_mb();

  const std::string info = tfp_model_info_json(model);
  const bool enc_dec = info.find("\"encoder_decoder\"") != std::string::npos;
  int vocab = 1000;
  if (size_t v = info.find("\"vocab_size\":"); v != std::string::npos) vocab = std::atoi(info.c_str() + v + 13);
  std::vector<int32_t> prompt(static_cast<size_t>(n_prompt));
  for (int i = 0; i < n_prompt; i++)
    prompt[static_cast<size_t>(i)] = static_cast<int32_t>((7919LL * i + 13) % (vocab - 2) + 2);

  std::vector<int32_t> tokens;
  double prefill_ms = 0, decode_ms = 0;
  int decoded = 0;
  if (!enc_dec) {
    const double t1 = now_ms();
    tfp_generator* gen = nullptr;
    tfp_generator_params gp;
    tfp_generator_params_init(&gp);  // stop at the model's eos
    gp.prompt = prompt.data();
    gp.n = n_prompt;
    gp.max_tokens = 1 + n_tokens;
    gp.temperature = 0.0f;  // greedy
    check(tfp_generator_create(model, &gp, &gen), "tfp_generator_create");
    int32_t id = 0;
    int done = 0;
    check(tfp_generator_next(gen, &id, nullptr, &done), "tfp_generator_next");
    prefill_ms = now_ms() - t1;
    tokens.push_back(id);
    const double t2 = now_ms();
    while (!tfp_generator_finished(gen)) {
      check(tfp_generator_next(gen, &id, nullptr, &done), "tfp_generator_next");
      if (done) break;
      tokens.push_back(id);
      decoded += 1;
    }
    decode_ms = now_ms() - t2;
    tfp_generator_free(gen);
  } else {
    std::vector<int32_t> out(static_cast<size_t>(n_tokens + 4));
    int len = 0;
    tfp_tensors* align = nullptr;
    tfp_translate_params tp;
    tfp_translate_params_init(&tp);  // greedy, the model's start and eos
    tp.src_ids = prompt.data();
    tp.n = n_prompt;
    tp.max_tokens = 1;
    const double t1 = now_ms();
    check(tfp_model_translate(model, &tp, out.data(), static_cast<int>(out.size()), &len, &align),
          "tfp_model_translate");
    prefill_ms = now_ms() - t1;
    tfp_tensors_free(align);
    tp.max_tokens = 1 + n_tokens;
    const double t2 = now_ms();
    check(tfp_model_translate(model, &tp, out.data(), static_cast<int>(out.size()), &len, &align),
          "tfp_model_translate");
    const double whole = now_ms() - t2;
    tfp_tensors_free(align);
    tokens.assign(out.begin(), out.begin() + len);
    decoded = len - 1;
    decode_ms = whole - prefill_ms;
  }
  tfp_model_free(model);

  std::printf(
      "{\"dir\":\"%s\",\"context\":%d,\"shards\":%d,\"file_mb\":%.1f,\"load_ms\":%.1f,\"mb_after_load\":%.1f,\"peak_"
      "mb\":%.1f,"
      "\"prompt\":%d,\"prefill_ms\":%.1f,\"decoded\":%d,\"decode_ms\":%.1f,\"decode_tok_s\":%.2f,\"tokens\":[",
      dir.c_str(), context, n_shards, static_cast<double>(file_bytes) / (1024.0 * 1024.0), load_ms, mb_after_load,
      peak_mb(), n_prompt, prefill_ms, decoded, decode_ms, decoded > 0 ? decoded / (decode_ms / 1000.0) : 0.0);
  for (size_t i = 0; i < tokens.size(); i++) std::printf("%s%d", i ? "," : "", tokens[i]);
  std::printf("]}\n");
  return 0;
}
