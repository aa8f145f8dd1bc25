// Binding a safetensors file to ModelWeights through a name table (see names_table.h).
#include "model/names_table.h"

#include "io/json_excerpt.h"
#include "model/families.h"
#include "model/precision.h"

#include <cctype>
#include <cmath>
#include <span>
#include <utility>
#include <unordered_map>
#include <unordered_set>

namespace tfp::model {

namespace {

// "dec.3.attn.qkv.weight" → ("dec.{i}.attn.qkv.weight", "3"); roles without a layer
// index come back unchanged with an empty index.
std::pair<std::string, std::string> role_pattern(const std::string& role) {
  size_t start = 0;
  while (start < role.size()) {
    size_t end = role.find('.', start);
    if (end == std::string::npos) end = role.size();
    bool digits = end > start;
    for (size_t k = start; k < end && digits; ++k) digits = std::isdigit(static_cast<unsigned char>(role[k]));
    if (digits)
      return {role.substr(0, start) + "{i}" + role.substr(end), role.substr(start, end - start)};
    start = end + 1;
  }
  return {role, ""};
}

std::vector<std::string> split_alternatives(const char* names) {
  std::vector<std::string> out;
  std::string cur;
  for (const char* p = names; *p; ++p) {
    if (*p == '|') {
      out.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(*p);
    }
  }
  out.push_back(cur);
  return out;
}

std::string substitute_index(std::string name, const std::string& index) {
  const size_t at = name.find("{i}");
  if (at != std::string::npos) name.replace(at, 3, index);
  return name;
}

}  // namespace

void per_head_qkv_rows_in_place(void* data, int64_t rows, int64_t H, int64_t D, size_t row_bytes) {
  TFP_CHECK(rows == 3 * H * D, "a per-head q|k|v tensor of ", rows, " rows does not hold 3 × ", H, " heads × ", D);
  uint8_t* p = static_cast<uint8_t*>(data);
  const std::vector<uint8_t> was(p, p + static_cast<size_t>(rows) * row_bytes);
  for (int64_t h = 0; h < H; ++h)
    for (int64_t part = 0; part < 3; ++part)
      for (int64_t d = 0; d < D; ++d)
        std::memcpy(p + static_cast<size_t>((part * H + h) * D + d) * row_bytes,
                    was.data() + static_cast<size_t>((h * 3 + part) * D + d) * row_bytes, row_bytes);
}

namespace {

int64_t first_non_finite(const TensorView& v) {
  const int64_t n = v.numel();
  for (int64_t i = 0; i < n; ++i)
    if (!std::isfinite(v.data[i])) return i;
  return -1;
}

// The first NaN or infinity among 16-bit floats (exponent all ones) and whether it is NaN.
std::pair<int64_t, bool> first_non_finite16(const HalfView& h, const Shape& shape) {
  const uint16_t exp = h.bf16 ? 0x7f80 : 0x7c00;
  const int64_t n = numel_of(shape);
  for (int64_t i = 0; i < n; ++i)
    if ((h.data[i] & exp) == exp) return {i, (h.data[i] & (0x7fff & ~exp)) != 0};
  return {-1, false};
}

// Flat index → "[r, c]" in the tensor's shape.
std::string index_str(const Shape& shape, int64_t flat) {
  std::vector<int64_t> at(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    at[d] = shape[d] > 0 ? flat % shape[d] : 0;
    flat = shape[d] > 0 ? flat / shape[d] : 0;
  }
  std::string out = "[";
  for (size_t d = 0; d < at.size(); ++d) out += (d ? ", " : "") + std::to_string(at[d]);
  return out + "]";
}

bool match_any(const std::vector<const char*>& patterns, std::string_view name) {
  for (const char* p : patterns)
    if (name_pattern_match(p, name)) return true;
  return false;
}

}  // namespace

namespace {
// name_pattern_match, also giving the digits the first {i} matched ("" when none).
bool pattern_match(std::string_view pattern, std::string_view name, std::string* layer) {
  if (pattern.empty()) return name.empty();
  if (pattern[0] == '*') {
    for (size_t k = 0; k <= name.size(); ++k)
      if (pattern_match(pattern.substr(1), name.substr(k), layer)) return true;
    return false;
  }
  if (pattern.starts_with("{i}")) {
    size_t k = 0;
    while (k < name.size() && std::isdigit(static_cast<unsigned char>(name[k]))) ++k;
    for (size_t n = k; n >= 1; --n)
      if (pattern_match(pattern.substr(3), name.substr(n), layer)) {
        if (layer) *layer = std::string(name.substr(0, n));
        return true;
      }
    return false;
  }
  return !name.empty() && name[0] == pattern[0] && pattern_match(pattern.substr(1), name.substr(1), layer);
}
}  // namespace

bool name_pattern_match(std::string_view pattern, std::string_view name) {
  return pattern_match(pattern, name, nullptr);
}

const NameTable* name_table_for(CheckpointFamily family) {
  switch (family) {
    case CheckpointFamily::gpt2: return &names_gpt2();
    case CheckpointFamily::bert: return &names_bert();
    case CheckpointFamily::torch_transformer: return &names_torch_transformer();
    case CheckpointFamily::torch_encoder: return &names_torch_encoder();
    case CheckpointFamily::torch_decoder: return &names_torch_decoder();
    case CheckpointFamily::llama: return &names_llama();
    case CheckpointFamily::gemma: return &names_gemma();
    case CheckpointFamily::gpt_neox: return &names_gpt_neox();
    case CheckpointFamily::gpt_neo: return &names_gpt_neo();
    case CheckpointFamily::bloom: return &names_bloom();
    case CheckpointFamily::t5: return &names_t5();
    case CheckpointFamily::tfp: return nullptr;
  }
  return nullptr;
}

namespace {

// A file's tensors by name with the table's optional prefix removed ("transformer.h.0..."
// → "h.0..."), and the table's rules by role pattern.
struct FileNames {
  const NameTable* table;
  std::unordered_map<std::string, const io::TensorEntry*> by_name;
  std::unordered_map<const io::TensorEntry*, std::string> short_name;
  // The prefix the file's names of each first component carry ("layers" → "model.",
  // "lm_head" → ""): a missing tensor is named as this file would spell it.
  std::unordered_map<std::string, std::string> prefix_of;
  std::unordered_map<std::string, const NameRule*> rules;
  std::vector<std::string> problems;  // two tensors with the same name once unprefixed

