// The streamed, narrowing load of model.safetensors (see weights_stream.h).
#include "model/weights_stream.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "io/safetensors.h"
#include "kernels/kernels.h"
#include "model/config_bounds.h"
#include "model/config_json.h"
#include "model/names_table.h"
#include "nn/quantize_int8.h"

namespace tfp::model {

namespace {

enum class Kind { keep, f16, int8_rows, int8_columns };

// One tensor of the arriving file and where it goes in the result.
struct Planned {
  const io::TensorEntry* in;
  Kind kind = Kind::keep;
  size_t out = 0;    // offset of its bytes in the result
  size_t scale = 0;  // int8: offset of its scales
  int64_t O = 0, I = 0;  // int8: output channels, inputs per channel
};

// One tensor of the result: its header entry.
struct OutTensor {
  std::string name;
  io::DType dtype;
  Shape shape;
  size_t bytes;
  size_t order;  // input position (scales right after their matrix's)
  size_t* offset;
};

}  // namespace

struct WeightsStream::Impl {
  std::string source, config_json;
  Precision precision;
  enum class Phase { header, pass, narrow } phase = Phase::header;
  std::vector<uint8_t> head;     // the header's bytes, as they arrive
  size_t header_end = 0;         // 8 + its length, once known
  std::vector<uint8_t> file;     // pass: the file as given
  std::vector<uint8_t> out;      // narrow: the result
  std::vector<uint8_t> piece;    // where the next piece is written unless it goes to `file`
  io::SafeTensors st;            // narrow: the header's entries
  std::vector<Planned> plan;     // narrow: one per entry, in file order
  size_t current = 0;            // narrow: the entry the next byte belongs to
  uint8_t carry[4] = {};         // the bytes of an element split between two pieces
  size_t carried = 0;
  int64_t element = 0;           // elements of the current entry done so far
  std::vector<float> floats;     // the current piece's elements as f32
  std::vector<float> held;       // int8: a row, or (columns) the whole matrix
  bool failed = false;

