// Direct logit attribution (see logit_attribution.h): one recorded forward pass, the
// residual stream's parts at the last position as rows, the final norm with the run's
// scale applied to each row, and the LM head's answer and foil columns of every row in
// one call (so any weight precision, a tied or separate head and its bias are handled as
// the forward pass handles them).
#include "inspect/logit_attribution.h"

#include <cmath>
#include <string>

#include "core/error.h"
#include "nn/linear.h"

namespace tfp::inspect {

namespace {

namespace m = model;

std::string layer_name(int64_t i, const char* leaf) { return "dec." + std::to_string(i) + "." + leaf; }

// The final norm with its scale frozen at the run's value x: part → g ⊙ (part − mean(part)) / σ
// (LayerNorm) or g ⊙ part / rms (RMSNorm); no norm: the part itself.
class FrozenNorm {
 public:
  FrozenNorm(const nn::LayerNormWeights* n, std::span<const float> x) : n_(n) {
    if (!n_) return;
    const double C = static_cast<double>(x.size());
    double mean = 0, sq = 0;
    for (float v : x) mean += v;
    mean /= C;
    for (float v : x) sq += n_->rms ? static_cast<double>(v) * v : (v - mean) * (v - mean);
    scale_ = std::sqrt(sq / C + static_cast<double>(n_->eps));
  }
  void apply(float* row, int64_t C) const {
    if (!n_) return;
    double mean = 0;
    if (!n_->rms) {
      for (int64_t c = 0; c < C; ++c) mean += row[c];
      mean /= static_cast<double>(C);
    }
    for (int64_t c = 0; c < C; ++c) {
      const double g = static_cast<double>(n_->gamma.data[c]) + (n_->plus_one ? 1.0 : 0.0);
      row[c] = static_cast<float>(g * (row[c] - mean) / scale_);
    }
  }

