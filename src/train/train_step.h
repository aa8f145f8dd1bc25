// One optimisation step, written once: the training loop (train/train_loop.h) that every
// trainer in src/train/ runs calls it for each step.
//
//   zero the gradients → forward (mean cross-entropy over the graded tokens, activations
//   kept) → backward (∂loss/∂θ into .grad) → clip the global gradient norm → AdamW at lr.
//
// The model is any of the trainable models (TrainModel, GruSeq2Seq): the caller passes its
// forward and backward as callables, so each keeps its own batch type and loss options.
#pragma once
#include <utility>

#include "train/cross_entropy.h"
#include "train/optimizer.h"
#include "train/param_store.h"

namespace tfp::train {

struct OptimisationStep {
  CrossEntropyResult loss;  // of the batch, before the update
  double grad_norm = 0;     // global L2 norm of the gradients before clipping
};

// forward() -> CrossEntropyResult runs the model on the step's batch; backward() adds the
// gradients of that forward. clip <= 0: no clipping.
template <class Forward, class Backward>
OptimisationStep optimisation_step(ParamStore<float>& params, AdamW& adamw, double lr, double clip,
                                   Forward&& forward, Backward&& backward) {
  params.zero_grad();
  OptimisationStep s;
  s.loss = std::forward<Forward>(forward)();
  std::forward<Backward>(backward)();
  s.grad_norm = clip_grad_norm(params, clip);
  adamw.step(params, lr);
  return s;
}

}  // namespace tfp::train