  FileNames(const NameTable* t, const io::SafeTensors& st) : table(t) {
    for (const io::TensorEntry& e : st.entries()) {
      std::string key = e.name;
      if (table)
        for (const char* p : table->prefixes)
          if (key.starts_with(p)) {
            key = key.substr(std::string_view(p).size());
            prefix_of.emplace(head(key), p);
            break;
          }
      const auto [it, fresh] = by_name.emplace(key, &e);
      if (!fresh)
        problems.push_back("tensors '" + it->second->name + "' and '" + e.name + "' are both '" + key + "'");
      short_name[&e] = key;
    }
    if (table)
      for (const NameRule& r : table->rules) rules.emplace(r.role, &r);
  }
  static std::string head(const std::string& key) { return key.substr(0, key.find('.')); }
  // The prefix this file would spell `key` with ("" when none of its names has one).
  std::string prefix_for(const std::string& key) const {
    const auto it = prefix_of.find(head(key));
    return it == prefix_of.end() ? std::string() : it->second;
  }
};

// Where a slot's tensor would come from: the names to look for (first = the current one),
// the entry found, the layout and transform. known = false when the table has no rule.
struct Found {
  bool known = true;
  std::vector<std::string> candidates;
  SlotSource source;
};

Found find_source(const FileNames& names, const WeightSlot& slot) {
  Found f;
  if (!names.table) {
    f.candidates.push_back(slot.role);  // our own files are named by role
  } else {
    const auto [pattern, index] = role_pattern(slot.role);
    const auto it = names.rules.find(pattern);
    if (it == names.rules.end()) {
      f.known = false;
      return f;
    }
    for (const std::string& alt : split_alternatives(it->second->names))
      f.candidates.push_back(substitute_index(alt, index));
    f.source.layout = it->second->layout;
    f.source.transform = it->second->transform;
  }
  for (const std::string& c : f.candidates)
    if (const auto e = names.by_name.find(c); e != names.by_name.end()) {
      f.source.entry = e->second;
      break;
    }
  return f;
}

}  // namespace

std::vector<SlotSource> slot_sources(CheckpointFamily family, const io::SafeTensors& st,
                                     const std::vector<WeightSlot>& slots) {
  const FileNames names(name_table_for(family), st);
  std::vector<SlotSource> out;
  out.reserve(slots.size());
  for (const WeightSlot& slot : slots) out.push_back(find_source(names, slot).source);
  return out;
}

BindReport bind_checkpoint(const ModelConfig& cfg, CheckpointFamily family,
                           const io::SafeTensors& st, ModelWeights& w, size_t keep16_min_bytes) {
  const NameTable* table = name_table_for(family);
  const std::string family_str = family_name(family);
  std::vector<std::string> problems;
  BindReport report;

  const FileNames names(table, st);
  problems = names.problems;

  // 16-bit matrices stay as stored (the model holds half of f32's bytes, and the load's peak
  // is the file itself: GPT-2-small F16 247 MiB instead of 722 widened), except in a tiny
  // checkpoint (the playground's own models, 2 MB), which is widened once here: WASM has no
  // half-precision instructions, the kernels widen in software, and a small forward pays
  // for it (brown-gpt's first map: forward stage 80 vs 86 ms in paired cold loads; a
  // GPT-2-small f16 decode step is ~15 % slower than f32's, 20.1 vs 17.4 ms; bench/RESULTS.md,
  // 2026-11-26). Widening costs at most 2 x keep16_min_bytes more memory. `--precision f16`
  // keeps any size 16-bit, `f32` widens any size.
  size_t bytes16 = 0;
  for (const io::TensorEntry& e : st.entries())
    if (e.dtype == io::DType::F16 || e.dtype == io::DType::BF16) bytes16 += e.nbytes;
  const bool keep16 = bytes16 >= keep16_min_bytes;

  std::unordered_set<const io::TensorEntry*> used;
  for (WeightSlot& slot : weight_slots(cfg, w)) {
    const Found found = find_source(names, slot);
    if (!found.known) {
      problems.push_back("role " + slot.role + " has no checkpoint name in the " + family_str +
                         " table (this config is not supported for " + family_str + " files)");
      continue;
    }
    const std::vector<std::string>& candidates = found.candidates;
    const io::TensorEntry* e = found.source.entry;
    const nn::WeightLayout layout = found.source.layout;
    const NameRule::Transform transform = found.source.transform;
    if (!e) {
      // (The layers' attention and MLP biases: those the config's options declare.)
      const bool declared_bias = table && table->declared_biases_required && slot.role.ends_with(".bias") &&
                                 (slot.role.find(".attn.") != std::string::npos || slot.role.find(".ffn.") != std::string::npos);
      if (slot.required || declared_bias)
        problems.push_back("missing tensor '" + names.prefix_for(candidates.front()) + candidates.front() + "' (role " +
                           slot.role + ")");
      continue;
    }
    used.insert(e);
    if (e->dtype == io::DType::I8 && slot.int8) {  // int8 + its scales (model/precision.h)
      if (slot.linear && slot.view == &slot.linear->weight) slot.linear->layout = layout;
      const bool per_head = transform == NameRule::Transform::per_head_qkv;
      if (std::string why = bind_int8(st, *e, slot, per_head ? cfg.n_heads : 0, cfg.head_dim(), used); !why.empty())
        problems.push_back("tensor '" + e->name + "' (role " + slot.role + ") " + why);
      else
        ++report.bound;
      continue;
    }
    if (!io::dtype_is_float_supported(e->dtype)) {
      problems.push_back("tensor '" + e->name + "' (role " + slot.role + ") has dtype " +
                         io::dtype_name(e->dtype) + "; weights must be F32, F16 or BF16");
      continue;
    }
    if (slot.linear && slot.view == &slot.linear->weight) slot.linear->layout = layout;
    const Shape want = slot.expected_now();
    if (e->shape != want) {
      problems.push_back("tensor '" + e->name + "' (role " + slot.role + ") has shape " +
                         shape_str(e->shape) + ", expected " + shape_str(want));
      continue;
    }
    // A NaN or infinity in a weight would poison every output downstream: refuse the
    // file here, naming the tensor and the first bad element, instead of printing NaNs.
    auto non_finite = [&](int64_t bad, bool nan) {
      problems.push_back("tensor '" + e->name + "' (role " + slot.role + ") holds " +
                         (nan ? "NaN" : "an infinity") + " at index " + index_str(e->shape, bad) +
                         " (flat " + std::to_string(bad) + ")");
    };
    // A 16-bit matrix (a Linear weight, a token table) of a large checkpoint stays as
    // stored: the kernels widen what they read, so the model holds no f32 copy of it.
    const std::span<const uint8_t> raw = st.bytes(*e);
    // A per-head fused q|k|v is put in q | k | v order where it lies, in the file's own bytes
    // (the model holds them; no reordered copy): rows of a matrix, entries of a bias.
    const bool per_head = transform == NameRule::Transform::per_head_qkv;
    const auto reorder = [&](const void* data, size_t elem_bytes) {
      const int64_t cols = e->shape.size() == 2 ? e->shape[1] : 1;
      per_head_qkv_rows_in_place(const_cast<void*>(data), e->shape[0], cfg.n_heads, cfg.head_dim(),
                                 static_cast<size_t>(cols) * elem_bytes);
    };
    if (keep16 && slot.half && e->dtype != io::DType::F32 &&
        reinterpret_cast<uintptr_t>(raw.data()) % alignof(uint16_t) == 0) {
      HalfView h{reinterpret_cast<const uint16_t*>(raw.data()), e->dtype == io::DType::BF16};
      if (const auto [bad, nan] = first_non_finite16(h, e->shape); bad >= 0) {
        non_finite(bad, nan);
        continue;
      }
      if (per_head) reorder(raw.data(), 2);
      h.finite = true;
      *slot.view = TensorView(nullptr, e->shape);
      *slot.half = h;
      ++report.bound;
      continue;
    }
    const TensorView v = st.f32(*e);
    if (const int64_t bad = first_non_finite(v); bad >= 0) {
      non_finite(bad, std::isnan(v.data[bad]));
      continue;
    }
    if (per_head) reorder(v.data, sizeof(float));  // the file's F32 bytes, or its f32 copy of 16-bit ones
    *slot.view = v;
    ++report.bound;
  }

  // Every tensor of the file is accounted for.
  for (const io::TensorEntry& e : st.entries()) {
    if (used.count(&e)) continue;
    const std::string& key = names.short_name.at(&e);
    if (table && match_any(table->ignored, key)) {
      report.ignored.push_back(e.name);
    } else if (table && match_any(table->allowed_unused, key)) {
      report.unused_allowed.push_back(e.name);
    } else {
      std::string why = "unexpected tensor '" + e.name + "'";
      // A name the table knows but the config did not ask for: say which role.
      if (table)
        for (const NameRule& r : table->rules)
          for (const std::string& alt : split_alternatives(r.names)) {
            std::string layer;
            if (why.back() != '\'' || !pattern_match(alt, key, &layer)) continue;
            std::string role = r.role;  // "dec.{i}.attn.q.bias" -> "dec.0.attn.q.bias"
            if (const size_t at = role.find("{i}"); at != std::string::npos && !layer.empty()) role.replace(at, 3, layer);
            why += " (role " + role + ", which this config does not have: layer count or options differ?)";
          }
      problems.push_back(why);
    }
  }

  if (!problems.empty()) {
    std::string msg = "checkpoint '" + st.source() + "' (" + family_str + ") does not match its config: " +
                      std::to_string(problems.size()) + " problem" + (problems.size() == 1 ? "" : "s") + ":";
    // The first 20 problems, each in at most 300 bytes (a tensor name is the file's: a 1 MB
    // name would make a 1 MB message), then a count of the rest.
    constexpr size_t kShown = 20, kLineBytes = 300;
    for (size_t i = 0; i < problems.size() && i < kShown; ++i) msg += "\n  " + io::text_excerpt(problems[i], kLineBytes);
    if (problems.size() > kShown) msg += "\n  ... and " + std::to_string(problems.size() - kShown) + " more";
    TFP_FAIL(msg);
  }
  validate_weights(cfg, w);  // the engine's own check, by role (should always pass here)
  return report;
}

}  // namespace tfp::model
