// See seq_numbers_gru.h.
#include "train/seq_numbers_gru.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <iomanip>

#include "io/safetensors.h"
#include "model/gru_seq2seq.h"
#include "model/model.h"
#include "train/lr_schedule.h"
#include "train/optimizer.h"
#include "train/seq_align.h"
#include "train/seq_gru_model.h"
#include "train/seq_numbers.h"
#include "train/train_step.h"

namespace tfp::train {

namespace {
const char* usage() {
  return "usage: train numbers-gru [--steps N] [--seed S] [--out DIR] [--batch B] [--embed E]\n"
         "                 [--hidden H] [--dec-hidden D] [--attn A] [--unidirectional] [--lr X]\n"
         "                 [--eval N] [--eval-every K] [--f16]\n";
}
}  // namespace

NumbersGruOptions parse_numbers_gru_args(const std::vector<std::string>& args) {
  NumbersGruOptions o;
  auto number = [&](size_t& i) -> double {
    TFP_CHECK(i + 1 < args.size(), "numbers-gru: ", args[i], " needs a value\n", usage());
    const std::string& v = args[++i];
    size_t used = 0;
    double x = 0;
    try {
      x = std::stod(v, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    TFP_CHECK(used == v.size() && !v.empty(), "numbers-gru: ", args[i - 1], " expects a number, got \"", v, "\"");
    return x;
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--steps") o.steps = static_cast<int>(number(i));
    else if (a == "--seed") o.seed = static_cast<uint64_t>(number(i));
    else if (a == "--batch") o.batch = static_cast<int>(number(i));
    else if (a == "--embed") o.embed = static_cast<int>(number(i));
    else if (a == "--hidden") o.hidden = static_cast<int>(number(i));
    else if (a == "--dec-hidden") o.dec_hidden = static_cast<int>(number(i));
    else if (a == "--attn") o.attn = static_cast<int>(number(i));
    else if (a == "--lr") o.lr = number(i), o.min_lr = o.lr / 20;
    else if (a == "--eval") o.eval_examples = static_cast<int>(number(i));
    else if (a == "--eval-every") o.eval_every = static_cast<int>(number(i));
    else if (a == "--unidirectional") o.bidirectional = false;
    else if (a == "--f16") o.f16 = true;
    else if (a == "--out") {
      TFP_CHECK(i + 1 < args.size(), "numbers-gru: --out needs a value\n", usage());
      o.out_dir = args[++i];
    } else {
      TFP_FAIL("numbers-gru: unknown option \"", a, "\"\n", usage());
    }
  }
  TFP_CHECK(o.steps > 0 && o.batch > 0 && o.eval_examples > 0, "numbers-gru: --steps, --batch and --eval must be positive");
  o.warmup = std::min(o.warmup, o.steps / 10 + 1);
  return o;
}

NumbersGruResult run_numbers_gru_training(const NumbersGruOptions& o, std::ostream& log) {
  using clock = std::chrono::steady_clock;
  const NumbersTask task(o.seed);
  const model::GruSeq2SeqConfig cfg = numbers_gru_config(o.embed, o.hidden, o.dec_hidden, o.attn, o.bidirectional);
  GruSeq2Seq<float> m(cfg);
  m.init(o.seed);
  AdamW adamw(AdamWConfig{0.9, 0.999, 1e-8, 0.0});
  LrSchedule sched;
  sched.peak = o.lr, sched.floor = o.min_lr, sched.warmup = o.warmup, sched.total = o.steps;
  Rng data_rng = Rng::stream(o.seed, /*label "train numbers"*/ 2);
  const std::vector<NumberExample> held_out = task.held_out_set(o.eval_examples);
  NumbersGruResult res;
  res.parameters = m.params.num_elements();
  log << "numbers-gru: " << (o.bidirectional ? "bidirectional" : "unidirectional") << " GRU encoder " << o.hidden
      << ", GRU decoder " << o.dec_hidden << ", additive attention " << o.attn << ", embeddings " << o.embed << ", "
      << res.parameters << " parameters, batch " << o.batch << ", " << o.steps << " steps, seed " << o.seed << "\n";
  auto evaluate = [&]() {
    const int V = NumbersTask::vocab_size();
    long ok = 0;
    for (size_t start = 0; start < held_out.size(); start += 125) {
      const std::vector<NumberExample> ex(held_out.begin() + start, held_out.begin() + std::min(held_out.size(), start + 125));
      const Batch b = NumbersTask::encode(ex);
      m.forward(b);
      for (int i = 0; i < b.B; ++i) {
        bool all = true;
        for (int t = 0; t < b.T && all; ++t) {
          const int y = b.targets[static_cast<size_t>(i) * b.T + t];
          if (y < 0) continue;
          const float* z = m.logits().data() + (static_cast<size_t>(i) * b.T + t) * V;
          all = std::max_element(z, z + V) - z == y;
        }
        ok += all;
      }
    }
    return double(ok) / held_out.size();
  };
  double loss_avg = 0;
  for (int s = 0; s < o.steps; ++s) {
    const auto t0 = clock::now();
    const std::clock_t c0 = std::clock();
    std::vector<NumberExample> ex;
    for (int i = 0; i < o.batch; ++i) ex.push_back(task.sample(data_rng, false));
    const Batch b = NumbersTask::encode(ex);
    const CrossEntropyResult r =
        optimisation_step(m.params, adamw, sched.at(s), 1.0, [&] { return m.forward(b); }, [&] { m.backward(); }).loss;
    res.cpu_seconds += double(std::clock() - c0) / CLOCKS_PER_SEC;
    res.seconds += std::chrono::duration<double>(clock::now() - t0).count();
    loss_avg = s == 0 ? r.loss : 0.95 * loss_avg + 0.05 * r.loss;
    if (s + 1 == o.steps || (o.eval_every > 0 && (s + 1) % o.eval_every == 0)) {
      res.held_out_exact = evaluate();
      log << "step " << std::setw(5) << s + 1 << "  loss " << std::fixed << std::setprecision(4) << loss_avg
          << "  held-out exact " << res.held_out_exact << "  (" << std::setprecision(1) << res.seconds << " s, cpu "
          << res.cpu_seconds << " s)" << std::endl;
    }
  }
  if (o.out_dir.empty()) return res;

  io::SafeTensorsWriter w;
  w.set_metadata("format", "tfp_gru_seq2seq");
  for (const Param<float>& p : m.params) w.add_f32(p.name, p.shape, p.value.data(), o.f16 ? io::DType::F16 : io::DType::F32);
  model::save_model_dir(o.out_dir, model::gru_config_to_json(cfg), w.finish(), NumbersTask::tokenizer_json());
  log << "wrote " << o.out_dir << "/{config.json,model.safetensors,tokenizer.json}\n";

  const model::GruSeq2SeqModel lm = model::load_gru_seq2seq_dir(o.out_dir);
  int ok = 0;
  AlignmentScore align;
  for (size_t i = 0; i < held_out.size(); ++i) {
    const NumberExample& e = held_out[i];
    const std::vector<int32_t> src = lm.tokenizer->encode(e.source).ids;
    const model::GruDecodeResult d = model::gru_greedy_decode(lm, src);
    std::string got;
    for (int32_t id : d.ids)
      if (id != NumbersTask::kEnd) got += NumbersTask::character(id);
    ok += got == e.target;
    if (got == e.target)
      score_alignment(align, e.source, d.attention.ptr(), static_cast<int>(d.attention.shape[0]),
                      static_cast<int>(d.attention.shape[1]));
    if (i < 6)
      log << "  \"" << e.source << "\" -> " << got << (got == e.target ? "" : "  WRONG, expected " + e.target) << "\n      "
          << alignment_line(e.source, got, d.attention.ptr(), static_cast<int>(src.size())) << "\n";
  }
  res.engine_greedy_exact = double(ok) / held_out.size();
  res.alignment = align.graded ? double(align.correct) / align.graded : 0;
  log << "greedy decode of the exported files (model::gru_greedy_decode): exact match " << std::setprecision(4)
      << res.engine_greedy_exact << " on " << held_out.size() << " held-out examples\n"
      << "additive attention alignment: the most-attended word is the gold word for " << align.correct << " of "
      << align.graded << " digits (" << 100.0 * res.alignment << "%)\n";
  return res;
}

int run_numbers_gru_cli(const std::vector<std::string>& args, std::ostream& log) {
  const NumbersGruResult r = run_numbers_gru_training(parse_numbers_gru_args(args), log);
  log << "trained in " << std::setprecision(1) << r.seconds << " s wall, " << r.cpu_seconds
      << " s cpu; held-out exact match " << std::setprecision(4) << r.held_out_exact << "\n";
  return 0;
}

}  // namespace tfp::train
