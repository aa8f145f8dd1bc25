// safetensors reader and writer; the format and the guarantees are described in the header.
#include "io/safetensors.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <set>

#include <nlohmann/json.hpp>

#include "io/file.h"
#include "io/json_depth.h"
#include "io/json_excerpt.h"
#include "kernels/kernels.h"

namespace tfp::io {

namespace {

struct DTypeInfo {
  DType dtype;
  const char* name;
  size_t size;
};

constexpr DTypeInfo kDTypes[] = {
    {DType::F32, "F32", 4},     {DType::F16, "F16", 2},     {DType::BF16, "BF16", 2},
    {DType::I8, "I8", 1},       {DType::U8, "U8", 1},       {DType::BOOL, "BOOL", 1},
    {DType::F64, "F64", 8},     {DType::I64, "I64", 8},     {DType::I32, "I32", 4},
    {DType::I16, "I16", 2},     {DType::U16, "U16", 2},     {DType::U32, "U32", 4},
    {DType::U64, "U64", 8},     {DType::F8_E4M3, "F8_E4M3", 1}, {DType::F8_E5M2, "F8_E5M2", 1},
};
static_assert(sizeof(kDTypes) / sizeof(kDTypes[0]) == static_cast<size_t>(DType::F8_E5M2) + 1,
              "every DType needs a row in kDTypes");

const DTypeInfo& info_of(DType d) { return kDTypes[static_cast<size_t>(d)]; }

// The reference implementation refuses headers over 100 MB; so do we (a guard against
// a corrupt length making us scan gigabytes).
constexpr uint64_t kMaxHeaderBytes = 100u * 1000u * 1000u;

uint64_t read_u64_le(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// "safetensors '<source>': " — the prefix of every parse error.
struct Ctx {
  const std::string& source;
  template <typename... Parts>
  [[noreturn]] void fail(const Parts&... parts) const {
    TFP_FAIL("safetensors '", source, "': ", parts...);
  }
};

// A JSON array of non-negative integers, each fitting int64 (shape) or uint64 (offsets).
bool as_u64_list(const nlohmann::json& j, std::vector<uint64_t>* out) {
  if (!j.is_array()) return false;
  out->clear();
  for (const auto& x : j) {
    if (!x.is_number_unsigned()) return false;  // negative or float → not a size
    out->push_back(x.get<uint64_t>());
  }
  return true;
}

// A string from the header as a message quotes it: a bounded prefix (a 512 KiB dtype made
// a 512 KiB message). Tensor names get more room than a dtype: real ones run to ~100 bytes.
std::string quote_name(std::string_view s) { return text_excerpt(s, 200); }
std::string quote_value(std::string_view s) { return text_excerpt(s); }
// A shape as a message shows it: its first 16 dimensions, then a count of the rest.
std::string quote_shape(const Shape& shape) {
  constexpr size_t kShown = 16;
  if (shape.size() <= kShown) return shape_str(shape);
  std::string s = shape_str(Shape(shape.begin(), shape.begin() + kShown));
  s.pop_back();  // the "]"
  return s + ", … (" + std::to_string(shape.size()) + " dimensions)]";
}

}  // namespace

const char* dtype_name(DType d) { return info_of(d).name; }
size_t dtype_size(DType d) { return info_of(d).size; }
bool dtype_is_float_supported(DType d) {
  return d == DType::F32 || d == DType::F16 || d == DType::BF16;
}
bool dtype_from_name(std::string_view name, DType* out) {
  for (const auto& row : kDTypes) {
    if (name == row.name) {
      *out = row.dtype;
      return true;
    }
  }
  return false;
}

bool valid_utf8(std::string_view s, size_t* bad_offset) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  size_t i = 0;
  while (i < n) {
    const unsigned c = p[i];
    size_t len = 0;
    uint32_t cp = 0, min = 0;
    if (c < 0x80) { ++i; continue; }
    if ((c & 0xE0) == 0xC0) { len = 2; cp = c & 0x1F; min = 0x80; }
    else if ((c & 0xF0) == 0xE0) { len = 3; cp = c & 0x0F; min = 0x800; }
    else if ((c & 0xF8) == 0xF0) { len = 4; cp = c & 0x07; min = 0x10000; }
    else { if (bad_offset) *bad_offset = i; return false; }
    if (i + len > n) { if (bad_offset) *bad_offset = i; return false; }
    for (size_t k = 1; k < len; ++k) {
      if ((p[i + k] & 0xC0) != 0x80) { if (bad_offset) *bad_offset = i; return false; }
      cp = (cp << 6) | (p[i + k] & 0x3F);
    }
    // Overlong forms, UTF-16 surrogates and code points past Unicode are all invalid.
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
      if (bad_offset) *bad_offset = i;
      return false;
    }
    i += len;
  }
  return true;
}

