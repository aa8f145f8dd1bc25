// Load-time precision (see precision.h): a bound model's weights rewritten by role in the
// target precision, int8 binding for the checkpoint binder, and what the weights hold.
#include "model/precision.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "kernels/kernels.h"
#include "model/names_table.h"
#include "nn/quantize_int8.h"

namespace tfp::model {

const char* precision_name(Precision p) {
  switch (p) {
    case Precision::stored: return "stored";
    case Precision::f32: return "f32";
    case Precision::f16: return "f16";
    case Precision::int8: return "int8";
  }
  return "?";
}

bool precision_from_name(std::string_view name, Precision* out) {
  for (const Precision p : {Precision::stored, Precision::f32, Precision::f16, Precision::int8})
    if (name == precision_name(p) || (name.empty() && p == Precision::stored)) {
      *out = p;
      return true;
    }
  return false;
}

namespace {

// A matrix slot: a Linear weight or a token table (the slots that may hold 16-bit or int8).
bool is_matrix(const WeightSlot& s) { return s.half != nullptr; }
bool is_in_out(const WeightSlot& s) {
  return s.linear && s.view == &s.linear->weight && s.linear->layout == nn::WeightLayout::InOut;
}

// One tensor of the file being written: its bytes come from `fill` at its offset.
struct Item {
  std::string name;
  io::DType dtype;
  Shape shape;
  size_t nbytes;
  std::function<void(uint8_t*)> fill;
};

// Items laid out largest element first after a header padded to 8 bytes, so that every
// tensor is aligned to its element size (F32 views in place, 16-bit kept as stored).
std::vector<uint8_t> write_items(std::vector<Item>& items, Precision p) {
  std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    return io::dtype_size(a.dtype) > io::dtype_size(b.dtype);
  });
  nlohmann::json h = nlohmann::json::object();
  size_t off = 0;
  for (const Item& it : items) {
    h[it.name] = {{"dtype", io::dtype_name(it.dtype)}, {"shape", it.shape}, {"data_offsets", {off, off + it.nbytes}}};
    off += it.nbytes;
  }
  h["__metadata__"] = {{"format", "tfp"}, {"precision", precision_name(p)}};
  std::string header = h.dump();
  while ((8 + header.size()) % 8) header.push_back(' ');
  std::vector<uint8_t> out(8 + header.size() + off);
  const uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) out[static_cast<size_t>(i)] = static_cast<uint8_t>(n >> (8 * i));
  std::memcpy(out.data() + 8, header.data(), header.size());
  uint8_t* data = out.data() + 8 + header.size();
  std::vector<size_t> at(items.size());
  for (size_t i = 0, o = 0; i < items.size(); o += items[i].nbytes, ++i) at[i] = o;
  // Filled smallest element first: an int8 matrix (laid out after every F32 item) is
  // quantised into its place before its F32 scales are copied, so no quantised matrix waits
  // in a buffer of its own.
  for (size_t i = items.size(); i-- > 0;) {
    items[i].fill(data + at[i]);
    items[i].fill = nullptr;  // drop what the closure holds as soon as it is written
  }
  return out;
}

// The slot's tensor as f32 into dst, a matrix (out, in): widened if 16-bit or int8,
// transposed if InOut. Only an InOut one goes through a temporary.
void out_in_into(const WeightSlot& s, float* dst) {
  if (!is_in_out(s)) return s.f32_into(dst);
  Tensor tmp;
  const TensorView v = s.f32(tmp);
  kernels::transpose(v.data, v.shape[0], v.shape[1], dst);
}

Tensor matrix_out_in(const WeightSlot& s) {
  Tensor t(s.expected);
  out_in_into(s, t.ptr());
  return t;
}

}  // namespace

