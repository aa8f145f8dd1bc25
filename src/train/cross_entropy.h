// Softmax cross-entropy over the vocabulary, as PyTorch nn.CrossEntropyLoss with
// `ignore_index` and `label_smoothing`, mean over the rows that are not ignored —
// forward and backward fused, because the gradient is simplest in terms of p = softmax:
//
//   target distribution  q = (1 − ε)·onehot(y) + ε/V      (ε = label smoothing)
//   loss_row = −Σ_c q_c log p_c = logsumexp(z) − Σ_c q_c z_c
//   ∂loss_row/∂z = p − q
//
// so the gradient of the mean loss is (p − q)/N_valid on valid rows and 0 on ignored
// ones (padding, or the prompt part of a sequence the model should not be graded on).
// logsumexp subtracts the row max first so exp never overflows on large logits.
//
// Legend: N rows (predicted positions), V vocabulary.
#pragma once

namespace tfp::train {

struct CrossEntropyResult {
  double loss = 0;  // mean over valid rows (0 if none)
  int valid = 0;    // rows whose target is not ignore_index
  int correct = 0;  // valid rows whose argmax logit is the target (token accuracy)
};

// dlogits (N, V) is overwritten with scale·∂loss/∂logits when non-null (scale lets a caller
// average over micro-batches). Throws tfp::Error on a target outside [0, V).
template <class T>
CrossEntropyResult cross_entropy(T* dlogits, const T* logits /*(N, V)*/,
                                 const int* targets /*(N)*/, int N, int V,
                                 double label_smoothing = 0.0, int ignore_index = -100,
                                 double scale = 1.0);

}  // namespace tfp::train