// ---- reader ------------------------------------------------------------------------

SafeTensors SafeTensors::load(const std::string& path) { return parse(read_file(path), path); }

SafeTensors SafeTensors::parse(std::vector<uint8_t> bytes, std::string source) {
  SafeTensors st;
  st.source_ = std::move(source);
  st.buffer_ = std::move(bytes);
  st.read_header(st.buffer_, st.buffer_.size());
  return st;
}

SafeTensors SafeTensors::parse_header(std::span<const uint8_t> head, uint64_t file_size, std::string source) {
  SafeTensors st;
  st.source_ = std::move(source);
  st.header_only_ = true;
  st.read_header(head, file_size);
  return st;
}

size_t SafeTensors::bytes_before_data(std::span<const uint8_t> first8) {
  if (first8.size() < 8) return 0;
  const uint64_t n = read_u64_le(first8.data());
  return n > kMaxHeaderBytes ? 0 : static_cast<size_t>(8 + n);
}

void SafeTensors::read_header(std::span<const uint8_t> head, uint64_t file_size) {
  SafeTensors& st = *this;
  const Ctx ctx{st.source_};

  // 1. The header length and the header bytes.
  if (file_size < 8)
    ctx.fail("file is ", file_size, " bytes, too short for the 8-byte header length (truncated?)");
  TFP_CHECK(head.size() >= 8, "safetensors '", source_, "': the header length is not among the bytes given");
  const uint64_t n = read_u64_le(head.data());
  if (n > file_size - 8)
    ctx.fail("header length ", n, " runs past the end of the file (", file_size,
             " bytes; truncated or not a safetensors file?)");
  if (n > kMaxHeaderBytes) ctx.fail("header length ", n, " is over the 100 MB limit");
  if (n < 2) ctx.fail("header length ", n, " is too small for a JSON object");
  st.header_size_ = static_cast<size_t>(n);
  TFP_CHECK(head.size() >= 8 + n, "safetensors '", source_, "': the header's ", n, " bytes are not all among the bytes given");
  const std::string_view header(reinterpret_cast<const char*>(head.data()) + 8, static_cast<size_t>(n));
  size_t bad = 0;
  if (!valid_utf8(header, &bad)) ctx.fail("header is not valid UTF-8 (byte ", bad, " of the header)");

  // 2. JSON, without exceptions, once its depth is known to be bounded (io/json_depth.h).
  if (const io::JsonNesting deep = io::json_nesting(header); deep.depth > io::kMaxJsonDepth)
    ctx.fail("header is JSON nested ", deep.depth, " levels deep (at byte ", deep.at, " of the header); at most ",
             io::kMaxJsonDepth, " are read");
  // nlohmann keeps the last of duplicate keys silently, so
  // a parser callback watches the top-level keys for repeats.
  std::set<std::string> seen;
  std::string duplicate;
  auto watch = [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    if (event == nlohmann::json::parse_event_t::key && depth == 1 && parsed.is_string()) {
      const auto& key = parsed.get_ref<const std::string&>();
      if (!seen.insert(key).second && duplicate.empty()) duplicate = key;
    }
    return true;
  };
  const nlohmann::json j = nlohmann::json::parse(header.begin(), header.end(), watch, false);
  if (j.is_discarded()) ctx.fail("header is not valid JSON");
  if (!j.is_object()) ctx.fail("header is JSON but not an object");
  if (!duplicate.empty()) ctx.fail("tensor '", quote_name(duplicate), "' is declared twice in the header");

  const uint64_t data_start = 8 + n;
  const uint64_t data_size = file_size - data_start;

  // 3. Every entry: dtype, shape, offsets, and the size they imply.
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& name = it.key();
    const nlohmann::json& v = it.value();
    if (name == "__metadata__") {
      if (!v.is_object()) ctx.fail("__metadata__ is not an object");
      for (auto m = v.begin(); m != v.end(); ++m) {
        if (!m.value().is_string())
          ctx.fail("__metadata__ value for '", quote_name(m.key()), "' is not a string");
        st.metadata_[m.key()] = m.value().get<std::string>();
      }
      continue;
    }
    if (!v.is_object()) ctx.fail("tensor '", quote_name(name), "': header entry is not an object");
    const auto dt = v.find("dtype");
    const auto sh = v.find("shape");
    const auto off = v.find("data_offsets");
    if (dt == v.end() || !dt->is_string()) ctx.fail("tensor '", quote_name(name), "': missing or non-string \"dtype\"");
    if (sh == v.end()) ctx.fail("tensor '", quote_name(name), "': missing \"shape\"");
    if (off == v.end()) ctx.fail("tensor '", quote_name(name), "': missing \"data_offsets\"");

    TensorEntry e;
    e.name = name;
    const std::string& dtype_str = dt->get_ref<const std::string&>();
    if (!dtype_from_name(dtype_str, &e.dtype))
      ctx.fail("tensor '", quote_name(name), "': unknown dtype '", quote_value(dtype_str), "'");

    std::vector<uint64_t> dims, offsets;
    if (!as_u64_list(*sh, &dims))
      ctx.fail("tensor '", quote_name(name), "': \"shape\" is not a list of non-negative integers");
    if (!as_u64_list(*off, &offsets) || offsets.size() != 2)
      ctx.fail("tensor '", quote_name(name), "': \"data_offsets\" is not [begin, end] of non-negative integers");

    // Overflow-safe element and byte counts: a corrupt shape must not wrap around to a
    // small number that happens to match the offsets.
    uint64_t count = 1;
    bool overflow = false;
    for (uint64_t d : dims) {
      if (d > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) overflow = true;
      overflow = overflow || __builtin_mul_overflow(count, d, &count);
      e.shape.push_back(static_cast<int64_t>(d));
    }
    uint64_t need = 0;
    overflow = overflow || __builtin_mul_overflow(count, uint64_t{dtype_size(e.dtype)}, &need);
    if (overflow)
      ctx.fail("tensor '", quote_name(name), "': shape ", quote_shape(e.shape), " is too large (element count overflows)");

    const uint64_t begin = offsets[0], end = offsets[1];
    if (begin > end)
      ctx.fail("tensor '", quote_name(name), "': data_offsets [", begin, ", ", end, "] end before they begin");
    if (end > data_size)
      ctx.fail("tensor '", quote_name(name), "': data_offsets [", begin, ", ", end, "] run past the end of the data (",
               data_size, " bytes; truncated file?)");
    if (end - begin != need)
      ctx.fail("tensor '", quote_name(name), "': shape ", quote_shape(e.shape), " of ", dtype_str, " needs ", need,
               " bytes but data_offsets [", begin, ", ", end, "] hold ", end - begin);
    e.offset = static_cast<size_t>(data_start + begin);
    e.nbytes = static_cast<size_t>(need);
    st.entries_.push_back(std::move(e));
  }

  // 4. The tensors tile the data: no overlaps, no gaps, nothing trailing (as the
  // reference implementation requires; gaps would let a file hide other content).
  std::stable_sort(st.entries_.begin(), st.entries_.end(), [](const TensorEntry& a, const TensorEntry& b) {
    return a.offset != b.offset ? a.offset < b.offset : a.nbytes < b.nbytes;
  });
  size_t pos = static_cast<size_t>(data_start);
  const TensorEntry* prev = nullptr;
  for (const TensorEntry& e : st.entries_) {
    if (e.offset < pos) {
      ctx.fail("tensors '", quote_name(prev->name), "' (bytes [", prev->offset - data_start, ", ",
               prev->offset - data_start + prev->nbytes, "]) and '", quote_name(e.name), "' (bytes [",
               e.offset - data_start, ", ", e.offset - data_start + e.nbytes, "]) overlap");
    }
    if (e.offset > pos)
      ctx.fail("bytes [", pos - data_start, ", ", e.offset - data_start,
               ") of the data belong to no tensor (before '", quote_name(e.name), "')");
    pos = e.offset + e.nbytes;
    if (e.nbytes > 0) prev = &e;
  }
  if (pos != file_size)
    ctx.fail(file_size - pos, " trailing bytes after the last tensor belong to no tensor");

  // 5. Index by name; f32 copies are made when first asked for (f32()).
  st.converted_.resize(st.entries_.size());
  for (size_t i = 0; i < st.entries_.size(); ++i) st.index_.emplace(st.entries_[i].name, i);
}