std::vector<uint8_t> weights_at_precision(const ModelConfig& cfg, const ModelWeights& w, Precision p) {
  TFP_CHECK(p != Precision::stored, "weights_at_precision: pick f32, f16 or int8");
  std::vector<Item> items;
  // The fills below run after this loop: they refer to these slots, which outlive them.
  const std::vector<WeightSlot> slots = weight_slots(cfg, const_cast<ModelWeights&>(w));
  for (const WeightSlot& s : slots) {
    if (s.empty()) continue;
    const Shape shape = s.expected;  // (out, in) for Linear weights, as our files store them
    const int64_t numel = numel_of(shape);
    const bool matrix = is_matrix(s) && shape.size() == 2;
    if (matrix && p == Precision::int8) {
      const int64_t O = shape[0], I = shape[1];
      // The matrix is quantised straight into its place in the file; its scales wait for
      // their own item, which write_items fills after it (smaller elements first).
      auto scale = std::make_shared<std::vector<float>>();
      items.push_back({s.role + kInt8ScaleSuffix, io::DType::F32, {O}, static_cast<size_t>(O) * 4,
                       [scale, O](uint8_t* d) {
                         TFP_CHECK(static_cast<int64_t>(scale->size()) == O,
                                   "weights_at_precision: an int8 matrix's scales were asked for before the matrix");
                         std::memcpy(d, scale->data(), scale->size() * 4);
                       }});
      items.push_back({s.role, io::DType::I8, shape, static_cast<size_t>(numel), [scale, &s, O, I](uint8_t* d) {
                         int8_t* q = reinterpret_cast<int8_t*>(d);
                         scale->resize(static_cast<size_t>(O));
                         if (s.int8 && !s.int8->empty()) {  // already int8 (O, I): copied
                           std::memcpy(q, s.int8->q, static_cast<size_t>(O * I));
                           std::copy_n(s.int8->scale, O, scale->data());
                         } else if (is_in_out(s)) {  // (I, O): transposed once, then read along rows
                           const Tensor t = matrix_out_in(s);
                           nn::quantize_int8_channels_into(t.ptr(), O, I, I, 1, q, scale->data());
                         } else if (s.view->empty() && s.half && !s.half->empty()) {
                           // 16-bit (out, in): widened a block of rows at a time, not as one f32
                           // copy of the matrix (GPT-2's token table: 154 MB of it at the peak).
                           const int64_t block = std::max<int64_t>(1, (int64_t{1} << 18) / std::max<int64_t>(1, I));
                           nn::quantize_int8_channels16_into(s.half->data, s.half->bf16, O, I, block, q, scale->data());
                         } else {
                           Tensor tmp;
                           const TensorView v = s.f32(tmp);
                           nn::quantize_int8_channels_into(v.data, O, I, I, 1, q, scale->data());
                         }
                       }});
    } else if (matrix && p == Precision::f16) {
      const bool keep_bf16 = s.half && !s.half->empty() && s.half->bf16;  // a BF16 file stays BF16
      items.push_back({s.role, keep_bf16 ? io::DType::BF16 : io::DType::F16, shape, static_cast<size_t>(numel) * 2,
                       [&s, keep_bf16, numel](uint8_t* d) {
                         uint16_t* o = reinterpret_cast<uint16_t*>(d);
                         if (s.half && !s.half->empty() && !is_in_out(s)) {  // 16-bit (out, in): as stored
                           std::memcpy(o, s.half->data, static_cast<size_t>(numel) * 2);
                           return;
                         }
                         // An f32 (out, in) matrix is read where it is: a copy of the token table
                         // alone would add its f32 size to the load's peak (154 MB for GPT-2's).
                         Tensor t;
                         const float* src = s.view->data;
                         if (s.view->empty() || is_in_out(s)) {
                           t = matrix_out_in(s);
                           src = t.ptr();
                         }
                         for (int64_t i = 0; i < numel; ++i)
                           o[i] = keep_bf16 ? kernels::f32_to_bf16_one(src[i]) : kernels::f32_to_f16_one(src[i]);
                       }});
    } else {
      // Each matrix is written straight into its place: an f32 temporary of it would add the
      // largest one's f32 size to the load's peak (GPT-2's token table from F16: 147 MiB).
      items.push_back({s.role, io::DType::F32, shape, static_cast<size_t>(numel) * 4,
                       [&s](uint8_t* d) { out_in_into(s, reinterpret_cast<float*>(d)); }});
    }
  }
  return write_items(items, p);
}

