// See toy_runner.h.
#include "train/toy_runner.h"

#include <iomanip>

#include "model/model.h"

namespace tfp::train {

ToyRunResult run_toy_training(const ToyRunOptions& opt, std::ostream& log) {
  Trainer tr(opt.trainer);
  const TrainerOptions& t = opt.trainer;
  log << "task " << task_name(t.task) << " (size " << tr.task().size() << "), "
      << (tr.recurrent() ? "GRU + additive attention" : model::architecture_name(tr.config().architecture))
      << ", d_model " << t.d_model << ", "
      << (tr.recurrent() ? std::string("bidirectional encoder, decoder width ") + std::to_string(2 * t.d_model)
                         : std::to_string(t.n_layers) + " layers, " + std::to_string(t.n_heads) + " heads")
      << ", " << tr.params().num_elements() << " parameters, batch " << t.batch << ", seed "
      << t.seed << "\n";
  ToyRunResult res;
  // Input tokens per step, padding included (as tfp_trainer_info_json's tokens_per_step).
  const long per_step =
      static_cast<long>(t.batch) * (tr.config().architecture == model::Architecture::encoder_decoder
                                        ? tr.task().max_prompt_len() + tr.task().max_answer_len() + 1
                                        : tr.task().context_len(tr.config().architecture));
  const LoopState& done = tr.train(-1, [&](const LoopState& st) {
    const EvalStats e = tr.evaluate();
    log << "step " << std::setw(5) << st.step << "  loss " << std::fixed << std::setprecision(4) << st.smoothed_loss
        << "  lr " << std::scientific << std::setprecision(2) << st.lr << std::fixed << "  held-out loss "
        << std::setprecision(4) << e.loss << "  token acc " << std::setprecision(3) << e.token_accuracy
        << "  seq acc " << e.sequence_accuracy << "  (" << std::setprecision(1) << st.wall_seconds << " s, cpu "
        << st.cpu_seconds << " s)\n";
    res.final_eval = e;
  });
  const double train_s = done.wall_seconds, cpu_s = done.cpu_seconds;
  const long tokens = per_step * t.steps;
  res.steps = t.steps;
  res.seconds = train_s;
  res.cpu_seconds = cpu_s;
  res.tokens_per_second = train_s > 0 ? tokens / train_s : 0;
  res.tokens_per_cpu_second = cpu_s > 0 ? tokens / cpu_s : 0;
  log << "trained " << t.steps << " steps in " << std::setprecision(2) << train_s << " s wall, "
      << cpu_s << " s cpu: " << std::setprecision(0) << res.tokens_per_second << " tokens/s wall, "
      << res.tokens_per_cpu_second << " tokens/s cpu; held-out sequence accuracy "
      << std::setprecision(3) << res.final_eval.sequence_accuracy << " on "
      << res.final_eval.examples << " examples\n";
  Rng demo_rng = Rng::stream(t.seed, /*label "demo"*/ 4);
  const Example demo = tr.task().sample(demo_rng, true);
  log << "example: " << demo.prompt << tr.task().separator() << tr.generate(demo.prompt)
      << "  (expected " << demo.answer << ")\n";
  if (!opt.out_dir.empty()) {
    model::save_model_dir(opt.out_dir, tr.config_json(), tr.safetensors(), tr.tokenizer_json());
    log << "wrote " << opt.out_dir << "/{config.json,model.safetensors,tokenizer.json}\n";
  }
  return res;
}

}  // namespace tfp::train