void to_f32(const uint8_t* src, DType dtype, size_t count, float* dst) {
  if (count == 0) return;
  if (dtype == DType::F32) {
    std::memcpy(dst, src, count * sizeof(float));
    return;
  }
  std::vector<uint16_t> halves(count);  // aligned copy: the source may sit at an odd offset
  std::memcpy(halves.data(), src, count * sizeof(uint16_t));
  if (dtype == DType::F16) kernels::f16_to_f32(halves.data(), dst, count);
  else kernels::bf16_to_f32(halves.data(), dst, count);
}

const uint8_t* SafeTensors::data_of(const TensorEntry& e) const {
  TFP_CHECK(!header_only_, "safetensors '", source_, "': tensor '", e.name, "' has no data here (header only)");
  return (e.shard == 0 ? buffer_ : shard_buffers_[e.shard - 1]).data() + e.offset;
}

void f32_row(const SafeTensors& st, const TensorEntry& e, int64_t r, float* out) {
  TFP_CHECK(dtype_is_float_supported(e.dtype) && e.shape.size() == 2 && r >= 0 && r < e.shape[0],
            "safetensors '", st.source(), "': tensor '", e.name, "' has no float row ", r);
  const size_t C = static_cast<size_t>(e.shape[1]);
  to_f32(st.bytes(e).data() + static_cast<size_t>(r) * C * dtype_size(e.dtype), e.dtype, C, out);
}

