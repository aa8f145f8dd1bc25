#include "train/param_store.h"

namespace tfp::train {

template <class T>
Param<T>& ParamStore<T>::add(const std::string& name, const Shape& shape, bool decay) {
  TFP_CHECK(find(name) == nullptr, "param store: duplicate tensor name ", name);
  Param<T>& p = params_.emplace_back();
  p.name = name;
  p.shape = shape;
  p.value.assign(static_cast<size_t>(numel_of(shape)), T(0));
  p.grad.assign(p.value.size(), T(0));
  p.decay = decay;
  return p;
}

template <class T>
Param<T>* ParamStore<T>::find(const std::string& name) {
  for (auto& p : params_)
    if (p.name == name) return &p;
  return nullptr;
}

template <class T>
const Param<T>* ParamStore<T>::find(const std::string& name) const {
  for (auto& p : params_)
    if (p.name == name) return &p;
  return nullptr;
}

template <class T>
Param<T>& ParamStore<T>::get(const std::string& name) {
  Param<T>* p = find(name);
  TFP_CHECK(p != nullptr, "param store: no tensor named ", name);
  return *p;
}

template <class T>
int64_t ParamStore<T>::num_elements() const {
  int64_t n = 0;
  for (auto& p : params_) n += p.numel();
  return n;
}

template <class T>
void ParamStore<T>::zero_grad() {
  for (auto& p : params_) std::fill(p.grad.begin(), p.grad.end(), T(0));
}

template class ParamStore<float>;
template class ParamStore<double>;

}  // namespace tfp::train
