// The one training loop (train/train_loop.h) that the toy Trainer, the C API and the
// recipes share. Oracles:
//  - the loop's step equals the optimisation step written out by hand (zero grads,
//    forward, backward, clip, AdamW at the schedule's rate), bit for bit;
//  - pausing (run to step k, return, run on) equals one uninterrupted run, bit for bit;
//  - evaluate runs every eval_every steps and after the last, checkpoint after the last;
//  - the smoothed loss is (1 − w)·previous + w·loss from the first step's loss (w = 0.05:
//    the same doubles as the literal 0.95·previous + 0.05·loss the recipes printed);
//  - Trainer::step() (the C API) and Trainer::train() (tfp train) give the same losses.
#include <doctest/doctest.h>

#include <vector>

#include "train/lr_schedule.h"
#include "train/optimizer.h"
#include "train/tasks.h"
#include "train/train_loop.h"
#include "train/train_model.h"
#include "train/trainer.h"

using namespace tfp;
using namespace tfp::train;
using model::Architecture;

namespace {

TrainerOptions tiny_options() {
  TrainerOptions o;
  o.task = TaskKind::Reverse;
  o.task_size = 4;
  o.d_model = 16;
  o.d_ff = 32;
  o.n_heads = 2;
  o.n_layers = 1;
  o.batch = 4;
  o.steps = 12;
  o.warmup = 3;
  o.seed = 3;
  return o;
}

// A tiny model, its task and a data stream: what a recipe sets up around the loop.
struct Setup {
  Task task{TaskKind::Reverse, 7, 4};
  TrainModel<float> m{toy_model_config(tiny_options(), task)};
  Rng rng{9};
  Batch b;
  Setup() { m.init(7); }
  LoopHooks hooks() {
    LoopHooks h;
    h.forward = [this] {
      std::vector<Example> ex;
      for (int i = 0; i < 4; ++i) ex.push_back(task.sample(rng, false));
      b = task.encode(ex, Architecture::decoder_only);
      return m.forward(b);
    };
    h.backward = [this] { m.backward(); };
    return h;
  }
};

LoopOptions loop_options() {
  LoopOptions l;
  l.steps = 10;
  l.schedule = LrSchedule{4e-3, 4e-4, 3, 0, Decay::Cosine};
  l.clip = 0.5;
  l.adamw = AdamWConfig{0.9, 0.98, 1e-9, 0.01};
  l.eval_every = 4;
  return l;
}

}  // namespace

TEST_CASE("train one loop: a step is the optimisation step written out, at the schedule's rate") {
  Setup a, b;
  TrainLoop loop(a.m.params, loop_options());
  const LoopHooks h = a.hooks();
  AdamW adamw(loop_options().adamw);
  LrSchedule sched = loop_options().schedule;
  sched.total = 10;
  for (int s = 0; s < 10; ++s) {
    const LoopState& st = loop.step(h);
    // By hand on the twin setup.
    std::vector<Example> ex;
    for (int i = 0; i < 4; ++i) ex.push_back(b.task.sample(b.rng, false));
    const Batch batch = b.task.encode(ex, Architecture::decoder_only);
    b.m.params.zero_grad();
    const double loss = b.m.forward(batch).loss;
    b.m.backward();
    const double norm = clip_grad_norm(b.m.params, 0.5);
    adamw.step(b.m.params, sched.at(s));
    CHECK(st.step == s + 1);
    CHECK(st.lr == sched.at(s));
    CHECK(st.loss.loss == loss);
    CHECK(st.grad_norm == norm);
    CHECK(st.last == (s == 9));
  }
  for (size_t i = 0; i < a.m.params.size(); ++i) CHECK(a.m.params[i].value == b.m.params[i].value);
}

TEST_CASE("train one loop: pause and resume equal one run; hooks at their steps; the smoothed loss") {
  Setup a, b;
  TrainLoop whole(a.m.params, loop_options()), paused(b.m.params, loop_options());
  std::vector<int> evals, checkpoints;
  std::vector<double> losses, smoothed;
  LoopHooks ha = a.hooks();
  ha.checkpoint = [&](const LoopState& s) { checkpoints.push_back(s.step); };
  // Every step's loss through a wrapped forward.
  const auto fwd = ha.forward;
  ha.forward = [&] {
    const CrossEntropyResult r = fwd();
    losses.push_back(r.loss);
    return r;
  };
  ha.evaluate = [&](const LoopState& s) {
    evals.push_back(s.step);
    smoothed.push_back(s.smoothed_loss);
  };
  whole.run(ha);
  CHECK(whole.steps_done() == 10);
  CHECK(evals == std::vector<int>{4, 8, 10});
  CHECK(checkpoints == std::vector<int>{10});
  // (1 − 0.05) is the double 0.95, so this is the recipes' own formula, bit for bit.
  double ema = 0;
  for (size_t i = 0; i < losses.size(); ++i) {
    ema = i == 0 ? losses[0] : 0.95 * ema + 0.05 * losses[i];
    if (i + 1 == 4) CHECK(smoothed[0] == ema);
    if (i + 1 == 8) CHECK(smoothed[1] == ema);
  }
  CHECK(smoothed[2] == ema);
  CHECK(whole.state().smoothed_loss == ema);
  CHECK(whole.state().wall_seconds > 0);

  std::vector<int> evals_b;
  LoopHooks hb = b.hooks();
  hb.evaluate = [&](const LoopState& s) { evals_b.push_back(s.step); };
  paused.run(hb, 3);
  CHECK(paused.steps_done() == 3);
  paused.run(hb, 3);  // already there: no step
  CHECK(paused.steps_done() == 3);
  paused.run(hb, 7);
  paused.run(hb);
  CHECK(evals_b == std::vector<int>{4, 8, 10});
  CHECK(paused.state().smoothed_loss == whole.state().smoothed_loss);
  for (size_t i = 0; i < a.m.params.size(); ++i) CHECK(a.m.params[i].value == b.m.params[i].value);
}

TEST_CASE("train one loop: Trainer::step (the C API) and Trainer::train (tfp train) take the same steps") {
  TrainerOptions o = tiny_options();
  o.eval_every = 5;
  o.dropout = 0.1;  // the dropout stream advances inside the steps too
  Trainer stepped(o), trained(o);
  std::vector<double> losses;
  for (int i = 0; i < o.steps; ++i) losses.push_back(stepped.step().loss);
  std::vector<int> at;
  std::vector<double> evals;
  trained.train(7, [&](const LoopState& s) {
    at.push_back(s.step);
    evals.push_back(trained.evaluate().loss);
  });
  CHECK(trained.steps_done() == 7);
  CHECK(trained.loop_state().loss.loss == losses[6]);
  trained.train(-1, [&](const LoopState& s) {
    at.push_back(s.step);
    evals.push_back(trained.evaluate().loss);
  });
  CHECK(at == std::vector<int>{5, 10, 12});
  CHECK(trained.loop_state().loss.loss == losses.back());
  CHECK(trained.loop_state().last);
  CHECK(evals.back() == stepped.evaluate().loss);
  // A new peak while paused reaches the loop: the next step runs at the new schedule.
  Trainer a(o), b(o);
  a.step(), b.step();
  a.set_lr(1e-2);
  LrSchedule s{1e-2, 1e-3, o.warmup, o.steps, Decay::Cosine};
  CHECK(a.step().lr == s.at(1));
  CHECK(b.step().lr != s.at(1));
}