const TensorEntry* SafeTensors::find(std::string_view name) const {
  const auto it = index_.find(std::string(name));
  return it == index_.end() ? nullptr : &entries_[it->second];
}

const TensorEntry& SafeTensors::entry(std::string_view name) const {
  const TensorEntry* e = find(name);
  TFP_CHECK(e != nullptr, "safetensors '", source_, "': no tensor named '", name, "'");
  return *e;
}

TensorView SafeTensors::f32(std::string_view name) const { return f32(entry(name)); }

TensorView SafeTensors::f32(const TensorEntry& e) const {
  TFP_CHECK(dtype_is_float_supported(e.dtype), "safetensors '", source_, "': tensor '", e.name,
            "' has dtype ", dtype_name(e.dtype), ", which tfp cannot use as floats (supported: F32, F16, BF16)");
  const size_t i = static_cast<size_t>(&e - entries_.data());
  TFP_CHECK(i < entries_.size(), "safetensors '", source_, "': entry '", e.name, "' belongs to another file");
  const uint8_t* src = data_of(e);
  std::vector<float>& copy = converted_[i];
  const bool in_place = e.dtype == DType::F32 && reinterpret_cast<uintptr_t>(src) % alignof(float) == 0;
  if (in_place) return TensorView(reinterpret_cast<const float*>(src), e.shape);
  if (copy.empty() && e.nbytes > 0) {  // converted (or aligned) once, on first use
    copy.resize(e.nbytes / dtype_size(e.dtype));
    to_f32(src, e.dtype, copy.size(), copy.data());
  }
  return TensorView(copy.data(), e.shape);
}

bool SafeTensors::f32_in_place(std::string_view name) const {
  const TensorEntry& e = entry(name);
  return e.dtype == DType::F32 && reinterpret_cast<uintptr_t>(data_of(e)) % alignof(float) == 0;
}

std::span<const uint8_t> SafeTensors::bytes(std::string_view name) const { return bytes(entry(name)); }

std::span<const uint8_t> SafeTensors::bytes(const TensorEntry& e) const {
  return {data_of(e), e.nbytes};
}

SafeTensors SafeTensors::merge(std::vector<SafeTensors> shards, std::string source) {
  TFP_CHECK(!shards.empty(), "safetensors '", source, "': a sharded checkpoint needs at least one file");
  SafeTensors all = std::move(shards[0]);
  std::vector<std::string> files{all.source_};
  for (size_t k = 1; k < shards.size(); ++k) {
    SafeTensors& s = shards[k];
    all.shard_buffers_.push_back(std::move(s.buffer_));
    for (size_t i = 0; i < s.entries_.size(); ++i) {
      TensorEntry e = std::move(s.entries_[i]);
      e.shard = static_cast<uint32_t>(k);
      const auto [it, fresh] = all.index_.emplace(e.name, all.entries_.size());
      TFP_CHECK(fresh, "safetensors '", source, "': tensor '", e.name, "' is in both '",
                files[all.entries_[it->second].shard], "' and '", s.source_, "'");
      all.entries_.push_back(std::move(e));
      all.converted_.push_back(std::move(s.converted_[i]));
    }
    for (auto& [key, value] : s.metadata_) all.metadata_.emplace(key, value);
    files.push_back(s.source_);
  }
  all.source_ = std::move(source);
  return all;
}

