// A config's counts checked against the checkpoint that is to fill it, before anything is
// sized by them (issue 32): a GPT-2 config declaring n_layer 1,000,000 for a 2-layer file
// built a million layers' weight slots and one "missing tensor" line for each absent
// tensor (5.4 GB, 26 s) before it was refused. Each count must be one the file can hold:
//   - layers: every layer stores at least one tensor, so the layers are at most the
//     file's tensors;
//   - widths (d_model, d_ff, heads × head_dim, vocab_size): every stored matrix has at
//     least one byte an element, so d_model × each of the others is at most the bytes
//     the file's tensors hold.
// The binder then says which tensors are missing or mis-shaped, about a bounded count.
#pragma once
#include <string>

#include "io/safetensors.h"
#include "model/config.h"

namespace tfp::model {

// Throws tfp::Error "<config_source>: <what> declares <n> …, but '<file>' holds …".
void check_config_fits_file(const ModelConfig& c, const io::SafeTensors& st, const std::string& config_source);

}  // namespace tfp::model
