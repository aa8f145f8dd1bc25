// See seq_numbers_gru.h.
#include "train/seq_numbers_gru.h"

#include <algorithm>
#include <iomanip>

#include "core/error.h"
#include "io/safetensors.h"
#include "model/gru_seq2seq.h"
#include "model/model.h"
#include "train/seq_align.h"
#include "train/seq_gru_model.h"
#include "train/seq_numbers.h"

namespace tfp::train {

LoopOptions numbers_gru_loop_options(const NumbersGruOptions& o) {
  LoopOptions l;
  l.steps = o.steps;
  l.schedule.peak = o.lr;
  l.schedule.floor = o.min_lr;
  l.schedule.warmup = std::min(o.warmup, o.steps / 10 + 1);  // a tenth of a short run at most
  l.clip = 1.0;
  l.adamw = AdamWConfig{0.9, 0.999, 1e-8, 0.0};
  l.eval_every = o.eval_every;
  return l;
}

NumbersGruResult run_numbers_gru_training(const NumbersGruOptions& o, std::ostream& log) {
  TFP_CHECK(o.steps > 0 && o.batch > 0 && o.eval_examples > 0,
            "numbers-gru: steps, batch and eval_examples must be positive");
  const NumbersTask task(o.seed);
  const model::GruSeq2SeqConfig cfg = numbers_gru_config(o.embed, o.hidden, o.dec_hidden, o.attn, o.bidirectional);
  GruSeq2Seq<float> m(cfg);
  m.init(o.seed);
  TrainLoop loop(m.params, numbers_gru_loop_options(o));
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
  Batch b;
  LoopHooks h;
  h.forward = [&] {
    std::vector<NumberExample> ex;
    for (int i = 0; i < o.batch; ++i) ex.push_back(task.sample(data_rng, false));
    b = NumbersTask::encode(ex);
    return m.forward(b);
  };
  h.backward = [&] { m.backward(); };
  h.evaluate = [&](const LoopState& st) {
    res.held_out_exact = evaluate();
    log << "step " << std::setw(5) << st.step << "  loss " << std::fixed << std::setprecision(4) << st.smoothed_loss
        << "  held-out exact " << res.held_out_exact << "  (" << std::setprecision(1) << st.wall_seconds << " s, cpu "
        << st.cpu_seconds << " s)" << std::endl;
  };
  if (!o.out_dir.empty())
    h.checkpoint = [&](const LoopState& st) {
      if (!st.last) return;
      io::SafeTensorsWriter w;
      w.set_metadata("format", "tfp_gru_seq2seq");
      for (const Param<float>& p : m.params)
        w.add_f32(p.name, p.shape, p.value.data(), o.f16 ? io::DType::F16 : io::DType::F32);
      model::save_model_dir(o.out_dir, model::gru_config_to_json(cfg), w.finish(), NumbersTask::tokenizer_json());
      log << "wrote " << o.out_dir << "/{config.json,model.safetensors,tokenizer.json}\n";
    };
  const LoopState& done = loop.run(h);
  res.seconds = done.wall_seconds;
  res.cpu_seconds = done.cpu_seconds;
  if (o.out_dir.empty()) return res;

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

}  // namespace tfp::train
