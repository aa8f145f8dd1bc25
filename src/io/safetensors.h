// safetensors (https://github.com/huggingface/safetensors), read and written.
//
// The format: 8 bytes little-endian N, then N bytes of JSON header, then the data.
// The header maps each tensor name to {"dtype", "shape", "data_offsets": [begin, end]}
// (offsets relative to the start of the data) plus an optional "__metadata__" object of
// string → string. Tensors are row-major, little-endian, and tile the data with no gaps.
//
// The reader owns ONE byte buffer (a file read whole, or bytes handed over by the browser)
// and validates every header field before anything points into it: the errors name the
// source and the tensor. F32 tensors are viewed where they lie (no copy) when 4-byte
// aligned, which writers ensure by padding the header; unaligned ones are copied once.
// F16/BF16 tensors are converted to f32 on the first f32() call for them (never for the
// 16-bit matrices a model keeps as stored), and the converted copies are owned by the same
// object. Other dtypes are validated (sizes, offsets) and their raw
// bytes are available, but asking for them as f32 names the dtype as unsupported.
//
// Views returned by f32()/bytes() live as long as the SafeTensors object; moving the
// object keeps them valid (the buffers move, their storage does not).
#pragma once
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/tensor.h"

namespace tfp::io {

// Every dtype the safetensors spec names. F32/F16/BF16 read as f32; I8/U8/BOOL as bytes.
enum class DType : uint8_t {
  F32, F16, BF16, I8, U8, BOOL,              // supported
  F64, I64, I32, I16, U16, U32, U64,         // validated, not supported as f32
  F8_E4M3, F8_E5M2,
};

const char* dtype_name(DType d);          // "F32"
size_t dtype_size(DType d);               // bytes per element
bool dtype_from_name(std::string_view name, DType* out);  // false for unknown names
bool dtype_is_float_supported(DType d);   // F32, F16, BF16

struct TensorEntry {
  std::string name;
  DType dtype = DType::F32;
  Shape shape;
  size_t offset = 0;  // absolute byte offset in its file's buffer (8 + N + begin)
  size_t nbytes = 0;
  uint32_t shard = 0;  // which file of a sharded checkpoint holds it (see merge)
};

class SafeTensors {
 public:
  SafeTensors() = default;
  SafeTensors(SafeTensors&&) = default;
  SafeTensors& operator=(SafeTensors&&) = default;
  SafeTensors(const SafeTensors&) = delete;
  SafeTensors& operator=(const SafeTensors&) = delete;

  // Takes the bytes and validates them; `source` (a path or a file name) is named in
  // every error: "safetensors 'model.safetensors': tensor 'wte.weight': ...".
  static SafeTensors parse(std::vector<uint8_t> bytes, std::string source = "<memory>");
  static SafeTensors load(const std::string& path);
  // Only the header: the entries of a file of file_size bytes whose first bytes are `head`
  // (at least bytes_before_data of them), validated as parse does, with no data to read:
  // f32() and bytes() throw. For planning a file that is still arriving.
  static SafeTensors parse_header(std::span<const uint8_t> head, uint64_t file_size, std::string source);
  // 8 + the header length the file's first 8 bytes announce: where its data begins. 0
  // when fewer than 8 bytes are given or the length is over the 100 MB limit.
  static size_t bytes_before_data(std::span<const uint8_t> first8);
  // The files of a sharded checkpoint (model-00001-of-00003.safetensors, ...) as one set
  // of tensors: each keeps its own buffer; a name in two shards is an error naming both.
  static SafeTensors merge(std::vector<SafeTensors> shards, std::string source);

  const std::string& source() const { return source_; }
  // Tensors in order of their data offsets.
  const std::vector<TensorEntry>& entries() const { return entries_; }
  size_t size() const { return entries_.size(); }
  const TensorEntry* find(std::string_view name) const;  // nullptr when absent
  const TensorEntry& entry(std::string_view name) const;  // throws naming the tensor
  bool contains(std::string_view name) const { return find(name) != nullptr; }

  // The tensor as f32: F32 in place (or an aligned copy), F16/BF16 converted copies.
  TensorView f32(std::string_view name) const;
  TensorView f32(const TensorEntry& e) const;
  // True when f32(name) points into the file buffer itself (no copy was made).
  bool f32_in_place(std::string_view name) const;
  // Raw little-endian bytes of any dtype.
  std::span<const uint8_t> bytes(std::string_view name) const;
  std::span<const uint8_t> bytes(const TensorEntry& e) const;

  const std::map<std::string, std::string>& metadata() const { return metadata_; }
  const std::vector<uint8_t>& buffer() const { return buffer_; }  // the first file's bytes
  size_t header_size() const { return header_size_; }

 private:
  std::string source_;
  std::vector<uint8_t> buffer_;
  std::vector<std::vector<uint8_t>> shard_buffers_;  // files 1.. of a merged set
  size_t header_size_ = 0;
  bool header_only_ = false;  // parse_header: entries without data

  void read_header(std::span<const uint8_t> head, uint64_t file_size);
  const uint8_t* data_of(const TensorEntry& e) const;
  std::vector<TensorEntry> entries_;
  std::unordered_map<std::string, size_t> index_;  // name → entries_ position
  mutable std::vector<std::vector<float>> converted_;  // per entry; empty unless copied (lazily)
  std::map<std::string, std::string> metadata_;
};

// count elements of a float dtype (F32, F16, BF16) at src, as f32 into dst; src may sit at
// any byte offset (a piece of a file being read).
void to_f32(const uint8_t* src, DType dtype, size_t count, float* dst);

// Row r of a 2-D float tensor (F32, F16, BF16) as f32 into out (shape[1] floats), read
// from the file's bytes: no converted copy is made or kept.
void f32_row(const SafeTensors& st, const TensorEntry& e, int64_t r, float* out);

// Builds a safetensors file. Tensors are laid out largest element size first (then by
// name), the header is padded with spaces to a multiple of 8 bytes, so every tensor
// starts at an offset aligned to its own element size and F32 reads in place.
class SafeTensorsWriter {
 public:
  // f32 values stored as F32, F16 or BF16 (round to nearest even).
  void add_f32(const std::string& name, const Shape& shape, const float* data,
               DType stored = DType::F32);
  void add_f32(const std::string& name, const Tensor& t, DType stored = DType::F32) {
    add_f32(name, t.shape, t.ptr(), stored);
  }
  // Any dtype from raw bytes; nbytes must equal numel × dtype_size.
  void add_raw(const std::string& name, DType dtype, const Shape& shape, const void* data,
               size_t nbytes);
  void set_metadata(const std::string& key, const std::string& value);

  std::vector<uint8_t> finish() const;
  void write(const std::string& path) const;

 private:
  struct Item {
    std::string name;
    DType dtype;
    Shape shape;
    std::vector<uint8_t> data;
  };
  std::vector<Item> items_;
  std::map<std::string, std::string> metadata_;
};

// True if `s` is well-formed UTF-8 (no overlongs, surrogates or code points > U+10FFFF);
// *bad_offset receives the first bad byte's position otherwise.
bool valid_utf8(std::string_view s, size_t* bad_offset = nullptr);

}  // namespace tfp::io
