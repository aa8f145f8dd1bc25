// See seq_gru_model.h for the model. Forward keeps every state; backward walks the
// decoder steps in reverse (backpropagation through time), then the attention keys, then
// each encoder direction in reverse of the order it was read.
#include "train/seq_gru_model.h"

#include <cmath>
#include <cstring>

#include "train/embedding_grad.h"
#include "train/linear_grad.h"
#include "train/rng.h"

namespace tfp::train {

model::GruSeq2SeqConfig numbers_gru_config(int embed, int hidden, int dec_hidden, int attn, bool bidirectional) {
  model::GruSeq2SeqConfig c;
  c.vocab_size = 67;
  c.embed_dim = embed;
  c.encoder_hidden = hidden;
  c.bidirectional = bidirectional;
  c.decoder_hidden = dec_hidden;
  c.attention_dim = attn;
  c.max_source_positions = 72;
  c.max_target_tokens = 7;
  c.eos_token_id = 1;
  c.decoder_start_token_id = 2;
  c.pad_token_id = 0;
  return c;
}

template <class T>
GruCellWeights<T> GruSeq2Seq<T>::Gru::weights() const {
  return {w_ih->data(), w_hh->data(), b_ih->data(), b_hh->data()};
}
template <class T>
GruCellGrads<T> GruSeq2Seq<T>::Gru::grads() const {
  return {w_ih->g(), w_hh->g(), b_ih->g(), b_hh->g()};
}

template <class T>
typename GruSeq2Seq<T>::Gru GruSeq2Seq<T>::gru(const std::string& prefix, const std::string& suffix) {
  return {&params.get(prefix + "weight_ih" + suffix), &params.get(prefix + "weight_hh" + suffix),
          &params.get(prefix + "bias_ih" + suffix), &params.get(prefix + "bias_hh" + suffix)};
}

template <class T>
GruSeq2Seq<T>::GruSeq2Seq(const model::GruSeq2SeqConfig& cfg) : cfg_(cfg) {
  model::check_gru_config(cfg);
  V_ = static_cast<int>(cfg.vocab_size), E_ = static_cast<int>(cfg.embed_dim);
  H_ = static_cast<int>(cfg.encoder_hidden), Ce_ = static_cast<int>(cfg.encoder_width());
  D_ = static_cast<int>(cfg.decoder_hidden), A_ = static_cast<int>(cfg.attention_dim);
  ndir_ = cfg.bidirectional ? 2 : 1;
  // The inference side's layout table names and shapes every parameter.
  for (const auto& [name, shape] : model::gru_tensor_shapes(cfg))
    params.add(name, shape, shape.size() == 2 && name != "embed.weight");
  embed_ = &params.get("embed.weight");
  enc_[0] = gru("encoder.", "_l0");
  if (ndir_ == 2) enc_[1] = gru("encoder.", "_l0_reverse");
  dec_ = gru("decoder.", "");
  bridge_w_ = &params.get("bridge.weight"), bridge_b_ = &params.get("bridge.bias");
  q_w_ = &params.get("attention.query.weight"), q_b_ = &params.get("attention.query.bias");
  k_w_ = &params.get("attention.key.weight"), v_ = &params.get("attention.v");
  out_w_ = &params.get("out.weight"), out_b_ = &params.get("out.bias");
}

template <class T>
void GruSeq2Seq<T>::init(uint64_t seed) {
  Rng rng = Rng::stream(seed, /*label "gru init"*/ 11);
  for (Param<T>& p : params) {
    if (p.name == "embed.weight") {
      for (T& x : p.value) x = static_cast<T>(rng.uniform(-0.1f, 0.1f));
    } else if (p.shape.size() == 2 || p.name == "attention.v") {
      // ±1/√fan_in, fan_in = the width the weight reads (PyTorch's GRU/Linear default).
      const float a = 1.0f / std::sqrt(static_cast<float>(p.shape.back()));
      for (T& x : p.value) x = static_cast<T>(rng.uniform(-a, a));
    } else {
      for (T& x : p.value) x = T(0);
    }
  }
}

template <class T>
void GruSeq2Seq<T>::encoder_direction_forward(int d) {
  const size_t BH = static_cast<size_t>(B_) * H_;
  std::vector<std::vector<T>>& hs = enc_h_[d];
  hs.assign(static_cast<size_t>(S_) + 1, std::vector<T>(BH, T(0)));
  enc_cache_[d].assign(static_cast<size_t>(S_), {});
  std::vector<T> x(static_cast<size_t>(B_) * E_);
  for (int step = 0; step < S_; ++step) {
    const int j = d == 0 ? step : S_ - 1 - step;  // the position read at this step
    for (int b = 0; b < B_; ++b)
      std::memcpy(&x[static_cast<size_t>(b) * E_], &src_x_[(static_cast<size_t>(b) * S_ + j) * E_], sizeof(T) * E_);
    gru_cell_forward<T>(hs[step + 1].data(), enc_cache_[d][step], x.data(), hs[step].data(), enc_[d].weights(), B_,
                        E_, H_);
    // A padded position keeps the state: h_new = h_prev for that row.
    for (int b = 0; b < B_; ++b)
      if (batch_.src_pad.size() && batch_.src_pad[static_cast<size_t>(b) * S_ + j])
        std::memcpy(&hs[step + 1][static_cast<size_t>(b) * H_], &hs[step][static_cast<size_t>(b) * H_], sizeof(T) * H_);
    for (int b = 0; b < B_; ++b)
      std::memcpy(&enc_out_[(static_cast<size_t>(b) * S_ + j) * Ce_ + d * H_], &hs[step + 1][static_cast<size_t>(b) * H_],
                  sizeof(T) * H_);
  }
}

template <class T>
CrossEntropyResult GruSeq2Seq<T>::forward(const Batch& batch, double label_smoothing) {
  TFP_CHECK(batch.B > 0 && batch.S > 0 && batch.T > 0, "gru seq2seq: empty batch");
  TFP_CHECK(batch.S <= cfg_.max_source_positions, "gru seq2seq: source of ", batch.S, " tokens, limit ",
            cfg_.max_source_positions);
  batch_ = batch;
  B_ = batch.B, S_ = batch.S, T_ = batch.T;
  // Encoder.
  src_x_.assign(static_cast<size_t>(B_) * S_ * E_, T(0));
  embedding_forward<T>(src_x_.data(), batch.src.data(), embed_->data(), nullptr, B_, S_, E_, V_, S_);
  enc_out_.assign(static_cast<size_t>(B_) * S_ * Ce_, T(0));
  for (int d = 0; d < ndir_; ++d) encoder_direction_forward(d);
  keys_.assign(static_cast<size_t>(B_) * S_ * A_, T(0));
  linear_forward<T>(keys_.data(), enc_out_.data(), k_w_->data(), nullptr, B_ * S_, Ce_, A_);  // U·h_j
  // Bridge: s_0 = tanh(W_b · summary + b_b).
  summary_.assign(static_cast<size_t>(B_) * H_, T(0));
  for (int b = 0; b < B_; ++b) {
    const int j = ndir_ == 2 ? 0 : S_ - 1;
    std::memcpy(&summary_[static_cast<size_t>(b) * H_], &enc_out_[(static_cast<size_t>(b) * S_ + j) * Ce_ + (ndir_ - 1) * H_],
                sizeof(T) * H_);
  }
  s_.assign(static_cast<size_t>(T_) + 1, std::vector<T>(static_cast<size_t>(B_) * D_, T(0)));
  linear_forward<T>(s_[0].data(), summary_.data(), bridge_w_->data(), bridge_b_->data(), B_, H_, D_);
  for (T& v : s_[0]) v = std::tanh(v);
  // Decoder steps.
  q_.assign(T_, std::vector<T>(static_cast<size_t>(B_) * A_));
  ctx_.assign(T_, std::vector<T>(static_cast<size_t>(B_) * Ce_));
  x_.assign(T_, std::vector<T>(static_cast<size_t>(B_) * (E_ + Ce_)));
  o_.assign(T_, std::vector<T>(static_cast<size_t>(B_) * (D_ + Ce_)));
  attn_.assign(T_, {});
  dec_cache_.assign(T_, {});
  logits_.assign(static_cast<size_t>(B_) * T_ * V_, T(0));
  std::vector<T> lg(static_cast<size_t>(B_) * V_);
  const uint8_t* pad = batch.src_pad.empty() ? nullptr : batch.src_pad.data();
  for (int t = 0; t < T_; ++t) {
    linear_forward<T>(q_[t].data(), s_[t].data(), q_w_->data(), q_b_->data(), B_, D_, A_);
    additive_step_forward<T>(ctx_[t].data(), attn_[t], q_[t].data(), keys_.data(), enc_out_.data(), v_->data(), pad,
                             B_, S_, A_, Ce_);
    for (int b = 0; b < B_; ++b) {
      const int y = batch.tgt[static_cast<size_t>(b) * T_ + t];
      TFP_CHECK(y >= 0 && y < V_, "gru seq2seq: decoder token id ", y, " outside the vocabulary");
      T* xb = &x_[t][static_cast<size_t>(b) * (E_ + Ce_)];
      std::memcpy(xb, embed_->data() + static_cast<size_t>(y) * E_, sizeof(T) * E_);
      std::memcpy(xb + E_, &ctx_[t][static_cast<size_t>(b) * Ce_], sizeof(T) * Ce_);
    }
    gru_cell_forward<T>(s_[t + 1].data(), dec_cache_[t], x_[t].data(), s_[t].data(), dec_.weights(), B_, E_ + Ce_, D_);
    for (int b = 0; b < B_; ++b) {
      T* ob = &o_[t][static_cast<size_t>(b) * (D_ + Ce_)];
      std::memcpy(ob, &s_[t + 1][static_cast<size_t>(b) * D_], sizeof(T) * D_);
      std::memcpy(ob + D_, &ctx_[t][static_cast<size_t>(b) * Ce_], sizeof(T) * Ce_);
    }
    linear_forward<T>(lg.data(), o_[t].data(), out_w_->data(), out_b_->data(), B_, D_ + Ce_, V_);
    for (int b = 0; b < B_; ++b)
      std::memcpy(&logits_[(static_cast<size_t>(b) * T_ + t) * V_], &lg[static_cast<size_t>(b) * V_], sizeof(T) * V_);
  }
  dlogits_.assign(logits_.size(), T(0));
  return cross_entropy<T>(dlogits_.data(), logits_.data(), batch.targets.data(), B_ * T_, V_, label_smoothing);
}

template <class T>
void GruSeq2Seq<T>::encoder_direction_backward(int d, const std::vector<T>& denc) {
  const size_t BH = static_cast<size_t>(B_) * H_;
  std::vector<T> carry(BH, T(0)), dh(BH), dcell(BH), dx(static_cast<size_t>(B_) * E_), x(static_cast<size_t>(B_) * E_);
  std::vector<T> dsrc(static_cast<size_t>(B_) * S_ * E_, T(0));
  for (int step = S_ - 1; step >= 0; --step) {
    const int j = d == 0 ? step : S_ - 1 - step;
    // Gradient reaching this step's output state: from the encoder output at j and from
    // the next step (carry).
    for (int b = 0; b < B_; ++b)
      for (int k = 0; k < H_; ++k)
        dh[static_cast<size_t>(b) * H_ + k] =
            carry[static_cast<size_t>(b) * H_ + k] + denc[(static_cast<size_t>(b) * S_ + j) * Ce_ + d * H_ + k];
    std::fill(carry.begin(), carry.end(), T(0));
    // A padded step copied h: its gradient goes straight to h_prev, none through the cell.
    dcell = dh;
    for (int b = 0; b < B_; ++b)
      if (batch_.src_pad.size() && batch_.src_pad[static_cast<size_t>(b) * S_ + j])
        for (int k = 0; k < H_; ++k) {
          carry[static_cast<size_t>(b) * H_ + k] += dh[static_cast<size_t>(b) * H_ + k];
          dcell[static_cast<size_t>(b) * H_ + k] = T(0);
        }
    for (int b = 0; b < B_; ++b)
      std::memcpy(&x[static_cast<size_t>(b) * E_], &src_x_[(static_cast<size_t>(b) * S_ + j) * E_], sizeof(T) * E_);
    std::fill(dx.begin(), dx.end(), T(0));
    gru_cell_backward<T>(dx.data(), carry.data(), enc_[d].grads(), dcell.data(), x.data(), enc_h_[d][step].data(),
                         enc_cache_[d][step], enc_[d].weights(), B_, E_, H_);
    for (int b = 0; b < B_; ++b)
      for (int k = 0; k < E_; ++k) dsrc[(static_cast<size_t>(b) * S_ + j) * E_ + k] += dx[static_cast<size_t>(b) * E_ + k];
  }
  embedding_backward<T>(embed_->g(), nullptr, dsrc.data(), batch_.src.data(), B_, S_, E_);
}

template <class T>
void GruSeq2Seq<T>::backward() {
  TFP_CHECK(B_ > 0, "gru seq2seq: backward before forward");
  std::vector<T> denc(static_cast<size_t>(B_) * S_ * Ce_, T(0)), dkeys(static_cast<size_t>(B_) * S_ * A_, T(0));
  std::vector<T> ds(static_cast<size_t>(B_) * D_, T(0));  // ∂L/∂s_{t+1}, carried backwards
  std::vector<T> dlg(static_cast<size_t>(B_) * V_), dout(static_cast<size_t>(B_) * (D_ + Ce_));
  std::vector<T> dctx(static_cast<size_t>(B_) * Ce_), dx(static_cast<size_t>(B_) * (E_ + Ce_));
  std::vector<T> ds_prev(static_cast<size_t>(B_) * D_), dq(static_cast<size_t>(B_) * A_);
  std::vector<T> demb(static_cast<size_t>(B_) * E_);
  for (int t = T_ - 1; t >= 0; --t) {
    for (int b = 0; b < B_; ++b)
      std::memcpy(&dlg[static_cast<size_t>(b) * V_], &dlogits_[(static_cast<size_t>(b) * T_ + t) * V_], sizeof(T) * V_);
    // logits_t = W_o [s_t ; c_t] + b_o
    std::fill(dout.begin(), dout.end(), T(0));
    linear_backward<T>(dout.data(), out_w_->g(), out_b_->g(), dlg.data(), o_[t].data(), out_w_->data(), B_, D_ + Ce_, V_);
    for (int b = 0; b < B_; ++b) {
      for (int k = 0; k < D_; ++k) ds[static_cast<size_t>(b) * D_ + k] += dout[static_cast<size_t>(b) * (D_ + Ce_) + k];
      for (int k = 0; k < Ce_; ++k) dctx[static_cast<size_t>(b) * Ce_ + k] = dout[static_cast<size_t>(b) * (D_ + Ce_) + D_ + k];
    }
    // s_t = GRU([E y ; c_t], s_{t−1})
    std::fill(dx.begin(), dx.end(), T(0));
    std::fill(ds_prev.begin(), ds_prev.end(), T(0));
    gru_cell_backward<T>(dx.data(), ds_prev.data(), dec_.grads(), ds.data(), x_[t].data(), s_[t].data(), dec_cache_[t],
                         dec_.weights(), B_, E_ + Ce_, D_);
    for (int b = 0; b < B_; ++b) {
      std::memcpy(&demb[static_cast<size_t>(b) * E_], &dx[static_cast<size_t>(b) * (E_ + Ce_)], sizeof(T) * E_);
      for (int k = 0; k < Ce_; ++k) dctx[static_cast<size_t>(b) * Ce_ + k] += dx[static_cast<size_t>(b) * (E_ + Ce_) + E_ + k];
    }
    std::vector<int> ids(static_cast<size_t>(B_));
    for (int b = 0; b < B_; ++b) ids[static_cast<size_t>(b)] = batch_.tgt[static_cast<size_t>(b) * T_ + t];
    embedding_backward<T>(embed_->g(), nullptr, demb.data(), ids.data(), B_, 1, E_);
    // c_t = attention(q_t = W_q s_{t−1} + b_q, keys, h)
    std::fill(dq.begin(), dq.end(), T(0));
    additive_step_backward<T>(dq.data(), dkeys.data(), denc.data(), v_->g(), dctx.data(), attn_[t], enc_out_.data(),
                              v_->data(), B_, S_, A_, Ce_);
    linear_backward<T>(ds_prev.data(), q_w_->g(), q_b_->g(), dq.data(), s_[t].data(), q_w_->data(), B_, D_, A_);
    ds.swap(ds_prev);  // now ∂L/∂s_t for the previous step
  }
  // s_0 = tanh(W_b · summary + b_b)
  for (size_t i = 0; i < ds.size(); ++i) ds[i] *= T(1) - s_[0][i] * s_[0][i];
  std::vector<T> dsum(static_cast<size_t>(B_) * H_, T(0));
  linear_backward<T>(dsum.data(), bridge_w_->g(), bridge_b_->g(), ds.data(), summary_.data(), bridge_w_->data(), B_, H_, D_);
  for (int b = 0; b < B_; ++b) {
    const int j = ndir_ == 2 ? 0 : S_ - 1;
    for (int k = 0; k < H_; ++k)
      denc[(static_cast<size_t>(b) * S_ + j) * Ce_ + (ndir_ - 1) * H_ + k] += dsum[static_cast<size_t>(b) * H_ + k];
  }
  // keys = U·h
  linear_backward<T>(denc.data(), k_w_->g(), nullptr, dkeys.data(), enc_out_.data(), k_w_->data(), B_ * S_, Ce_, A_);
  for (int d = 0; d < ndir_; ++d) encoder_direction_backward(d, denc);
}

template <class T>
std::vector<T> GruSeq2Seq<T>::attention() const {
  std::vector<T> out(static_cast<size_t>(B_) * T_ * S_);
  for (int b = 0; b < B_; ++b)
    for (int t = 0; t < T_; ++t)
      std::memcpy(&out[(static_cast<size_t>(b) * T_ + t) * S_], &attn_[t].probs[static_cast<size_t>(b) * S_], sizeof(T) * S_);
  return out;
}

template class GruSeq2Seq<float>;
template class GruSeq2Seq<double>;

}  // namespace tfp::train