int64_t weights_bytes_held(const ModelConfig& cfg, const ModelWeights& w) {
  int64_t bytes = 0;
  for (const WeightSlot& s : weight_slots(cfg, const_cast<ModelWeights&>(w))) {
    if (s.empty()) continue;
    const int64_t n = s.view->numel();
    if (!s.view->empty()) bytes += 4 * n;
    else if (s.half && !s.half->empty()) bytes += 2 * n;
    else if (s.int8 && !s.int8->empty()) bytes += n + 4 * (s.view->shape.empty() ? 0 : s.view->shape[0]);
  }
  return bytes;
}

std::string weights_precision_held(const ModelConfig& cfg, const ModelWeights& w) {
  std::string kind;
  for (const WeightSlot& s : weight_slots(cfg, const_cast<ModelWeights&>(w))) {
    if (s.empty() || !is_matrix(s)) continue;
    const std::string k = !s.view->empty() ? "f32" : s.half && !s.half->empty() ? (s.half->bf16 ? "bf16" : "f16") : "int8";
    if (kind.empty()) kind = k;
    else if (kind != k) return "mixed";
  }
  return kind.empty() ? "f32" : kind;
}

std::string bind_int8(const io::SafeTensors& st, const io::TensorEntry& e, WeightSlot& slot, int64_t qkv_heads,
                      int64_t qkv_head_dim, std::unordered_set<const io::TensorEntry*>& used) {
  const Shape want = slot.expected_now();
  if (e.shape != want) return "has shape " + shape_str(e.shape) + ", expected " + shape_str(want);
  const int64_t O = slot.expected[0], I = slot.expected.size() == 2 ? slot.expected[1] : 0;
  const std::string scale_name = e.name + kInt8ScaleSuffix;
  const io::TensorEntry* se = st.find(scale_name);
  if (!se) return "is I8 but has no companion '" + scale_name + "' tensor (F32 [" + std::to_string(O) + "], one scale per output)";
  used.insert(se);
  if (se->dtype != io::DType::F32 || se->shape != Shape{O})
    return "has scales '" + scale_name + "' of dtype " + io::dtype_name(se->dtype) + " shape " + shape_str(se->shape) +
           ", expected F32 [" + std::to_string(O) + "]";
  const TensorView scale = st.f32(*se);
  for (int64_t o = 0; o < O; ++o)
    if (!std::isfinite(scale.data[o]) || scale.data[o] < 0)
      return "has scale " + std::to_string(scale.data[o]) + " at [" + std::to_string(o) + "] (scales must be finite and >= 0)";
  const int8_t* q = reinterpret_cast<const int8_t*>(st.bytes(e).data());
  if (qkv_heads > 0) {  // a per-head fused q|k|v: its rows and their scales in q | k | v order, in place
    if (is_in_out(slot) || O != 3 * qkv_heads * qkv_head_dim)
      return "is a per-head fused q|k|v of shape " + shape_str(e.shape) + " that int8 cannot reorder";
    per_head_qkv_rows_in_place(const_cast<int8_t*>(q), O, qkv_heads, qkv_head_dim, static_cast<size_t>(I));
    per_head_qkv_rows_in_place(const_cast<float*>(scale.data), O, qkv_heads, qkv_head_dim, sizeof(float));
  }
  if (is_in_out(slot)) {
    // (in, out) → (out, in) once, in place: a SafeTensors owns its bytes (parsed from a
    // moved-in vector), so the weights stay held once (a copy kept GPT-2-small's 81 MiB of
    // Conv1D int8 twice); one matrix of scratch, as model/weight_layout.h does for f32.
    int8_t* held = const_cast<int8_t*>(q);
    const std::vector<int8_t> scratch(q, q + O * I);
    for (int64_t i = 0; i < I; ++i)
      for (int64_t o = 0; o < O; ++o) held[o * I + i] = scratch[static_cast<size_t>(i * O + o)];
    slot.linear->layout = nn::WeightLayout::OutIn;
  }
  *slot.view = TensorView(nullptr, slot.expected);
  *slot.int8 = nn::Int8Weights{q, scale.data};
  return "";
}

}  // namespace tfp::model
