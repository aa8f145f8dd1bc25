// Activation sizes (see stream_stats.h): moments per row, rms, and the residual stream
// of an encoder stack recorded from the real forward pass.
#include "inspect/stream_stats.h"

#include <cmath>
#include <string>

#include "nn/observer.h"
#include "model/transformer.h"

namespace tfp::inspect {

Tensor row_moments(const TensorView& x) {  // (T, C) → (T, 2)
  TFP_CHECK(x.rank() == 2 && x.dim(1) > 0, "row_moments: input has shape ", shape_str(x.shape),
            ", expected (T, C) with C >= 1");
  const int64_t T = x.dim(0), C = x.dim(1);
  Tensor out({T, 2});
  for (int64_t t = 0; t < T; ++t) {
    const float* r = x.data + t * C;
    double sum = 0.0;
    for (int64_t c = 0; c < C; ++c) sum += r[c];
    const double mean = sum / static_cast<double>(C);
    double sq = 0.0;  // two passes: the variance of values far from 0 stays exact
    for (int64_t c = 0; c < C; ++c) sq += (r[c] - mean) * (r[c] - mean);
    out.data[t * 2] = static_cast<float>(mean);
    out.data[t * 2 + 1] = static_cast<float>(sq / static_cast<double>(C));
  }
  return out;
}

double rms(const TensorView& x) {
  const int64_t n = x.numel();
  if (n == 0) return 0.0;
  double sq = 0.0;
  for (int64_t i = 0; i < n; ++i) sq += static_cast<double>(x.data[i]) * x.data[i];
  return std::sqrt(sq / static_cast<double>(n));
}

Tensor row_rms(const TensorView& x) {  // (T, C) → (T)
  TFP_CHECK(x.rank() == 2 && x.dim(1) > 0, "row_rms: input has shape ", shape_str(x.shape),
            ", expected (T, C) with C >= 1");
  const int64_t T = x.dim(0), C = x.dim(1);
  Tensor out({T});
  for (int64_t t = 0; t < T; ++t) out.data[t] = static_cast<float>(rms(TensorView{x.data + t * C, {C}}));
  return out;
}

double cosine(const TensorView& a, const TensorView& b) {
  TFP_CHECK(a.shape == b.shape, "cosine: shapes ", shape_str(a.shape), " and ", shape_str(b.shape), " differ");
  double ab = 0.0, aa = 0.0, bb = 0.0;
  for (int64_t i = 0; i < a.numel(); ++i) {
    ab += static_cast<double>(a.data[i]) * b.data[i];
    aa += static_cast<double>(a.data[i]) * a.data[i];
    bb += static_cast<double>(b.data[i]) * b.data[i];
  }
  return aa > 0.0 && bb > 0.0 ? ab / std::sqrt(aa * bb) : 0.0;
}

DepthProfile depth_profile(const model::ModelConfig& cfg, const model::ModelWeights& w,
                           const TensorView& x) {
  TFP_CHECK(cfg.has_encoder() && cfg.n_encoder_layers > 0,
            "depth_profile: the model has no encoder layers");
  std::vector<std::string> names;
  for (int64_t l = 0; l < cfg.n_encoder_layers; ++l) names.push_back("enc." + std::to_string(l) + ".out");
  nn::RecordingObserver rec(names);  // exact names: only the layer outputs are copied
  model::encoder_stack(cfg, w, x, {}, &rec);

  DepthProfile p;
  p.stream_rms.push_back(rms(x));
  p.update_rms.push_back(0.0);
  p.input_cos.push_back(1.0);
  TensorView prev = x;
  for (const std::string& n : names) {
    const Tensor& h = rec.get(n);  // (T, C)
    p.stream_rms.push_back(rms(h.view()));
    Tensor d = h;  // the layer's whole contribution: out − in (both sublayers, and the norm if post-LN)
    for (int64_t i = 0; i < d.numel(); ++i) d.data[i] -= prev.data[i];
    p.update_rms.push_back(rms(d.view()));
    p.input_cos.push_back(cosine(h.view(), x));  // how much of the input still points the same way
    prev = h.view();
  }
  return p;
}

}  // namespace tfp::inspect
