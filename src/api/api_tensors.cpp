// tfp_tensors: a named list of result tensors, read field by field from C or JS.
#include <algorithm>
#include <cmath>
#include <limits>

#include "api/api_edge.h"
#include "api/api_tensors.h"

void tfp_tensors::add(std::string name, tfp::Tensor t) {
  TFP_CHECK(tfp_tensors_find(this, name.c_str()) < 0, "tensor list: duplicate name '", name, "'");
  Entry e;
  e.name = std::move(name);
  for (int64_t d : t.shape) {
    TFP_CHECK(d <= std::numeric_limits<int32_t>::max(), "tensor list: '", e.name,
              "' has a dimension too large for the C API: ", tfp::shape_str(t.shape));
    e.dims.push_back(static_cast<int32_t>(d));
  }
  e.tensor = std::move(t);
  entries.push_back(std::move(e));
}

void tfp_tensors::add_summaries(const tfp::Tensor& hidden, const tfp::Tensor* logits) {
  const int64_t T = hidden.dim(0), C = hidden.dim(1);
  tfp::Tensor norm({T});
  for (int64_t i = 0; i < T; ++i) {
    double ss = 0;  // in double: a long row of small values keeps its digits
    for (int64_t j = 0; j < C; ++j) ss += static_cast<double>(hidden.row(i)[j]) * hidden.row(i)[j];
    norm.data[static_cast<size_t>(i)] = static_cast<float>(std::sqrt(ss));
  }
  add("hidden_norm", std::move(norm));
  if (!logits || logits->empty()) return;
  const int64_t V = logits->dim(1);
  tfp::Tensor best({logits->dim(0)});
  for (int64_t i = 0; i < logits->dim(0); ++i) {
    const float* row = logits->row(i);
    best.data[static_cast<size_t>(i)] = static_cast<float>(std::max_element(row, row + V) - row);
  }
  add("argmax", std::move(best));
}

namespace {
const tfp_tensors::Entry* entry_at(const tfp_tensors* list, int i) {
  if (!list || i < 0 || i >= static_cast<int>(list->entries.size())) return nullptr;
  return &list->entries[static_cast<size_t>(i)];
}
}  // namespace

extern "C" {

void tfp_tensors_free(tfp_tensors* list) { delete list; }

int tfp_tensors_count(const tfp_tensors* list) {
  return list ? static_cast<int>(list->entries.size()) : 0;
}

int tfp_tensors_find(const tfp_tensors* list, const char* name) {
  if (!list || !name) return -1;
  for (size_t i = 0; i < list->entries.size(); ++i)
    if (list->entries[i].name == name) return static_cast<int>(i);
  return -1;
}

const char* tfp_tensors_name(const tfp_tensors* list, int i) {
  const auto* e = entry_at(list, i);
  return e ? e->name.c_str() : nullptr;
}

int tfp_tensors_rank(const tfp_tensors* list, int i) {
  const auto* e = entry_at(list, i);
  return e ? static_cast<int>(e->dims.size()) : -1;
}

const int32_t* tfp_tensors_dims(const tfp_tensors* list, int i) {
  const auto* e = entry_at(list, i);
  return e ? e->dims.data() : nullptr;
}

int64_t tfp_tensors_numel(const tfp_tensors* list, int i) {
  const auto* e = entry_at(list, i);
  return e ? e->tensor.numel() : -1;
}

const float* tfp_tensors_data(const tfp_tensors* list, int i) {
  const auto* e = entry_at(list, i);
  return e && !e->tensor.empty() ? e->tensor.ptr() : nullptr;
}

}  // extern "C"