  void plan_or_pass(size_t total);
  bool plan_narrowing(size_t total);
  void narrow(const uint8_t* p, size_t n, size_t pos);
  void elements(const Planned& t, const uint8_t* p, int64_t count);
};

WeightsStream::WeightsStream(size_t total_bytes, std::string source, std::string config_json, Precision precision)
    : impl_(std::make_unique<Impl>()), total_(total_bytes) {
  impl_->source = std::move(source);
  impl_->config_json = std::move(config_json);
  impl_->precision = precision;
}

WeightsStream::~WeightsStream() = default;

bool WeightsStream::narrowing() const { return impl_->phase == Impl::Phase::narrow; }

uint8_t* WeightsStream::next(size_t n) {
  Impl& s = *impl_;
  TFP_CHECK(!s.failed, s.source, ": the weights' stream already failed; stage them again");
  TFP_CHECK(n <= left(), s.source, ": ", n, " more bytes given, but only ", left(), " of the announced ",
            total_, " are left");
  if (s.phase == Impl::Phase::pass) return s.file.data() + pos_;  // straight into place
  if (s.piece.size() < n) s.piece.resize(n);
  return s.piece.data();
}

void WeightsStream::commit(size_t n) {
  Impl& s = *impl_;
  TFP_CHECK(!s.failed && n <= left(), s.source, ": commit of ", n, " bytes without next() for them");
  if (s.phase == Impl::Phase::pass) {
    pos_ += n;
    return;
  }
  const uint8_t* p = s.piece.data();
  try {
    while (n > 0 && s.phase == Impl::Phase::header) {
      const size_t want = s.head.size() < 8 ? 8 - s.head.size() : s.header_end - s.head.size();
      const size_t take = std::min(n, want);
      s.head.insert(s.head.end(), p, p + take);
      p += take, n -= take, pos_ += take;
      if (s.head.size() == 8) {
        s.header_end = io::SafeTensors::bytes_before_data(s.head);
        if (s.header_end == 0 || s.header_end > total_) s.header_end = 8;  // nonsense: pass it through
      }
      if (s.head.size() >= 8 && s.head.size() == s.header_end) s.plan_or_pass(total_);
    }
    if (n == 0) return;
    if (s.phase == Impl::Phase::pass) std::memcpy(s.file.data() + pos_, p, n);
    else s.narrow(p, n, pos_);
    pos_ += n;
  } catch (...) {
    s.failed = true;
    throw;
  }
}

std::vector<uint8_t> WeightsStream::finish() {
  Impl& s = *impl_;
  TFP_CHECK(!s.failed, s.source, ": the weights' stream failed; stage them again");
  TFP_CHECK(left() == 0, s.source, ": ", pos_, " of the announced ", total_,
            " bytes arrived (truncated?)");
  switch (s.phase) {
    case Impl::Phase::header: return std::move(s.head);  // too short for a header: the parser says so
    case Impl::Phase::pass: return std::move(s.file);
    case Impl::Phase::narrow: break;
  }
  return std::move(s.out);
}

void WeightsStream::Impl::plan_or_pass(size_t total) {
  if (plan_narrowing(total)) {
    phase = Phase::narrow;
    head = {};
    return;
  }
  phase = Phase::pass;
  file.resize(total);
  std::copy(head.begin(), head.end(), file.begin());
  head = {};
}

// The plan: which entries are narrowed, and the result's layout. False = pass through.
bool WeightsStream::Impl::plan_narrowing(size_t total) {
  if (precision != Precision::f16 && precision != Precision::int8) return false;
  if (config_json.empty()) return false;
  ParsedConfig parsed;
  try {
    st = io::SafeTensors::parse_header(head, total, source);
    parsed = parse_config_json(config_json);
    check_config_fits_file(parsed.config, st, "config.json");
  } catch (const Error&) {
    return false;  // the load reports it, with its own words
  }
  ModelConfig cfg = parsed.config;
  if (parsed.family == CheckpointFamily::bert && bert_has_mlm_head(st)) cfg.encoder_head = EncoderHead::masked_lm;

  ModelWeights w = ModelWeights::for_config(cfg);
  std::vector<WeightSlot> slots = weight_slots(cfg, w);
  const std::vector<SlotSource> sources = slot_sources(parsed.family, st, slots);
  std::map<const io::TensorEntry*, Kind> kind_of;
  for (size_t i = 0; i < slots.size(); ++i) {
    WeightSlot& slot = slots[i];
    const SlotSource& src = sources[i];
    const io::TensorEntry* e = src.entry;
    // (A per-head fused q|k|v is narrowed in the file's row order: the binder reorders its rows.)
    if (!e || !slot.half || slot.expected.size() != 2) continue;
    const bool linear_weight = slot.linear && slot.view == &slot.linear->weight;
    if (linear_weight) slot.linear->layout = src.layout;
    if (e->shape != slot.expected_now()) continue;  // the binder names the mismatch
    Kind k = Kind::keep;
    if (precision == Precision::f16 && e->dtype == io::DType::F32) k = Kind::f16;
    if (precision == Precision::int8 && io::dtype_is_float_supported(e->dtype))
      k = linear_weight && src.layout == nn::WeightLayout::InOut ? Kind::int8_columns : Kind::int8_rows;
    if (k == Kind::keep) continue;
    const auto [it, fresh] = kind_of.emplace(e, k);
    if (!fresh && it->second != k) return false;  // one tensor, two roles that disagree
  }
  if (kind_of.empty()) return false;

  // The result: every entry under its name (narrowed or not), and each int8 matrix's scales.
  plan.clear();
  std::vector<OutTensor> outs;
  std::set<std::string> names;
  for (const io::TensorEntry& e : st.entries()) names.insert(e.name);
  plan.reserve(st.entries().size());
  for (const io::TensorEntry& e : st.entries()) {
    Planned t{&e};
    if (const auto it = kind_of.find(&e); it != kind_of.end()) t.kind = it->second;
    plan.push_back(t);
  }
  for (size_t i = 0; i < plan.size(); ++i) {
    Planned& t = plan[i];
    const io::TensorEntry& e = *t.in;
    const int64_t n = numel_of(e.shape);
    switch (t.kind) {
      case Kind::keep: outs.push_back({e.name, e.dtype, e.shape, e.nbytes, 2 * i, &t.out}); break;
      case Kind::f16: outs.push_back({e.name, io::DType::F16, e.shape, static_cast<size_t>(n) * 2, 2 * i, &t.out}); break;
      case Kind::int8_rows:
      case Kind::int8_columns: {
        const bool rows = t.kind == Kind::int8_rows;
        t.O = rows ? e.shape[0] : e.shape[1];
        t.I = rows ? e.shape[1] : e.shape[0];
        const std::string scale_name = e.name + kInt8ScaleSuffix;
        if (names.count(scale_name)) return false;
        outs.push_back({e.name, io::DType::I8, e.shape, static_cast<size_t>(n), 2 * i, &t.out});
        outs.push_back({scale_name, io::DType::F32, {t.O}, static_cast<size_t>(t.O) * 4, 2 * i + 1, &t.scale});
        break;
      }
    }
  }
  // Largest elements first, so every tensor starts aligned to its own element size.
  std::stable_sort(outs.begin(), outs.end(), [](const OutTensor& a, const OutTensor& b) {
    const size_t sa = io::dtype_size(a.dtype), sb = io::dtype_size(b.dtype);
    return sa != sb ? sa > sb : a.order < b.order;
  });
  nlohmann::json header = nlohmann::json::object();
  size_t at = 0;
  for (const OutTensor& o : outs) {
    header[o.name] = {{"dtype", io::dtype_name(o.dtype)}, {"shape", o.shape}, {"data_offsets", {at, at + o.bytes}}};
    *o.offset = at;
    at += o.bytes;
  }
  if (!st.metadata().empty()) header["__metadata__"] = st.metadata();
  std::string text = header.dump();
  text.resize((text.size() + 7) / 8 * 8, ' ');
  out.assign(8 + text.size() + at, 0);
  const uint64_t n = text.size();
  for (int i = 0; i < 8; ++i) out[static_cast<size_t>(i)] = static_cast<uint8_t>(n >> (8 * i));
  std::memcpy(out.data() + 8, text.data(), text.size());
  const size_t data = 8 + text.size();
  for (Planned& t : plan) t.out += data, t.scale += data;
  current = 0;
  return true;
}

// Bytes [pos, pos + n) of the file: each entry's part copied or narrowed into its place.
void WeightsStream::Impl::narrow(const uint8_t* p, size_t n, size_t pos) {
  while (n > 0) {
    while (current < plan.size() && pos >= plan[current].in->offset + plan[current].in->nbytes) {
      ++current;
      carried = 0;
      element = 0;
    }
    TFP_CHECK(current < plan.size(), source, ": bytes past the last tensor");
    const Planned& t = plan[current];
    const size_t within = pos - t.in->offset;
    const size_t take = std::min(n, t.in->nbytes - within);
    if (t.kind == Kind::keep) {
      std::memcpy(out.data() + t.out + within, p, take);
    } else {
      const size_t size = io::dtype_size(t.in->dtype);
      const uint8_t* q = p;
      size_t left = take;
      if (carried > 0) {  // complete the element the last piece began
        const size_t more = std::min(size - carried, left);
        std::memcpy(carry + carried, q, more);
        carried += more, q += more, left -= more;
        if (carried == size) {
          elements(t, carry, 1);
          carried = 0;
        }
      }
      const size_t whole = left / size;
      if (whole > 0) elements(t, q, static_cast<int64_t>(whole));
      q += whole * size, left -= whole * size;
      std::memcpy(carry + carried, q, left);
      carried += left;
    }
    p += take, n -= take, pos += take;
  }
}

// `count` whole elements of matrix t, following those already done.
void WeightsStream::Impl::elements(const Planned& t, const uint8_t* p, int64_t count) {
  const io::TensorEntry& e = *t.in;
  if (t.kind != Kind::f16 && held.empty()) {
    // Room for a row, or the whole (I, O) matrix, at once: growing by doubling would hold
    // twice the matrix while it copies.
    const int64_t need = t.kind == Kind::int8_rows ? t.I : t.O * t.I;
    if (held.capacity() < static_cast<size_t>(need)) held = std::vector<float>();
    held.reserve(static_cast<size_t>(need));
  }
  constexpr int64_t kBlock = 16384;
  while (count > 0) {
    const int64_t k = std::min(count, kBlock);
    floats.resize(static_cast<size_t>(k));
    io::to_f32(p, e.dtype, static_cast<size_t>(k), floats.data());
    if (t.kind != Kind::f16)  // named as the binder names a bad weight (an f16 one it checks itself)
      for (int64_t i = 0; i < k; ++i)
        if (const float x = floats[static_cast<size_t>(i)]; !std::isfinite(x))
          TFP_FAIL("safetensors '", source, "': tensor '", e.name, "' holds ", std::isnan(x) ? "NaN" : "an infinity",
                   " at flat index ", element + i, "; it cannot be quantised to int8");
    if (t.kind == Kind::f16) {
      uint16_t* dst = reinterpret_cast<uint16_t*>(out.data() + t.out) + element;
      for (int64_t i = 0; i < k; ++i) dst[i] = kernels::f32_to_f16_one(floats[static_cast<size_t>(i)]);
    } else if (t.kind == Kind::int8_rows) {  // a row is a channel: quantised when whole
      int8_t* q = reinterpret_cast<int8_t*>(out.data() + t.out);
      float* scale = reinterpret_cast<float*>(out.data() + t.scale);
      for (int64_t i = 0; i < k;) {
        const int64_t take = std::min(k - i, t.I - static_cast<int64_t>(held.size()));
        held.insert(held.end(), floats.begin() + i, floats.begin() + i + take);
        i += take;
        if (static_cast<int64_t>(held.size()) < t.I) continue;
        const int64_t row = (element + i - 1) / t.I;
        nn::quantize_int8_channels_into(held.data(), 1, t.I, t.I, 1, q + row * t.I, scale + row);
        held.clear();
      }
    } else {  // (I, O): a column is a channel, so the matrix is quantised once it is whole
      held.insert(held.end(), floats.begin(), floats.end());
      if (static_cast<int64_t>(held.size()) == t.O * t.I) {
        std::vector<int8_t> by_rows(held.size());  // (O, I), as the quantiser writes it
        float* scale = reinterpret_cast<float*>(out.data() + t.scale);
        nn::quantize_int8_channels_into(held.data(), t.O, t.I, 1, t.O, by_rows.data(), scale);
        int8_t* q = reinterpret_cast<int8_t*>(out.data() + t.out);  // the file's (I, O)
        for (int64_t o = 0; o < t.O; ++o)
          for (int64_t i = 0; i < t.I; ++i) q[i * t.O + o] = by_rows[static_cast<size_t>(o * t.I + i)];
        held = {};
      }
    }
    element += k;
    p += static_cast<size_t>(k) * io::dtype_size(e.dtype);
    count -= k;
  }
}

}  // namespace tfp::model