 private:
  const nn::LayerNormWeights* n_;
  double scale_ = 1;
};

}  // namespace

std::string logit_attribution_refusal(const m::ModelConfig& cfg, std::span<const int32_t> ids, int32_t answer,
                                      int32_t foil) {
  if (cfg.architecture != m::Architecture::decoder_only)
    return str_cat("applies to decoder-only models (the metric reads the next-token logits at the last position); "
                   "this one is ", m::architecture_name(cfg.architecture));
  if (!cfg.has_embeddings || !cfg.lm_head) return "needs token embeddings and an LM head";
  if (!cfg.norm_first) return "needs pre-norm blocks (a post-norm block normalises the residual stream itself)";
  if (cfg.sandwich_norms)
    return "this model normalises each sublayer's output before adding it to the residual stream (sandwich norms, "
           "Gemma 2/3), so its residual stream is not a sum of the heads' outputs";
  if (cfg.final_softcap != 0.0f) return "final logit soft-capping is not linear in the residual stream";
  if (ids.empty()) return "no tokens";
  const int64_t V = cfg.vocab_size;
  for (size_t t = 0; t < ids.size(); ++t)
    if (ids[t] < 0 || ids[t] >= V)
      return str_cat("id ", ids[t], " at position ", t, " is outside the vocabulary (0..", V - 1, ")");
  if (answer < 0 || answer >= V) return str_cat("answer id ", answer, " is outside the vocabulary (0..", V - 1, ")");
  if (foil < 0 || foil >= V) return str_cat("foil id ", foil, " is outside the vocabulary (0..", V - 1, ")");
  return "";
}

LogitAttribution logit_attribution(const m::ModelConfig& cfg, const m::ModelWeights& w, std::span<const int32_t> ids,
                                   int32_t answer, int32_t foil, nn::Observer* intervention) {
  const char* f = "logit_attribution";
  const std::string why = logit_attribution_refusal(cfg, ids, answer, foil);
  TFP_CHECK(why.empty(), f, ": ", why);

  LogitAttribution r;
  const int64_t L = cfg.n_decoder_layers, H = cfg.n_heads, T = static_cast<int64_t>(ids.size()), t = T - 1;
  r.L = L;
  r.H = H;
  std::vector<std::string> names = {"embed.out", layer_name(L - 1, "out")};
  for (int64_t l = 0; l < L; ++l)
    for (const char* leaf : {"attn.head_out", "attn.out", "ffn.out"})
      if (cfg.d_ff > 0 || std::string_view(leaf) != "ffn.out") names.push_back(layer_name(l, leaf));
  nn::RecordingObserver rec(names);
  nn::ChainObserver chain(intervention, &rec);
  const m::ForwardResult out = m::forward_decoder_only(cfg, w, ids, &chain, 1);
  TFP_CHECK(out.logits.rank() == 2 && out.logits.dim(0) == 1 && out.logits.dim(1) >= cfg.vocab_size, f, ": unexpected logits ",
            shape_str(out.logits.shape));
  r.metric = static_cast<double>(out.logits.ptr()[answer]) - static_cast<double>(out.logits.ptr()[foil]);

  const Tensor& last = rec.get(layer_name(L - 1, "out"));
  const int64_t C = last.dim(1);
  auto row_of = [&](const Tensor& x) { return std::span<const float>(x.ptr() + t * x.dim(1), static_cast<size_t>(x.dim(1))); };
  const FrozenNorm norm(cfg.decoder_final_norm ? &w.decoder_norm : nullptr, row_of(last));

  // The rows: 0 zero (the head's own bias), 1 the norm's bias, then the parts.
  r.has_pos_embed = cfg.positional == m::Positional::learned && !cfg.embedding_norm && !w.embed.position.empty();
  const int64_t n_parts = 1 + (r.has_pos_embed ? 1 : 0) + L * H + 2 * L;
  Tensor rows({2 + n_parts + L + 1, C});
  int64_t next = 2;
  auto put = [&](std::span<const float> v) {
    TFP_CHECK(static_cast<int64_t>(v.size()) == C, f, ": a part of width ", v.size(), ", expected ", C);
    std::copy(v.begin(), v.end(), rows.row(next));
    return next++;
  };
  if (cfg.decoder_final_norm && !w.decoder_norm.beta.empty())
    std::copy(w.decoder_norm.beta.data, w.decoder_norm.beta.data + C, rows.row(1));
  const Tensor& emb = rec.get("embed.out");
  std::vector<float> token(row_of(emb).begin(), row_of(emb).end());
  std::vector<float> pos;
  if (r.has_pos_embed) {
    const float* p = w.embed.position.data + (t + cfg.learned_offset) * C;
    pos.assign(p, p + C);
    for (int64_t c = 0; c < C; ++c) token[c] -= pos[c];
  }
  const int64_t embed_row = put(token);
  const int64_t pos_row = r.has_pos_embed ? put(pos) : -1;
  std::vector<int64_t> head_rows, bias_rows, mlp_rows;
  for (int64_t l = 0; l < L; ++l) {
    const nn::Linear& proj = w.decoder_layers[l].attn.out;
    const Tensor& z = rec.get(layer_name(l, "attn.head_out"));  // (H, T, D)
    const int64_t D = z.dim(2);
    Tensor one({H, H * D});  // row h: head h's z at the last position, the other heads 0
    for (int64_t h = 0; h < H; ++h) std::copy(z.ptr() + (h * T + t) * D, z.ptr() + (h * T + t + 1) * D, one.row(h) + h * D);
    Tensor through = proj.empty() ? std::move(one) : nn::linear(one.view(), proj, f);  // (H, C)
    std::vector<float> bias(static_cast<size_t>(C), 0.0f);
    if (!proj.empty() && !proj.bias.empty()) std::copy(proj.bias.data, proj.bias.data + C, bias.begin());
    for (int64_t h = 0; h < H; ++h) {
      float* hr = through.row(h);
      for (int64_t c = 0; c < C; ++c) hr[c] -= bias[c];
      head_rows.push_back(put({hr, static_cast<size_t>(C)}));
    }
    bias_rows.push_back(put(bias));
    // Attention-only layers have no MLP: a part of 0.
    mlp_rows.push_back(cfg.d_ff > 0 ? put(row_of(rec.get(layer_name(l, "ffn.out")))) : put(std::vector<float>(C, 0.0f)));
  }
  // Accumulated: the embeddings, then each block's parts added.
  std::vector<double> acc(token.begin(), token.end());
  auto put_acc = [&] {
    std::vector<float> v(acc.begin(), acc.end());
    put(v);
  };
  for (int64_t c = 0; c < C && r.has_pos_embed; ++c) acc[c] += pos[c];
  const int64_t acc_row = next;
  put_acc();
  for (int64_t l = 0; l < L; ++l) {
    for (int64_t h = 0; h < H; ++h)
      for (int64_t c = 0; c < C; ++c) acc[c] += rows.row(head_rows[l * H + h])[c];
    for (int64_t c = 0; c < C; ++c) acc[c] += rows.row(bias_rows[l])[c] + rows.row(mlp_rows[l])[c];
    put_acc();
  }
  for (int64_t i = 2; i < rows.dim(0); ++i) norm.apply(rows.row(i), C);

  const Tensor la = m::lm_logits(cfg, w, rows.view(), nullptr, answer, answer + 1);
  const Tensor lf = m::lm_logits(cfg, w, rows.view(), nullptr, foil, foil + 1);
  auto score = [&](int64_t i) {
    return (static_cast<double>(la.ptr()[i]) - la.ptr()[0]) - (static_cast<double>(lf.ptr()[i]) - lf.ptr()[0]);
  };
  r.norm_bias = static_cast<double>(la.ptr()[1]) - static_cast<double>(lf.ptr()[1]);
  r.embed = score(embed_row);
  if (r.has_pos_embed) r.pos_embed = score(pos_row);
  double sum = r.embed + r.pos_embed + r.norm_bias;
  for (int64_t i : head_rows) r.heads.push_back(static_cast<float>(score(i)));
  for (int64_t i : bias_rows) r.attn_bias.push_back(static_cast<float>(score(i)));
  for (int64_t i : mlp_rows) r.mlp.push_back(static_cast<float>(score(i)));
  for (int64_t i = 0; i <= L; ++i) r.accumulated.push_back(static_cast<float>(score(acc_row + i) + r.norm_bias));
  for (int64_t i = 2 + (r.has_pos_embed ? 2 : 1); i < acc_row; ++i) sum += score(i);
  r.residual = sum - r.metric;
  return r;
}

}  // namespace tfp::inspect
