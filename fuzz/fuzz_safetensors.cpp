// libFuzzer target: the safetensors reader (io/safetensors.h) on arbitrary bytes.
// Input: one file, or two files joined by kFileSeparator (the second makes a sharded
// set through SafeTensors::merge). Every tensor that parses is read in full (f32 view or
// raw bytes), so a header that lies about offsets, shapes or dtypes shows up under ASan.
#include <cmath>

#include "core/error.h"
#include "fuzz_util.h"
#include "io/safetensors.h"

namespace {

void read_all(const tfp::io::SafeTensors& st) {
  volatile float sink = 0;
  for (const tfp::io::TensorEntry& e : st.entries()) {
    TFP_FUZZ_ASSERT(st.find(e.name) == &st.entry(e.name));
    const std::span<const uint8_t> raw = st.bytes(e);
    TFP_FUZZ_ASSERT(raw.size() == e.nbytes);
    if (!raw.empty()) sink = sink + raw.front() + raw.back();
    if (!tfp::io::dtype_is_float_supported(e.dtype)) continue;
    const tfp::TensorView v = st.f32(e);
    TFP_FUZZ_ASSERT(v.shape == e.shape);
    TFP_FUZZ_ASSERT(static_cast<size_t>(v.numel()) * tfp::io::dtype_size(e.dtype) == e.nbytes);
    for (int64_t i = 0; i < v.numel(); ++i) sink = sink + v.data[i];
  }
  for (const auto& [k, value] : st.metadata()) sink = sink + static_cast<float>(k.size() + value.size());
  (void)sink;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<std::string_view> files = tfp::fuzz::split_files(data, size, 2);
  try {
    if (files.size() == 1) {
      const tfp::io::SafeTensors st = tfp::io::SafeTensors::parse(tfp::fuzz::bytes_of(files[0]), "fuzz.safetensors");
      read_all(st);
    } else {
      std::vector<tfp::io::SafeTensors> shards;
      shards.push_back(tfp::io::SafeTensors::parse(tfp::fuzz::bytes_of(files[0]), "a.safetensors"));
      shards.push_back(tfp::io::SafeTensors::parse(tfp::fuzz::bytes_of(files[1]), "b.safetensors"));
      const tfp::io::SafeTensors st = tfp::io::SafeTensors::merge(std::move(shards), "merged");
      read_all(st);
    }
  } catch (const tfp::Error& e) {
    tfp::fuzz::refused(e);
  }
  // The UTF-8 validator the header's names go through, on the raw bytes too.
  size_t bad = 0;
  const std::string_view all(reinterpret_cast<const char*>(data), size);
  if (!tfp::io::valid_utf8(all, &bad)) TFP_FUZZ_ASSERT(bad < size);
  return 0;
}
