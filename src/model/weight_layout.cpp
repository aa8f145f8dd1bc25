#include "model/weight_layout.h"

#include <vector>

#include "kernels/kernels.h"

namespace tfp::model {

void hold_linear_weights_out_in(const ModelConfig& cfg, ModelWeights& w) {
  std::vector<float> scratch;
  for (WeightSlot& s : weight_slots(cfg, w)) {
    if (!s.linear || s.view != &s.linear->weight || s.linear->layout != nn::WeightLayout::InOut) continue;
    if (s.view->empty() || s.view->rank() != 2) continue;  // 16-bit or int8: kept as bound
    const int64_t in = s.view->shape[0], out = s.view->shape[1];
    // The view points into bytes this model owns (the checkpoint's buffer or its own
    // storage), never into caller memory: load_model parsed them from a moved-in vector.
    float* data = const_cast<float*>(s.view->data);
    scratch.assign(data, data + in * out);
    kernels::transpose(scratch.data(), in, out, data);
    *s.view = TensorView(data, {out, in});
    s.linear->layout = nn::WeightLayout::OutIn;
  }
}

}  // namespace tfp::model
