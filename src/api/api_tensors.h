// The tensor list behind the opaque tfp_tensors handle: named float32 results that
// the engine fills and the caller reads through tfp_tensors_* and then frees.
#pragma once
#include <string>
#include <vector>

#include "api/tfp_api.h"
#include "core/tensor.h"

struct tfp_tensors {
  struct Entry {
    std::string name;
    std::vector<int32_t> dims;  // the tensor's shape as the C API reports it
    tfp::Tensor tensor;
  };
  std::vector<Entry> entries;

  // Appends `t` under `name` (moved in). Names are unique within a list.
  void add(std::string name, tfp::Tensor t);
  // Adds "hidden_norm" (T): each row's Euclidean length of `hidden` (T, C), and with
  // logits (T, V) "argmax" (T): each row's largest logit's index — the summaries the
  // playground shows per token, so it never reduces the tensors itself.
  void add_summaries(const tfp::Tensor& hidden, const tfp::Tensor* logits);
};
