// --precision f32|f16|int8 of the commands that load a model (model/precision.h).
#pragma once
#include "cli/args.h"
#include "core/error.h"
#include "model/precision.h"

namespace tfp::cli {

inline model::Precision precision_arg(const Args& a) {
  const auto it = a.options.find("--precision");
  if (it == a.options.end()) return model::Precision::stored;
  model::Precision p;
  TFP_CHECK(model::precision_from_name(it->second, &p) && p != model::Precision::stored, "--precision: '", it->second,
            "' is not one of f32, f16, int8");
  return p;
}

}  // namespace tfp::cli
