// See seq_dates_transformer.h.
#include "train/seq_dates_transformer.h"

#include <algorithm>
#include <iomanip>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "model/beam.h"
#include "model/config_json.h"
#include "model/model.h"
#include "train/seq_dates.h"
#include "train/train_loop.h"
#include "train/train_model.h"

namespace tfp::train {

NumbersRunOptions dates_defaults() {
  NumbersRunOptions o;
  o.steps = 4000;
  o.d_model = 64, o.n_heads = 4, o.n_layers = 2, o.d_ff = 256;
  o.batch = 64;
  o.eval_examples = 1000;
  o.eval_every = 250;
  o.f16 = true;
  return o;
}

namespace {

double teacher_forced_exact(TrainModel<float>& m, const std::vector<DateExample>& set) {
  const int V = DatesTask::vocab_size(), chunk = 125;
  long ok = 0;
  for (size_t start = 0; start < set.size(); start += chunk) {
    const std::vector<DateExample> ex(set.begin() + start, set.begin() + std::min(set.size(), start + chunk));
    const Batch b = DatesTask::encode(ex);
    m.forward(b, {});
    for (int i = 0; i < b.B; ++i) {
      bool all = true;
      for (int t = 0; t < b.T && all; ++t) {
        const int y = b.targets[static_cast<size_t>(i) * b.T + t];
        const float* z = m.logits().data() + (static_cast<size_t>(i) * b.T + t) * V;
        all = std::max_element(z, z + V) - z == y;
      }
      ok += all;
    }
  }
  return set.empty() ? 0 : double(ok) / set.size();
}

}  // namespace

DatesEval evaluate_dates_model(const std::string& dir, int n, uint64_t seed, std::ostream& log) {
  const DatesTask task(seed);
  const std::vector<DateExample> set = task.held_out_set(n);
  const model::LoadedModel lm = model::load_model_dir(dir);
  model::DecodeOptions dopt;
  dopt.start_id = DatesTask::kStart;
  dopt.eos_id = DatesTask::kEnd;
  dopt.max_tokens = DatesTask::kMaxTarget + 1;
  DatesEval ev;
  ev.exact_by_form.assign(kDateForms, 0);
  ev.count_by_form.assign(kDateForms, 0);
  for (size_t i = 0; i < set.size(); ++i) {
    const DateExample& e = set[i];
    const std::vector<int32_t> src = lm.tokenizer->encode(e.source).ids;
    const model::Translation t = model::decode_seq2seq(lm.config(), lm.weights(), src, dopt);
    const std::string got = DatesTask::decode_ids(t.ids);
    const int f = static_cast<int>(e.form);
    ++ev.examples, ++ev.count_by_form[f];
    if (got == e.target) ++ev.exact, ++ev.exact_by_form[f];
    else if (ev.examples - ev.exact <= 10) log << "  WRONG \"" << e.source << "\" -> " << got << ", expected " << e.target << "\n";
    if (i < 4) {  // for each output character, the most-attended source character
      const int S = static_cast<int>(t.alignment.shape[1]);
      const std::vector<int> ids = DatesTask::encode_text(e.source);
      log << "  \"" << e.source << "\" -> " << got << "\n     ";
      for (size_t r = 0; r < got.size() && r < static_cast<size_t>(t.alignment.shape[0]); ++r) {
        const float* row = t.alignment.data.data() + r * S;
        const int s = static_cast<int>(std::max_element(row, row + S) - row);
        log << " " << got[r] << "<-" << DatesTask::vocab()[static_cast<size_t>(ids[static_cast<size_t>(s)])] << "@" << s;
      }
      log << "\n";
    }
  }
  return ev;
}

NumbersRunResult run_dates_training(const NumbersRunOptions& o, std::ostream& log) {
  check_numbers_options(o, "dates");
  const DatesTask task(o.seed);
  model::ModelConfig cfg = numbers_transformer_config(o);
  cfg.vocab_size = DatesTask::vocab_size();
  cfg.max_positions = DatesTask::kMaxSource;
  TrainModel<float> m(cfg);
  m.init(o.seed);
  TrainLoop loop(m.params, numbers_loop_options(o));
  Rng data_rng = Rng::stream(o.seed, /*label "train dates"*/ 12);
  const std::vector<DateExample> held_out = task.held_out_set(o.eval_examples);

  NumbersRunResult res;
  res.parameters = m.params.num_elements();
  log << "dates: encoder-decoder, d_model " << o.d_model << ", " << o.n_layers << "+" << o.n_layers << " layers, "
      << o.n_heads << " heads, d_ff " << o.d_ff << ", " << res.parameters << " parameters, batch " << o.batch << ", "
      << o.steps << " steps, seed " << o.seed << "\n";
  Batch b;
  LoopHooks h;
  h.forward = [&] {
    std::vector<DateExample> ex;
    for (int i = 0; i < o.batch; ++i) ex.push_back(task.sample(data_rng, false));
    b = DatesTask::encode(ex);
    return m.forward(b, {});
  };
  h.backward = [&] { m.backward(); };
  h.evaluate = [&](const LoopState& st) {
    res.held_out_exact = teacher_forced_exact(m, held_out);
    log << "step " << std::setw(5) << st.step << "  loss " << std::fixed << std::setprecision(4) << st.smoothed_loss
        << "  held-out exact " << res.held_out_exact << "  (" << std::setprecision(1) << st.wall_seconds << " s, cpu "
        << st.cpu_seconds << " s)" << std::endl;
  };
  if (!o.out_dir.empty())
    h.checkpoint = [&](const LoopState& st) {
      if (!st.last) return;
      nlohmann::json cj = nlohmann::json::parse(model::config_to_json(m.config()));
      cj["eos_token_id"] = DatesTask::kEnd;
      cj["decoder_start_token_id"] = DatesTask::kStart;
      cj["pad_token_id"] = DatesTask::kPad;
      const io::DType dtype = o.f16 ? io::DType::F16 : io::DType::F32;
      model::save_model_dir(o.out_dir, cj.dump(2), model::save_weights_by_role(m.config(), m.weights(), dtype),
                            DatesTask::tokenizer_json());
      log << "wrote " << o.out_dir << "/{config.json,model.safetensors,tokenizer.json}\n";
    };
  const LoopState& done = loop.run(h);
  res.seconds = done.wall_seconds;
  res.cpu_seconds = done.cpu_seconds;
  if (o.out_dir.empty()) return res;

  const DatesEval ev = evaluate_dates_model(o.out_dir, o.eval_examples, o.seed, log);
  res.engine_greedy_exact = double(ev.exact) / ev.examples;
  log << "engine greedy decode of the exported files: exact match " << std::setprecision(4) << res.engine_greedy_exact
      << " (" << ev.exact << " / " << ev.examples << ")\n";
  for (int f = 0; f < kDateForms; ++f)
    log << "  " << std::setw(22) << date_form_name(static_cast<DateForm>(f)) << "  " << ev.exact_by_form[f] << " / "
        << ev.count_by_form[f] << "\n";
  return res;
}

}  // namespace tfp::train
