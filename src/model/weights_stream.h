// model.safetensors as it arrives, narrowed on the way in (issue 14's memory target).
//
// Loading an F32 checkpoint at f16 or int8 used to hold the whole F32 file in the heap and
// then its converted copy (GPT-2-small at f16: a 724 MiB peak for 247 MiB of weights). A
// WeightsStream takes the file's bytes in order, in pieces of any size, and writes each
// matrix the precision narrows (model/precision.h: Linear weights and token tables) in its
// new form into a file laid out for the result:
//   f16   an F32 matrix → F16 (round to nearest even); a BF16/F16 one stays as stored
//   int8  an F32, F16 or BF16 matrix → I8 + "<name>_scale" F32 [out], quantised per
//         output channel as the in-heap path quantises it (nn/quantize_int8.h): a row at
//         a time where rows are channels, the whole matrix where columns are (GPT-2's
//         Conv1D (in, out)), written in the file's own layout
// Every other tensor is copied as it is, under its own name: the result is an ordinary
// checkpoint of the same family, which the binder checks like any other, and the model
// holds the same numbers as after an in-heap load. The heap holds the result, one piece
// and at most one matrix in f32.
//
// The bytes pass through unchanged (the file is held whole, as before) when narrowing does
// not apply or cannot be planned from the header and config: precision stored or f32, no
// config, a header or config that does not parse (the load then reports it as usual),
// nothing to narrow, a tensor named like a scale the stream would add. (A GPT-2
// lm_head.weight is kept as it is: the load checks its tie to wte in the precision wte is
// held in.)
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/precision.h"

namespace tfp::model {

class WeightsStream {
 public:
  // total_bytes: the file's size. config_json: "" when not known (bytes then pass through).
  WeightsStream(size_t total_bytes, std::string source, std::string config_json, Precision precision);
  ~WeightsStream();
  WeightsStream(const WeightsStream&) = delete;
  WeightsStream& operator=(const WeightsStream&) = delete;

  // Where the next n bytes of the file go (n <= left()): write them there, then commit(n).
  uint8_t* next(size_t n);
  // The n bytes at next(n) are written. Throws tfp::Error naming the tensor when a matrix
  // being quantised holds a NaN or infinity; the stream is then unusable.
  void commit(size_t n);
  size_t left() const { return total_ - pos_; }
  bool narrowing() const;  // known once the header has arrived
  // The file to load (narrowed, or the bytes as given). Throws if bytes are missing.
  std::vector<uint8_t> finish();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  size_t total_, pos_ = 0;
};

}  // namespace tfp::model
