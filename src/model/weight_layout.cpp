#include "model/weight_layout.h"

#include <vector>

#include "kernels/kernels.h"

namespace tfp::model {

void hold_linear_weights_out_in(const ModelConfig& cfg, ModelWeights& w) {
  std::vector<float> scratch;
  std::vector<uint16_t> scratch16;
  for (WeightSlot& s : weight_slots(cfg, w)) {
    if (!s.linear || s.view != &s.linear->weight || s.linear->layout != nn::WeightLayout::InOut) continue;
    if (s.view->rank() != 2) continue;
    const int64_t in = s.view->shape[0], out = s.view->shape[1];
    // The data points into bytes this model owns (the checkpoint's buffer or its own
    // storage), never into caller memory: load_model parsed them from a moved-in vector.
    if (!s.view->empty()) {
      float* data = const_cast<float*>(s.view->data);
      scratch.assign(data, data + in * out);
      kernels::transpose(scratch.data(), in, out, data);
      *s.view = TensorView(data, {out, in});
    } else if (s.half && !s.half->empty()) {  // 16-bit: the view carries only the shape
      uint16_t* data = const_cast<uint16_t*>(s.half->data);
      scratch16.assign(data, data + in * out);
      kernels::transpose16(scratch16.data(), in, out, data);
      *s.view = TensorView(nullptr, {out, in});
    } else {
      continue;  // int8 is bound (out, in) already
    }
    s.linear->layout = nn::WeightLayout::OutIn;
  }
}

}  // namespace tfp::model