// ---- writer ------------------------------------------------------------------------

void SafeTensorsWriter::add_f32(const std::string& name, const Shape& shape, const float* data,
                                DType stored) {
  TFP_CHECK(dtype_is_float_supported(stored), "safetensors writer: tensor '", name,
            "': cannot store floats as ", dtype_name(stored));
  const size_t count = static_cast<size_t>(numel_of(shape));
  std::vector<uint8_t> bytes(count * dtype_size(stored));
  if (stored == DType::F32) {
    if (count) std::memcpy(bytes.data(), data, bytes.size());
  } else {
    for (size_t i = 0; i < count; ++i) {
      const uint16_t h = stored == DType::F16 ? kernels::f32_to_f16_one(data[i])
                                              : kernels::f32_to_bf16_one(data[i]);
      bytes[2 * i] = static_cast<uint8_t>(h & 0xFF);
      bytes[2 * i + 1] = static_cast<uint8_t>(h >> 8);
    }
  }
  add_raw(name, stored, shape, bytes.data(), bytes.size());
}

void SafeTensorsWriter::add_raw(const std::string& name, DType dtype, const Shape& shape,
                                const void* data, size_t nbytes) {
  TFP_CHECK(name != "__metadata__", "safetensors writer: '__metadata__' is reserved");
  // The header is JSON, which holds UTF-8 only (the reader refuses other names too).
  size_t bad = 0;
  TFP_CHECK(valid_utf8(name, &bad), "safetensors writer: tensor name is not valid UTF-8 (byte ", bad, ")");
  for (const Item& it : items_)
    TFP_CHECK(it.name != name, "safetensors writer: tensor '", name, "' added twice");
  const size_t need = static_cast<size_t>(numel_of(shape)) * dtype_size(dtype);
  TFP_CHECK(need == nbytes, "safetensors writer: tensor '", name, "' of shape ", shape_str(shape),
            " and dtype ", dtype_name(dtype), " needs ", need, " bytes, got ", nbytes);
  Item item{name, dtype, shape, {}};
  const auto* p = static_cast<const uint8_t*>(data);
  item.data.assign(p, p + nbytes);
  items_.push_back(std::move(item));
}

void SafeTensorsWriter::set_metadata(const std::string& key, const std::string& value) {
  TFP_CHECK(valid_utf8(key) && valid_utf8(value), "safetensors writer: metadata '", key, "' is not valid UTF-8");
  metadata_[key] = value;
}

std::vector<uint8_t> SafeTensorsWriter::finish() const {
  // Largest element first: with an 8-aligned data start, every tensor is aligned.
  std::vector<const Item*> order;
  for (const Item& it : items_) order.push_back(&it);
  std::stable_sort(order.begin(), order.end(), [](const Item* a, const Item* b) {
    const size_t sa = dtype_size(a->dtype), sb = dtype_size(b->dtype);
    return sa != sb ? sa > sb : a->name < b->name;
  });
  nlohmann::json header = nlohmann::json::object();
  if (!metadata_.empty()) header["__metadata__"] = metadata_;
  uint64_t pos = 0;
  for (const Item* it : order) {
    header[it->name] = {{"dtype", dtype_name(it->dtype)},
                        {"shape", it->shape},
                        {"data_offsets", {pos, pos + it->data.size()}}};
    pos += it->data.size();
  }
  std::string text = header.dump();
  while ((8 + text.size()) % 8 != 0) text.push_back(' ');  // pad: data starts 8-aligned

  std::vector<uint8_t> out;
  out.reserve(8 + text.size() + pos);
  uint64_t n = text.size();
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<uint8_t>((n >> (8 * i)) & 0xFF));
  out.insert(out.end(), text.begin(), text.end());
  for (const Item* it : order) out.insert(out.end(), it->data.begin(), it->data.end());
  return out;
}

void SafeTensorsWriter::write(const std::string& path) const { write_file(path, finish()); }

}  // namespace tfp::io
