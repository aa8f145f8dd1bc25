/* Learn chapter 12, "Training a transformer": the learning-rate schedule the trainer uses
 * and the cross-entropy it minimises, one row at a time. The conventions of tfp_api.h hold
 * (int status, tfp_last_error, caller-owned outputs). Exported from the WASM module like
 * tfp_api.h (cmake/wasm_module.cmake reads it). The training itself is tfp_trainer_*. */
#ifndef TFP_LEARN_TRAINING_API_H
#define TFP_LEARN_TRAINING_API_H

#include "api/tfp_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The trainer's learning rate at steps 0..n-1 (train/lr_schedule.h): linear warm-up over
 * `warmup` steps (0 = none), peak·(step+1)/warmup, so peak/warmup at step 0 (not 0) and `peak`
 * at step warmup-1; then decay 0 cosine or 1 linear to `floor` at step `total` (steps past
 * `total` keep the floor), or 2 constant (stays at `peak`). peak > 0, 0 <= floor <= peak,
 * 0 <= warmup, 1 <= total, 1 <= n <= 1000000. out: n doubles (caller-owned). */
int tfp_learn_lr_schedule(double peak, double floor, int warmup, int total, int decay, int n,
                          double* out);

/* The trainer's cross-entropy (train/cross_entropy.h, as PyTorch's with label_smoothing)
 * of each of n rows of logits (n, V) row-major against its target id (targets, n ids in
 * [0, V)): target q = (1 - eps)·onehot + eps/V, loss_row = -sum_c q_c log softmax(z)_c.
 * 1 <= n <= 4096, 2 <= V <= 4096, 0 <= label_smoothing < 1. out_losses: n doubles
 * (caller-owned). All-equal logits give ln V whatever eps. */
int tfp_learn_cross_entropy(const float* logits, const int32_t* targets, int n, int V,
                            double label_smoothing, double* out_losses);

#ifdef __cplusplus
}
#endif

#endif /* TFP_LEARN_TRAINING_API_H */
