// Activation patching (see activation_patching.h): one clean run recording the sweeps'
// activations, one corrupted baseline recording its residual stream before each block,
// then one corrupted run per cell with a single observer edit copying the clean values in,
// started at the cell's block from that recorded stream (the blocks before it cannot change).
#include "inspect/activation_patching.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <utility>

#include "core/error.h"

namespace tfp::inspect {

namespace {

namespace m = model;

// Copies the clean tensor's values into the one the forward pass reports under `name`:
// (T, C) rows (pos, or all when pos < 0) or, with head >= 0, head `head` of (H, T, D)
// (also q, k, v and the (H, Tq, Tk) pattern: the last two axes are T and D there).
class PatchObserver final : public nn::Observer {
 public:
  PatchObserver(std::string name, const Tensor& clean, int64_t pos, int64_t head)
      : name_(std::move(name)), clean_(clean), pos_(pos), head_(head) {}
  bool wants(std::string_view n) const override { return n == name_; }
  void observe(std::string_view, Tensor& t) override {
    TFP_CHECK(t.shape == clean_.shape, "activation_patching: ", name_, " has shape ", shape_str(t.shape),
              " in the corrupted run but ", shape_str(clean_.shape), " in the clean run");
    if (head_ < 0) {
      const int64_t C = t.dim(1);
      const int64_t a = pos_ < 0 ? 0 : pos_, b = pos_ < 0 ? t.dim(0) : pos_ + 1;
      std::copy(clean_.ptr() + a * C, clean_.ptr() + b * C, t.ptr() + a * C);
    } else {
      const int64_t T = t.dim(1), D = t.dim(2);
      const int64_t a = pos_ < 0 ? 0 : pos_, b = pos_ < 0 ? T : pos_ + 1;
      const int64_t base = head_ * T * D;
      std::copy(clean_.ptr() + base + a * D, clean_.ptr() + base + b * D, t.ptr() + base + a * D);
    }
  }

 private:
  std::string name_;
  const Tensor& clean_;
  int64_t pos_, head_;
};

// Keeps a copy of exactly the listed names.
class ExactRecorder final : public nn::Observer {
 public:
  explicit ExactRecorder(const std::vector<std::string>& names) {
    for (const std::string& n : names) got_.emplace(n, Tensor{});
  }
  bool wants(std::string_view n) const override { return got_.find(n) != got_.end(); }
  void observe(std::string_view n, Tensor& t) override { got_.find(n)->second = t; }
  const Tensor& get(const std::string& n) const {
    const auto it = got_.find(n);
    TFP_CHECK(it != got_.end() && !it->second.empty(), "activation_patching: the run did not report ", n);
    return it->second;
  }

 private:
  std::map<std::string, Tensor, std::less<>> got_;
};

std::string layer_name(int64_t i, const char* leaf) { return "dec." + std::to_string(i) + "." + leaf; }

// Replaces head `head` of the (H, T, D) tensor reported under `name` by 0 or by its mean
// over positions.
class AblateHead final : public nn::Observer {
 public:
  AblateHead(std::string name, int64_t head, AblationMode mode) : name_(std::move(name)), head_(head), mode_(mode) {}
  bool wants(std::string_view n) const override { return n == name_; }
  void observe(std::string_view, Tensor& t) override {
    const int64_t T = t.dim(1), D = t.dim(2);
    float* z = t.ptr() + head_ * T * D;
    std::vector<double> mean(static_cast<size_t>(D), 0.0);
    if (mode_ == AblationMode::mean)
      for (int64_t p = 0; p < T; ++p)
        for (int64_t d = 0; d < D; ++d) mean[d] += z[p * D + d] / static_cast<double>(T);
    for (int64_t p = 0; p < T; ++p)
      for (int64_t d = 0; d < D; ++d) z[p * D + d] = static_cast<float>(mean[d]);
  }

