#include "train/optimizer.h"

#include <cmath>

namespace tfp::train {

void AdamW::step(ParamStore<float>& store, double lr) {
  if (m_.empty()) {  // state is created lazily, one moment pair per parameter
    for (auto& p : store) {
      m_.emplace_back(p.value.size(), 0.0f);
      v_.emplace_back(p.value.size(), 0.0f);
    }
  }
  TFP_CHECK(m_.size() == store.size(), "adamw: optimiser state for ", m_.size(),
            " tensors, store has ", store.size());
  ++t_;
  beta1_pow_ *= cfg_.beta1;
  beta2_pow_ *= cfg_.beta2;
  const float b1 = static_cast<float>(cfg_.beta1), b2 = static_cast<float>(cfg_.beta2);
  const float corr1 = static_cast<float>(1.0 / (1.0 - beta1_pow_));
  const float corr2 = static_cast<float>(1.0 / (1.0 - beta2_pow_));
  const float eps = static_cast<float>(cfg_.eps), flr = static_cast<float>(lr);
  for (size_t i = 0; i < store.size(); ++i) {
    Param<float>& p = store[i];
    float* m = m_[i].data();
    float* v = v_[i].data();
    const float decay = p.decay ? static_cast<float>(lr * cfg_.weight_decay) : 0.0f;
    for (size_t k = 0; k < p.value.size(); ++k) {
      const float g = p.grad[k];
      p.value[k] -= decay * p.value[k];
      m[k] = b1 * m[k] + (1.0f - b1) * g;
      v[k] = b2 * v[k] + (1.0f - b2) * g * g;
      p.value[k] -= flr * (m[k] * corr1) / (std::sqrt(v[k] * corr2) + eps);
    }
  }
}

template <class T>
double clip_grad_norm(ParamStore<T>& store, double max_norm) {
  double sq = 0;
  for (auto& p : store)
    for (T g : p.grad) sq += static_cast<double>(g) * g;
  const double norm = std::sqrt(sq);
  if (max_norm > 0 && norm > max_norm) {
    const T s = static_cast<T>(max_norm / (norm + 1e-6));
    for (auto& p : store)
      for (T& g : p.grad) g *= s;
  }
  return norm;
}

template double clip_grad_norm<float>(ParamStore<float>&, double);
template double clip_grad_norm<double>(ParamStore<double>&, double);

}  // namespace tfp::train
