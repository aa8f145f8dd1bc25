#include "train/trainer.h"

#include <cmath>

#include <nlohmann/json.hpp>

#include "io/safetensors.h"
#include "model/config_json.h"
#include "model/model.h"

namespace tfp::train {

model::ModelConfig toy_model_config(const TrainerOptions& opt, const Task& task) {
  model::ModelConfig c;
  c.architecture = opt.architecture;
  c.family = "tfp";
  c.d_model = opt.d_model;
  c.n_heads = opt.n_heads;
  c.d_ff = opt.d_ff;
  c.vocab_size = task.n_tokens();
  c.max_positions = task.context_len(opt.architecture);
  c.positional = opt.positional;
  const bool encdec = opt.architecture == model::Architecture::encoder_decoder;
  c.n_decoder_layers = opt.n_layers;
  c.n_encoder_layers = encdec ? opt.n_layers : 0;
  c.activation = opt.activation;
  c.norm_first = opt.norm_first;
  // Pre-LN stacks end with a LayerNorm (GPT-2 ln_f, nn.Transformer's norms); post-LN
  // stacks are already normalised.
  c.decoder_final_norm = opt.norm_first;
  c.encoder_final_norm = opt.norm_first && encdec;
  c.tied_lm_head = true;
  return c;
}

model::GruSeq2SeqConfig toy_gru_config(const TrainerOptions& opt, const Task& task) {
  model::GruSeq2SeqConfig c;
  c.vocab_size = task.n_tokens();
  c.embed_dim = opt.d_model;
  c.encoder_hidden = opt.d_model;
  c.bidirectional = true;
  c.decoder_hidden = 2 * static_cast<int64_t>(opt.d_model);
  c.attention_dim = opt.d_model;
  // As the Transformers' context (Task::context_len): the longer of the prompt and the
  // answer with its end mark, so a reader's decoding capacity sized by it fits the answer.
  c.max_source_positions = task.context_len(model::Architecture::encoder_decoder);
  c.max_target_tokens = task.max_answer_len() + 1;
  c.eos_token_id = Task::kEnd;
  c.decoder_start_token_id = task.separator_id();  // the decoder input starts with it
  c.pad_token_id = Task::kPad;
  model::check_gru_config(c);
  return c;
}

Trainer::Trainer(const TrainerOptions& opt)
    : opt_(opt),
      task_(opt.task, opt.seed, opt.task_size),
      data_rng_(Rng::stream(opt.seed, /*label "train data"*/ 2)),
      dropout_rng_(Rng::stream(opt.seed, /*label "dropout"*/ 4)) {
  const std::string why = options_error(opt, [](std::string_view key) { return std::string(key); });
  TFP_CHECK(why.empty(), "trainer: ", why);
  if (opt.recurrent) {
    TFP_CHECK(opt.architecture == model::Architecture::encoder_decoder,
              "trainer: the GRU with additive attention is an encoder-decoder");
    gru_config_ = toy_gru_config(opt, task_);
    gru_ = std::make_unique<GruSeq2Seq<float>>(gru_config_);
    gru_->init(opt.seed);
    config_.architecture = model::Architecture::encoder_decoder;
    config_.family = "tfp_gru_seq2seq";
    config_.d_model = opt.d_model;
    config_.n_heads = 1;
    config_.n_decoder_layers = 1;
    config_.n_encoder_layers = 0;
    config_.vocab_size = task_.n_tokens();
    config_.max_positions = task_.context_len(opt.architecture);
  } else {
    config_ = toy_model_config(opt, task_);
    tf_ = std::make_unique<TrainModel<float>>(config_);
    tf_->init(opt.seed);
  }
  LoopOptions lo;
  lo.steps = opt.steps;
  lo.schedule.peak = opt.lr;
  lo.schedule.floor = opt.min_lr;
  lo.schedule.warmup = opt.warmup;
  lo.schedule.decay = opt.decay;
  lo.clip = opt.clip;
  lo.adamw = AdamWConfig{0.9, 0.98, 1e-9, opt.weight_decay};
  lo.eval_every = opt.eval_every;
  loop_ = std::make_unique<TrainLoop>(params(), lo);
  hooks_.forward = [this] {
    std::vector<Example> ex;
    for (int i = 0; i < opt_.batch; ++i) ex.push_back(task_.sample(data_rng_, false));
    last_ = task_.encode(ex, opt_.architecture);
    LossOptions lo;
    lo.label_smoothing = opt_.label_smoothing;
    // Dropout in training steps only; evaluate(), generate() and inspect() pass none.
    Dropout dropout;
    if (opt_.dropout > 0) dropout = {opt_.dropout, dropout_rng_.next_u64()};
    return forward(last_, lo, dropout);
  };
  hooks_.backward = [this] { gru_ ? gru_->backward() : tf_->backward(); };
  Rng eval_rng = Rng::stream(opt.seed, /*label "held-out data"*/ 3);
  for (int i = 0; i < opt.eval_examples; ++i) held_out_.push_back(task_.sample(eval_rng, true));
}

TrainModel<float>& Trainer::model() {
  TFP_CHECK(tf_ != nullptr, "trainer: a recurrent trainer has no Transformer model");
  return *tf_;
}

CrossEntropyResult Trainer::forward(const Batch& b, const LossOptions& lo, const Dropout& dropout) {
  return gru_ ? gru_->forward(b, lo.label_smoothing) : tf_->forward(b, lo, dropout);
}

StepStats Trainer::step() {
  const LoopState& l = loop_->step(hooks_);
  StepStats s;
  s.step = l.step;
  s.lr = l.lr;
  s.grad_norm = l.grad_norm;
  s.loss = l.loss.loss;
  s.tokens = l.loss.valid;
  s.token_accuracy = l.loss.valid ? double(l.loss.correct) / l.loss.valid : 0.0;
  return s;
}

const LoopState& Trainer::train(int until, const std::function<void(const LoopState&)>& on_eval) {
  LoopHooks h = hooks_;
  h.evaluate = on_eval;
  return loop_->run(h, until);
}

void Trainer::set_lr(double lr) {
  TFP_CHECK(std::isfinite(lr) && lr > 0, "trainer: the learning rate must be positive, got ", lr);
  set_peak_lr(opt_, lr);
  loop_->set_lr(opt_.lr, opt_.min_lr);
}

EvalStats Trainer::evaluate() {
  EvalStats e;
  const int V = task_.n_tokens(), chunk = 128;
  long graded = 0, correct_tokens = 0, correct_seqs = 0;
  double loss_sum = 0;
  for (size_t start = 0; start < held_out_.size(); start += chunk) {
    const size_t end = std::min(held_out_.size(), start + chunk);
    std::vector<Example> ex(held_out_.begin() + start, held_out_.begin() + end);
    last_ = task_.encode(ex, opt_.architecture);
    const CrossEntropyResult r = forward(last_, {});
    loss_sum += r.loss * r.valid;
    graded += r.valid;
    correct_tokens += r.correct;
    const std::vector<float>& logits = this->logits();
    for (int b = 0; b < last_.B; ++b) {
      bool all = true;
      for (int t = 0; t < last_.T && all; ++t) {
        const int y = last_.targets[b * last_.T + t];
        if (y < 0) continue;
        const float* z = logits.data() + (static_cast<size_t>(b) * last_.T + t) * V;
        all = std::max_element(z, z + V) - z == y;
      }
      correct_seqs += all;
    }
  }
  e.examples = static_cast<int>(held_out_.size());
  e.loss = graded ? loss_sum / graded : 0;
  e.token_accuracy = graded ? double(correct_tokens) / graded : 0;
  e.sequence_accuracy = e.examples ? double(correct_seqs) / e.examples : 0;
  return e;
}

std::string Trainer::generate(const std::string& prompt) {
  const int V = task_.n_tokens();
  const bool encdec = opt_.architecture == model::Architecture::encoder_decoder;
  const std::vector<int> source = task_.tokenize(prompt);
  std::vector<int> answer_ids;
  std::string answer;
  // Induction's repeat is as long as the prompt (no end mark): its first letter given, the rest generated.
  const int limit = task_.has_separator() ? task_.max_answer_len() + 1 : static_cast<int>(source.size()) - 1;
  for (int step = 0; step < limit; ++step) {
    // Re-run the whole prefix each token: simple, and these sequences are short.
    Batch b;
    b.B = 1;
    if (!encdec) b.tgt = source;
    // The answer starts after the separator; induction's repeat is given its first letter.
    if (task_.has_separator()) b.tgt.push_back(task_.separator_id());
    else if (step == 0 && !source.empty()) answer_ids.push_back(source[0]), answer += task_.piece(source[0]);
    b.tgt.insert(b.tgt.end(), answer_ids.begin(), answer_ids.end());
    b.T = static_cast<int>(b.tgt.size());
    b.targets.assign(b.tgt.size(), -100);
    if (encdec) {
      b.S = static_cast<int>(source.size());
      b.src = source;
    }
    forward(b, {});
    const float* z = logits().data() + static_cast<size_t>(b.T - 1) * V;
    const int next = static_cast<int>(std::max_element(z, z + V) - z);
    last_ = std::move(b);
    if (next == Task::kEnd) break;
    answer_ids.push_back(next);
    answer += task_.piece(next);
  }
  return answer;
}

void Trainer::inspect(const Example& e) {
  last_ = task_.encode({e}, opt_.architecture);
  forward(last_, {});
}

AttentionMap Trainer::attention(int kind, int layer, int head, int b) const {
  // The GRU's one map is its additive attention, (B, T, S): decoder steps × source.
  if (gru_)
    TFP_CHECK(kind == 1 && layer == 0 && head == 0,
              "attention: the recurrent model has one map, its additive attention (kind 1, layer 0, head 0)");
  const std::vector<float> gru_probs = gru_ ? gru_->attention() : std::vector<float>{};
  const std::vector<float>& p = gru_ ? gru_probs : tf_->attention_probs(kind, layer);
  const int H = gru_ ? 1 : opt_.n_heads;
  TFP_CHECK(head >= 0 && head < H, "attention: head ", head, " of ", H);
  TFP_CHECK(b >= 0 && b < last_.B, "attention: example ", b, " of the last batch of ", last_.B);
  AttentionMap m;
  const bool q_src = kind == 2, k_src = kind != 0;
  m.Tq = q_src ? last_.S : last_.T;
  m.Tk = k_src ? last_.S : last_.T;
  const size_t off = ((static_cast<size_t>(b) * H + head) * m.Tq) * m.Tk;
  m.probs.assign(p.begin() + off, p.begin() + off + static_cast<size_t>(m.Tq) * m.Tk);
  for (int t = 0; t < m.Tq; ++t)
    m.queries += task_.piece(q_src ? last_.src[b * last_.S + t] : last_.tgt[b * last_.T + t]);
  for (int t = 0; t < m.Tk; ++t)
    m.keys += task_.piece(k_src ? last_.src[b * last_.S + t] : last_.tgt[b * last_.T + t]);
  return m;
}

std::string Trainer::config_json() const {
  if (gru_) return model::gru_config_to_json(gru_config_);  // eos and start tokens included
  // The engine's config plus the end mark as eos_token_id, so generation stops there;
  // an encoder-decoder also names its decoder start (the separator, as the decoder input
  // starts with it) and padding, so `tfp generate DIR --prompt ...` decodes as trained.
  nlohmann::json j = nlohmann::json::parse(model::config_to_json(tf_->config()));
  j["eos_token_id"] = Task::kEnd;
  if (tf_->config().architecture == model::Architecture::encoder_decoder) {
    j["decoder_start_token_id"] = task_.separator_id();
    j["pad_token_id"] = Task::kPad;
  }
  return j.dump(2);
}

std::vector<uint8_t> Trainer::safetensors() const {
  if (gru_) {
    // The parameters carry the layout's names (model/gru_seq2seq.h), as numbers-gru writes them.
    io::SafeTensorsWriter w;
    w.set_metadata("format", "tfp_gru_seq2seq");
    for (const Param<float>& p : gru_->params) w.add_f32(p.name, p.shape, p.value.data());
    return w.finish();
  }
  return model::save_weights_by_role(tf_->config(), tf_->weights());
}

std::string Trainer::tokenizer_json() const {
  // Our Char tokenizer format (tokenizer/char_model.h): one token per character; the Fuse
  // decoder joins decoded tokens without spaces ("3141", not "3 1 4 1"), as numbers-gru's.
  nlohmann::json vocab = nlohmann::json::object();
  for (int i = 0; i < task_.n_tokens(); ++i) vocab[task_.piece(i)] = i;
  nlohmann::json j = {{"version", "1.0"},
                      {"added_tokens", nlohmann::json::array()},
                      {"normalizer", nullptr},
                      {"pre_tokenizer", nullptr},
                      {"post_processor", nullptr},
                      {"decoder", {{"type", "Fuse"}}},
                      {"model", {{"type", "Char"}, {"vocab", vocab}, {"unk_token", nullptr}}}};
  return j.dump(2);
}

}  // namespace tfp::train
