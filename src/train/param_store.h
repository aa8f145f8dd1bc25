// The trainer's parameters: each one a name, a shape, its values and its gradient, in
// the order the model created them. Names are the checkpoint names the inference engine
// loads (see train_model.h for the table), so writing the store out as safetensors gives
// a model the engine reads unchanged.
//
// T is float for training and double for gradient checks (the same model, copied into
// double, differentiated and compared against finite differences).
#pragma once
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace tfp::train {

template <class T>
struct Param {
  std::string name;
  Shape shape;
  std::vector<T> value;  // row-major, numel(shape)
  std::vector<T> grad;   // same size; added into by the backward pass
  bool decay = true;     // AdamW weight decay applies (matrices yes; biases, norms no)
  T* data() { return value.data(); }
  T* g() { return grad.data(); }
  int64_t numel() const { return static_cast<int64_t>(value.size()); }
};

template <class T>
class ParamStore {
 public:
  // Adds a zero-initialised parameter; throws tfp::Error on a duplicate name.
  // References stay valid as more parameters are added (a deque never moves elements).
  Param<T>& add(const std::string& name, const Shape& shape, bool decay);

  Param<T>* find(const std::string& name);
  const Param<T>* find(const std::string& name) const;
  Param<T>& get(const std::string& name);  // throws tfp::Error naming the missing tensor

  size_t size() const { return params_.size(); }
  Param<T>& operator[](size_t i) { return params_[i]; }
  const Param<T>& operator[](size_t i) const { return params_[i]; }
  auto begin() { return params_.begin(); }
  auto end() { return params_.end(); }
  auto begin() const { return params_.begin(); }
  auto end() const { return params_.end(); }

  int64_t num_elements() const;
  void zero_grad();

  // Copies values from a store with the same names and shapes (e.g. float → double).
  template <class U>
  void copy_values_from(const ParamStore<U>& other) {
    TFP_CHECK(other.size() == size(), "param store: copying ", other.size(), " tensors into ", size());
    for (size_t i = 0; i < size(); ++i) {
      TFP_CHECK(other[i].name == params_[i].name && other[i].shape == params_[i].shape,
                "param store: tensor ", i, " is ", other[i].name, " ", shape_str(other[i].shape),
                ", expected ", params_[i].name, " ", shape_str(params_[i].shape));
      for (size_t k = 0; k < params_[i].value.size(); ++k)
        params_[i].value[k] = static_cast<T>(other[i].value[k]);
    }
  }

 private:
  std::deque<Param<T>> params_;
};

}  // namespace tfp::train
