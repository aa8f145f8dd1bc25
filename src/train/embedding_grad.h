// Token embedding plus learned absolute position embedding (GPT-2's wte + wpe, BERT's
// word + position embeddings), and its backward pass.
//
//   x[b, t, :] = wte[id[b, t], :] + wpe[t, :]
//
// An embedding lookup is a matrix product with a one-hot row, so its gradient is a
// scatter-add: the row of the token that was looked up receives dx, every other row
// receives nothing. A token that appears twice in a batch receives both gradients.
//
// Legend: B sequences, T tokens, C channels, V vocabulary, P max positions.
#pragma once

namespace tfp::train {

// x (B, T, C) = wte (V, C)[ids (B, T)] + wpe (P, C)[t].  wpe may be null (no learned
// positions). Throws tfp::Error if an id is outside [0, V) or T > P.
template <class T>
void embedding_forward(T* x, const int* ids, const T* wte, const T* wpe, int B, int Tn, int C,
                       int V, int P);

// dwte (V, C) += scatter of dx by id;  dwpe (P, C) += Σ_b dx[b, t].  Either may be null.
template <class T>
void embedding_backward(T* dwte, T* dwpe, const T* dx /*(B, T, C)*/, const int* ids, int B,
                        int Tn, int C);

}  // namespace tfp::train
