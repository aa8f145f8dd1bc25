// See seq_numbers_transformer.h.
#include "train/seq_numbers_transformer.h"

#include <algorithm>
#include <iomanip>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "model/beam.h"
#include "model/config_json.h"
#include "model/model.h"
#include "train/seq_align.h"
#include "train/seq_numbers.h"
#include "train/train_loop.h"
#include "train/train_model.h"

namespace tfp::train {

model::ModelConfig numbers_transformer_config(const NumbersRunOptions& o) {
  model::ModelConfig c;
  c.architecture = model::Architecture::encoder_decoder;
  c.family = "tfp";
  c.d_model = o.d_model;
  c.n_heads = o.n_heads;
  c.d_ff = o.d_ff;
  c.n_encoder_layers = o.n_layers;
  c.n_decoder_layers = o.n_layers;
  c.vocab_size = NumbersTask::vocab_size();
  // One learned position table serves the source (up to 72 characters) and the decoder
  // input (start mark + up to 6 digits).
  c.max_positions = NumbersTask::kMaxSource;
  c.activation = nn::Activation::gelu_tanh;
  c.norm_first = true;
  c.encoder_final_norm = true;
  c.decoder_final_norm = true;
  c.tied_lm_head = true;
  return c;
}

namespace {

struct HeldOutStats {
  double loss = 0, token_accuracy = 0, exact = 0;
};

// Teacher-forced evaluation: a sequence is right when every graded argmax is right.
HeldOutStats evaluate(TrainModel<float>& m, const std::vector<NumberExample>& set) {
  const int V = NumbersTask::vocab_size(), chunk = 125;
  long graded = 0, tok_ok = 0, seq_ok = 0;
  double loss_sum = 0;
  for (size_t start = 0; start < set.size(); start += chunk) {
    const std::vector<NumberExample> ex(set.begin() + start, set.begin() + std::min(set.size(), start + chunk));
    const Batch b = NumbersTask::encode(ex);
    const CrossEntropyResult r = m.forward(b, {});
    loss_sum += r.loss * r.valid;
    graded += r.valid;
    tok_ok += r.correct;
    for (int i = 0; i < b.B; ++i) {
      bool all = true;
      for (int t = 0; t < b.T && all; ++t) {
        const int y = b.targets[static_cast<size_t>(i) * b.T + t];
        if (y < 0) continue;
        const float* z = m.logits().data() + (static_cast<size_t>(i) * b.T + t) * V;
        all = std::max_element(z, z + V) - z == y;
      }
      seq_ok += all;
    }
  }
  HeldOutStats s;
  s.loss = graded ? loss_sum / graded : 0;
  s.token_accuracy = graded ? double(tok_ok) / graded : 0;
  s.exact = set.empty() ? 0 : double(seq_ok) / set.size();
  return s;
}

std::string ids_to_text(const std::vector<int32_t>& ids) {
  std::string s;
  for (int32_t id : ids)
    if (id != NumbersTask::kEnd) s += NumbersTask::character(id);
  return s;
}

}  // namespace

LoopOptions numbers_loop_options(const NumbersRunOptions& o) {
  LoopOptions l;
  l.steps = o.steps;
  l.schedule.peak = o.lr;
  l.schedule.floor = o.min_lr;
  l.schedule.warmup = std::min(o.warmup, o.steps / 10 + 1);  // a tenth of a short run at most
  l.schedule.decay = Decay::Cosine;
  l.clip = 1.0;
  l.adamw = AdamWConfig{0.9, 0.98, 1e-9, 0.01};
  l.eval_every = o.eval_every;
  return l;
}

void check_numbers_options(const NumbersRunOptions& o, const char* recipe) {
  TFP_CHECK(o.steps > 0 && o.batch > 0 && o.eval_examples > 0, recipe,
            ": steps, batch and eval_examples must be positive");
}

NumbersRunResult run_numbers_training(const NumbersRunOptions& o, std::ostream& log) {
  check_numbers_options(o, "numbers-transformer");
  const NumbersTask task(o.seed);
  TrainModel<float> m(numbers_transformer_config(o));
  m.init(o.seed);
  TrainLoop loop(m.params, numbers_loop_options(o));
  Rng data_rng = Rng::stream(o.seed, /*label "train numbers"*/ 2);
  const std::vector<NumberExample> held_out = task.held_out_set(o.eval_examples);

  NumbersRunResult res;
  res.parameters = m.params.num_elements();
  log << "numbers-transformer: encoder-decoder, d_model " << o.d_model << ", " << o.n_layers << "+"
      << o.n_layers << " layers, " << o.n_heads << " heads, d_ff " << o.d_ff << ", " << res.parameters
      << " parameters, batch " << o.batch << ", " << o.steps << " steps, seed " << o.seed << "\n";
  Batch b;
  LoopHooks h;
  h.forward = [&] {
    std::vector<NumberExample> ex;
    for (int i = 0; i < o.batch; ++i) ex.push_back(task.sample(data_rng, false));
    b = NumbersTask::encode(ex);
    return m.forward(b, {});
  };
  h.backward = [&] { m.backward(); };
  h.evaluate = [&](const LoopState& st) {
    const HeldOutStats e = evaluate(m, held_out);
    log << "step " << std::setw(5) << st.step << "  loss " << std::fixed << std::setprecision(4) << st.smoothed_loss
        << "  held-out loss " << e.loss << "  token acc " << std::setprecision(4) << e.token_accuracy
        << "  exact " << e.exact << "  (" << std::setprecision(1) << st.wall_seconds << " s, cpu "
        << st.cpu_seconds << " s)" << std::endl;
    res.held_out_exact = e.exact;
  };
  if (!o.out_dir.empty())
    h.checkpoint = [&](const LoopState& st) {
      if (!st.last) return;
      nlohmann::json cfg = nlohmann::json::parse(model::config_to_json(m.config()));
      cfg["eos_token_id"] = NumbersTask::kEnd;
      cfg["decoder_start_token_id"] = NumbersTask::kStart;
      cfg["pad_token_id"] = NumbersTask::kPad;
      model::save_model_dir(
          o.out_dir, cfg.dump(2),
          model::save_weights_by_role(m.config(), m.weights(), o.f16 ? io::DType::F16 : io::DType::F32),
          NumbersTask::tokenizer_json());
      log << "wrote " << o.out_dir << "/{config.json,model.safetensors,tokenizer.json}\n";
    };
  const LoopState& done = loop.run(h);
  res.seconds = done.wall_seconds;
  res.cpu_seconds = done.cpu_seconds;
  if (o.out_dir.empty()) return res;

  // Check the exported files with the engine itself.
  const model::LoadedModel lm = model::load_model_dir(o.out_dir);
  model::DecodeOptions dopt;
  dopt.start_id = NumbersTask::kStart;
  dopt.eos_id = NumbersTask::kEnd;
  dopt.max_tokens = NumbersTask::kMaxTarget + 1;
  int ok = 0;
  AlignmentScore align;
  for (size_t i = 0; i < held_out.size(); ++i) {
    const NumberExample& e = held_out[i];
    const std::vector<int32_t> src = lm.tokenizer->encode(e.source).ids;
    const model::Translation t = model::decode_seq2seq(lm.config(), lm.weights(), src, dopt);
    const std::string got = ids_to_text(t.ids);
    ok += got == e.target;
    if (got == e.target) {
      score_alignment(align, e.source, t.alignment.data.data(), static_cast<int>(t.alignment.shape[0]),
                      static_cast<int>(t.alignment.shape[1]));
    }
    if (i < 6)
      log << "  \"" << e.source << "\" -> " << got << (got == e.target ? "" : "  WRONG, expected " + e.target)
          << "\n      " << alignment_line(e.source, got, t.alignment.data.data(), static_cast<int>(src.size()))
          << "\n";
  }
  res.engine_greedy_exact = double(ok) / held_out.size();
  log << "engine greedy decode of the exported files: exact match " << std::setprecision(4)
      << res.engine_greedy_exact << " on " << held_out.size() << " held-out examples\n"
      << "cross-attention alignment (last layer, mean of heads): the most-attended word is the gold word for "
      << align.correct << " of " << align.graded << " digits ("
      << (align.graded ? 100.0 * align.correct / align.graded : 0.0) << "%)\n";
  return res;
}

}  // namespace tfp::train
