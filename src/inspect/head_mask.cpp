// Head ablation and scaling through the observer (see head_mask.h).
#include "inspect/head_mask.h"

#include <cmath>

namespace tfp::inspect {

namespace {
constexpr std::string_view kHeadOut = ".head_out";

// "dec.3.attn.head_out" → "dec.3.attn"; "" for any other name.
std::string_view block_of(std::string_view name) {
  if (name.size() <= kHeadOut.size() || name.substr(name.size() - kHeadOut.size()) != kHeadOut) return {};
  return name.substr(0, name.size() - kHeadOut.size());
}
}  // namespace

void HeadMask::set(const std::string& block, std::vector<float> scales) {
  TFP_CHECK(!scales.empty(), "head_mask: no factors given for ", block);
  bool all_one = true;
  for (size_t h = 0; h < scales.size(); ++h) {
    TFP_CHECK(std::isfinite(scales[h]), "head_mask: the factor of head ", h, " of ", block,
              " is not finite (", scales[h], ")");
    all_one = all_one && scales[h] == 1.0f;
  }
  if (all_one) {
    blocks.erase(block);  // × 1 everywhere is no intervention
    return;
  }
  blocks[block] = std::move(scales);
}

const std::vector<float>* HeadMask::find(std::string_view block) const {
  const auto it = blocks.find(block);
  return it == blocks.end() ? nullptr : &it->second;
}

std::string head_block_name(std::string_view set, int layer) {
  TFP_CHECK(layer >= 0, "head_mask: layer must be >= 0, got ", layer);
  const std::string i = std::to_string(layer);
  if (set == "enc") return "enc." + i + ".attn";
  if (set == "dec") return "dec." + i + ".attn";
  if (set == "cross") return "dec." + i + ".cross";
  TFP_FAIL("head_mask: unknown set \"", std::string(set), "\" (expected \"enc\", \"dec\" or \"cross\")");
}

bool HeadMaskObserver::wants(std::string_view name) const {
  const std::string_view b = block_of(name);
  return !b.empty() && mask_.find(b) != nullptr;
}

void HeadMaskObserver::observe(std::string_view name, Tensor& t) {  // t: (H, Tq, D)
  const std::vector<float>* s = mask_.find(block_of(name));
  if (!s) return;
  TFP_CHECK(t.rank() == 3 && t.dim(0) == static_cast<int64_t>(s->size()), "head_mask: ",
            std::string(block_of(name)), " has ", s->size(), " factors but its head outputs are ",
            shape_str(t.shape), " (H, Tq, D)");
  const int64_t per_head = t.dim(1) * t.dim(2);
  for (int64_t h = 0; h < t.dim(0); ++h) {
    const float f = (*s)[static_cast<size_t>(h)];
    if (f == 1.0f) continue;
    float* x = t.ptr() + h * per_head;
    for (int64_t i = 0; i < per_head; ++i) x[i] *= f;  // f = 0 gives exact zeros (no NaN inputs here)
  }
}


}  // namespace tfp::inspect
