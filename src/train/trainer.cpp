#include "train/trainer.h"

#include <cmath>

#include <nlohmann/json.hpp>

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
  c.vocab_size = Task::vocab_size();
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

Trainer::Trainer(const TrainerOptions& opt)
    : opt_(opt),
      task_(opt.task, opt.seed, opt.task_size),
      model_(toy_model_config(opt, task_)),
      adamw_(AdamWConfig{0.9, 0.98, 1e-9, opt.weight_decay}),
      data_rng_(Rng::stream(opt.seed, /*label "train data"*/ 2)) {
  TFP_CHECK(opt.batch > 0 && opt.steps > 0, "trainer: batch and steps must be positive");
  model_.init(opt.seed);
  schedule_.peak = opt.lr;
  schedule_.floor = opt.min_lr;
  schedule_.warmup = opt.warmup;
  schedule_.total = opt.steps;
  schedule_.decay = opt.decay;
  Rng eval_rng = Rng::stream(opt.seed, /*label "held-out data"*/ 3);
  for (int i = 0; i < opt.eval_examples; ++i) held_out_.push_back(task_.sample(eval_rng, true));
}

StepStats Trainer::step() {
  std::vector<Example> ex;
  for (int i = 0; i < opt_.batch; ++i) ex.push_back(task_.sample(data_rng_, false));
  last_ = task_.encode(ex, opt_.architecture);
  model_.params.zero_grad();
  LossOptions lo;
  lo.label_smoothing = opt_.label_smoothing;
  const CrossEntropyResult r = model_.forward(last_, lo);
  model_.backward();
  StepStats s;
  s.grad_norm = clip_grad_norm(model_.params, opt_.clip);
  s.lr = schedule_.at(steps_done_);
  adamw_.step(model_.params, s.lr);
  s.step = ++steps_done_;
  s.loss = r.loss;
  s.tokens = r.valid;
  s.token_accuracy = r.valid ? double(r.correct) / r.valid : 0.0;
  return s;
}

void Trainer::set_lr(double lr) {
  TFP_CHECK(std::isfinite(lr) && lr > 0, "trainer: the learning rate must be positive, got ", lr);
  opt_.lr = schedule_.peak = lr;
  opt_.min_lr = schedule_.floor = lr / 10;
}

EvalStats Trainer::evaluate() {
  EvalStats e;
  const int V = Task::vocab_size(), chunk = 128;
  long graded = 0, correct_tokens = 0, correct_seqs = 0;
  double loss_sum = 0;
  for (size_t start = 0; start < held_out_.size(); start += chunk) {
    const size_t end = std::min(held_out_.size(), start + chunk);
    std::vector<Example> ex(held_out_.begin() + start, held_out_.begin() + end);
    last_ = task_.encode(ex, opt_.architecture);
    const CrossEntropyResult r = model_.forward(last_, {});
    loss_sum += r.loss * r.valid;
    graded += r.valid;
    correct_tokens += r.correct;
    const std::vector<float>& logits = model_.logits();
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
  const int V = Task::vocab_size();
  const bool encdec = opt_.architecture == model::Architecture::encoder_decoder;
  std::string answer;
  const int limit = task_.max_answer_len() + 1;
  for (int step = 0; step < limit; ++step) {
    // Re-run the whole prefix each token: simple, and these sequences are short.
    Batch b;
    b.B = 1;
    std::string in = encdec ? std::string(1, task_.separator()) + answer
                            : prompt + task_.separator() + answer;
    b.T = static_cast<int>(in.size());
    for (char c : in) b.tgt.push_back(Task::token(c));
    b.targets.assign(in.size(), -100);
    if (encdec) {
      b.S = static_cast<int>(prompt.size());
      for (char c : prompt) b.src.push_back(Task::token(c));
    }
    model_.forward(b, {});
    const float* z = model_.logits().data() + static_cast<size_t>(b.T - 1) * V;
    const int next = static_cast<int>(std::max_element(z, z + V) - z);
    last_ = std::move(b);
    if (next == Task::kEnd) break;
    answer += Task::character(next);
  }
  return answer;
}

void Trainer::inspect(const Example& e) {
  last_ = task_.encode({e}, opt_.architecture);
  model_.forward(last_, {});
}

AttentionMap Trainer::attention(int kind, int layer, int head, int b) const {
  const std::vector<float>& p = model_.attention_probs(kind, layer);
  const int H = opt_.n_heads;
  TFP_CHECK(head >= 0 && head < H, "attention: head ", head, " of ", H);
  TFP_CHECK(b >= 0 && b < last_.B, "attention: example ", b, " of the last batch of ", last_.B);
  AttentionMap m;
  const bool q_src = kind == 2, k_src = kind != 0;
  m.Tq = q_src ? last_.S : last_.T;
  m.Tk = k_src ? last_.S : last_.T;
  const size_t off = ((static_cast<size_t>(b) * H + head) * m.Tq) * m.Tk;
  m.probs.assign(p.begin() + off, p.begin() + off + static_cast<size_t>(m.Tq) * m.Tk);
  for (int t = 0; t < m.Tq; ++t)
    m.queries += Task::character(q_src ? last_.src[b * last_.S + t] : last_.tgt[b * last_.T + t]);
  for (int t = 0; t < m.Tk; ++t)
    m.keys += Task::character(k_src ? last_.src[b * last_.S + t] : last_.tgt[b * last_.T + t]);
  return m;
}

std::string Trainer::config_json() const {
  // The engine's config plus the end mark as eos_token_id, so generation stops there.
  nlohmann::json j = nlohmann::json::parse(model::config_to_json(model_.config()));
  j["eos_token_id"] = Task::kEnd;
  return j.dump(2);
}

std::vector<uint8_t> Trainer::safetensors() const {
  return model::save_weights_by_role(model_.config(), model_.weights());
}

std::string Trainer::tokenizer_json() const {
  // Our Char tokenizer format (tokenizer/char_model.h): one token per character.
  nlohmann::json vocab = nlohmann::json::object();
  for (int i = 0; i < Task::vocab_size(); ++i) vocab[std::string(1, Task::character(i))] = i;
  nlohmann::json j = {{"version", "1.0"},
                      {"added_tokens", nlohmann::json::array()},
                      {"normalizer", nullptr},
                      {"pre_tokenizer", nullptr},
                      {"post_processor", nullptr},
                      {"decoder", nullptr},
                      {"model", {{"type", "Char"}, {"vocab", vocab}, {"unk_token", nullptr}}}};
  return j.dump(2);
}

}  // namespace tfp::train
