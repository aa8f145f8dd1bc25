// All positional encodings, one concept a file:
//   positional_sinusoidal.h  fixed sin/cos codes added to the embeddings
//   positional_learned.h     a trained (P, C) table added to the embeddings
//   positional_relative.h    learned per-head bias by relative distance (Shaw clip, T5 log)
//   positional_rope.h        rotation of q and k (interleaved GPT-J, half-split NeoX/LLaMA)
//   positional_alibi.h       fixed linear distance penalty per head
// The first two act on the embeddings; the last three act inside attention through
// AttentionHooks (nn/attention.h).
#pragma once
#include "nn/positional_alibi.h"
#include "nn/positional_learned.h"
#include "nn/positional_relative.h"
#include "nn/positional_rope.h"
#include "nn/positional_sinusoidal.h"