 private:
  std::string name_;
  int64_t head_;
  AblationMode mode_;
};

void check_metric_inputs(const model::ModelConfig& cfg, std::span<const int32_t> ids, const char* what, int32_t answer,
                         int32_t foil, const char* f) {
  const std::string why = metric_input_refusal(cfg, ids, what, answer, foil);
  TFP_CHECK(why.empty(), f, ": ", why);
}

std::pair<double, double> metric_of(const model::ModelConfig& cfg, const m::ForwardResult& out, int32_t answer,
                                    int32_t foil, const char* f) {
  TFP_CHECK(out.logits.rank() == 2 && out.logits.dim(0) == 1 && out.logits.dim(1) >= cfg.vocab_size, f,
            ": unexpected logits ", shape_str(out.logits.shape));
  return patching_metric(std::span<const float>(out.logits.ptr(), static_cast<size_t>(out.logits.dim(1))), answer, foil);
}

// One forward pass's metric {logit_diff, logprob} under `intervention` then `obs`.
std::pair<double, double> metric_run(const model::ModelConfig& cfg, const model::ModelWeights& w,
                                     std::span<const int32_t> ids, int32_t answer, int32_t foil,
                                     nn::Observer* intervention, nn::Observer* obs, const char* f) {
  nn::ChainObserver chain(intervention, obs);
  return metric_of(cfg, m::forward_decoder_only(cfg, w, ids, &chain, 1), answer, foil, f);
}

}  // namespace

std::string metric_input_refusal(const model::ModelConfig& cfg, std::span<const int32_t> ids, const char* what,
                                 int32_t answer, int32_t foil) {
  if (cfg.architecture != m::Architecture::decoder_only)
    return str_cat("applies to decoder-only models (the metric reads the next-token logits at the last position); "
                   "this one is ", m::architecture_name(cfg.architecture));
  if (!cfg.has_embeddings || !cfg.lm_head) return "needs token embeddings and an LM head";
  if (ids.empty()) return str_cat("no ", what, " tokens");
  const int64_t V = cfg.vocab_size;
  for (size_t t = 0; t < ids.size(); ++t)
    if (ids[t] < 0 || ids[t] >= V)
      return str_cat(what, " id ", ids[t], " at position ", t, " is outside the vocabulary (0..", V - 1, ")");
  if (answer < 0 || answer >= V) return str_cat("answer id ", answer, " is outside the vocabulary (0..", V - 1, ")");
  if (foil < 0 || foil >= V) return str_cat("foil id ", foil, " is outside the vocabulary (0..", V - 1, ")");
  return "";
}

std::pair<double, double> patching_metric(std::span<const float> logits, int32_t answer, int32_t foil) {
  double mx = -std::numeric_limits<double>::infinity();
  for (float v : logits) mx = std::max(mx, static_cast<double>(v));
  double s = 0;
  for (float v : logits) s += std::exp(static_cast<double>(v) - mx);
  const double diff = static_cast<double>(logits[answer]) - static_cast<double>(logits[foil]);
  return {diff, static_cast<double>(logits[answer]) - mx - std::log(s)};
}

ActivationPatching activation_patching(const model::ModelConfig& cfg, const model::ModelWeights& w,
                                       std::span<const int32_t> clean, std::span<const int32_t> corrupted,
                                       int32_t answer, int32_t foil, unsigned kinds, nn::Observer* intervention,
                                       int64_t layer) {
  const char* f = "activation_patching";
  check_metric_inputs(cfg, clean, "clean", answer, foil, f);
  check_metric_inputs(cfg, corrupted, "corrupted", answer, foil, f);
  TFP_CHECK(clean.size() == corrupted.size(), f, ": the clean prompt has ", clean.size(),
            " tokens and the corrupted one ", corrupted.size(), "; patching needs the same length");
  TFP_CHECK(kinds != 0 && (kinds & ~static_cast<unsigned>(patch_all)) == 0, f, ": kinds ", kinds,
            " is not a non-empty combination of 1 resid, 2 attn_out, 4 mlp_out, 8 head_all, 16 head_pos, 32 head_q, 64 head_k, "
            "128 head_v, 256 head_pattern");
  const int64_t n_layers = cfg.n_decoder_layers;
  TFP_CHECK(layer >= -1 && layer <= n_layers && (layer < n_layers || kinds == patch_resid), f, ": layer ", layer,
            " is not -1 (every layer) or a layer 0..", n_layers - 1, " (", n_layers, " for resid alone: after the last block)");

  ActivationPatching r;
  r.L = n_layers;
  r.T = static_cast<int64_t>(clean.size());
  r.H = cfg.n_heads;
  r.Hkv = cfg.kv_heads();
  const int64_t L = r.L, T = r.T, H = r.H;
  // Each head sweep over every position: its kind bit, table name, edit point, head count.
  struct HeadSweep {
    unsigned bit;
    const char* kind;
    const char* leaf;
    int64_t heads;
  };
  const HeadSweep head_sweeps[] = {{patch_head_q, "head_q", "attn.hook_q", H},
                                   {patch_head_k, "head_k", "attn.hook_k", r.Hkv},
                                   {patch_head_v, "head_v", "attn.hook_v", r.Hkv},
                                   {patch_head_pattern, "head_pattern", "attn.hook_pattern", H}};

  auto run = [&](std::span<const int32_t> ids, nn::Observer* obs) {
    return metric_run(cfg, w, ids, answer, foil, intervention, obs, f);
  };

  // The layers each sweep visits: all, or the one asked for.
  const int64_t lo = layer < 0 ? 0 : layer, hi_resid = layer < 0 ? L + 1 : layer + 1;
  const int64_t hi = layer < 0 ? L : std::min(layer + 1, L);
  auto resid_name = [&](int64_t l) { return l == 0 ? std::string("embed.out") : layer_name(l - 1, "out"); };
  std::vector<std::string> names;
  if (kinds & patch_resid)
    for (int64_t l = lo; l < hi_resid; ++l) names.push_back(resid_name(l));
  for (int64_t i = lo; i < hi; ++i) {
    if (kinds & patch_attn_out) names.push_back(layer_name(i, "attn.out"));
    if ((kinds & patch_mlp_out) && cfg.d_ff > 0) names.push_back(layer_name(i, "ffn.out"));
    if (kinds & (patch_head_all | patch_head_pos)) names.push_back(layer_name(i, "attn.head_out"));
    for (const HeadSweep& hs : head_sweeps)
      if (kinds & hs.bit) names.push_back(layer_name(i, hs.leaf));
  }
  ExactRecorder rec(names);
  std::tie(r.clean_logit_diff, r.clean_logprob) = run(clean, &rec);
  // The corrupted run's residual stream before each visited block: a patch in block l (or
  // of the stream before it) cannot change blocks < l, so each patched run starts there.
  std::vector<std::string> starts;
  for (int64_t l = lo; l < hi_resid; ++l) starts.push_back(resid_name(l));
  ExactRecorder corrupted_rec(starts);
  std::tie(r.corrupted_logit_diff, r.corrupted_logprob) = run(corrupted, &corrupted_rec);
  const double d_diff = r.clean_logit_diff - r.corrupted_logit_diff;
  const double d_lp = r.clean_logprob - r.corrupted_logprob;
  r.logit_diff_normalizable = d_diff != 0.0 && std::isfinite(d_diff);
  r.logprob_normalizable = d_lp != 0.0 && std::isfinite(d_lp);

  auto table = [&](const char* kind, std::vector<int64_t> dims) -> PatchTable& {
    PatchTable& t = r.tables.emplace_back();
    t.kind = kind;
    t.dims = std::move(dims);
    return t;
  };
  auto push = [&](PatchTable& t, double diff, double lp) {
    t.logit_diff.push_back(static_cast<float>(diff));
    t.logprob.push_back(static_cast<float>(lp));
    if (r.logit_diff_normalizable)
      t.logit_diff_norm.push_back(static_cast<float>((diff - r.corrupted_logit_diff) / d_diff));
    if (r.logprob_normalizable) t.logprob_norm.push_back(static_cast<float>((lp - r.corrupted_logprob) / d_lp));
  };
  // The corrupted run from block l on, with `resid` before it and `obs` after the intervention.
  auto push_run_from = [&](PatchTable& t, int64_t l, const Tensor& resid, nn::Observer* obs) {
    nn::ChainObserver chain(intervention, obs);
    const auto [diff, lp] = metric_of(cfg, m::forward_decoder_only_from(cfg, w, resid.view(), l, &chain, 1), answer, foil, f);
    push(t, diff, lp);
  };
  auto cell = [&](PatchTable& t, int64_t l, const std::string& name, int64_t pos, int64_t head) {
    PatchObserver p(name, rec.get(name), pos, head);
    push_run_from(t, l, corrupted_rec.get(resid_name(l)), &p);
  };

  const int64_t rows = hi - lo;
  if (kinds & patch_resid) {
    PatchTable& t = table("resid", {hi_resid - lo, T});
    for (int64_t l = lo; l < hi_resid; ++l) {
      const Tensor& from = rec.get(resid_name(l));
      const int64_t C = from.dim(1);
      for (int64_t p = 0; p < T; ++p) {
        Tensor x = corrupted_rec.get(resid_name(l));
        std::copy(from.ptr() + p * C, from.ptr() + (p + 1) * C, x.ptr() + p * C);
        push_run_from(t, l, x, nullptr);
      }
    }
  }
  if (kinds & patch_attn_out) {
    PatchTable& t = table("attn_out", {rows, T});
    for (int64_t l = lo; l < hi; ++l)
      for (int64_t p = 0; p < T; ++p) cell(t, l, layer_name(l, "attn.out"), p, -1);
  }
  if (kinds & patch_mlp_out) {
    PatchTable& t = table("mlp_out", {rows, T});
    for (int64_t l = lo; l < hi; ++l)
      for (int64_t p = 0; p < T; ++p) {
        if (cfg.d_ff > 0) {
          cell(t, l, layer_name(l, "ffn.out"), p, -1);
          continue;
        }
        // Attention-only layers: there is no MLP output to patch, so nothing changes.
        push(t, r.corrupted_logit_diff, r.corrupted_logprob);
      }
  }
  if (kinds & patch_head_all) {
    PatchTable& t = table("head_all", {rows, H});
    for (int64_t l = lo; l < hi; ++l)
      for (int64_t h = 0; h < H; ++h) cell(t, l, layer_name(l, "attn.head_out"), -1, h);
  }
  if (kinds & patch_head_pos) {
    PatchTable& t = table("head_pos", {rows, T, H});
    for (int64_t l = lo; l < hi; ++l)
      for (int64_t p = 0; p < T; ++p)
        for (int64_t h = 0; h < H; ++h) cell(t, l, layer_name(l, "attn.head_out"), p, h);
  }
  for (const HeadSweep& hs : head_sweeps) {
    if (!(kinds & hs.bit)) continue;
    PatchTable& t = table(hs.kind, {rows, hs.heads});
    for (int64_t l = lo; l < hi; ++l)
      for (int64_t h = 0; h < hs.heads; ++h) cell(t, l, layer_name(l, hs.leaf), -1, h);
  }
  return r;
}

HeadAblation head_ablation(const model::ModelConfig& cfg, const model::ModelWeights& w, std::span<const int32_t> ids,
                           int32_t answer, int32_t foil, AblationMode mode, nn::Observer* intervention) {
  const char* f = "head_ablation";
  check_metric_inputs(cfg, ids, "prompt", answer, foil, f);
  HeadAblation r;
  r.L = cfg.n_decoder_layers;
  r.H = cfg.n_heads;
  std::tie(r.logit_diff, r.logprob) = metric_run(cfg, w, ids, answer, foil, intervention, nullptr, f);
  for (int64_t l = 0; l < r.L; ++l)
    for (int64_t h = 0; h < r.H; ++h) {
      AblateHead ablate(layer_name(l, "attn.head_out"), h, mode);
      const auto [diff, lp] = metric_run(cfg, w, ids, answer, foil, intervention, &ablate, f);
      r.ablated_logit_diff.push_back(static_cast<float>(diff));
      r.ablated_logprob.push_back(static_cast<float>(lp));
    }
  return r;
}

}  // namespace tfp::inspect
