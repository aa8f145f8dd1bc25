// Chapter 12, "Training a transformer". Every number from the engine:
//   the loss       tfp_learn_cross_entropy (the trainer's own loss, train/cross_entropy.h)
//                  of one row (m, 0, …, 0) over V = 15, for a grid of margins m;
//   teacher forcing a decoder-only trainer (tfp_trainer_*) trained for N steps on reverse,
//                  then its argmax over the true sequence against its greedy answer;
//   the schedule   schedule.ts: tfp_learn_lr_schedule (train/lr_schedule.h) beside the
//                  original Transformer's (its formula, evaluated in the page: the trainer
//                  has no such schedule);
//   perplexity     exp of the engine's mean cross-entropy (nats per graded token), beside
//                  each loss the chapter shows: one prediction's, the runs' last step, the
//                  held-out losses;
//   experiments    two trainers per experiment (warm-up, label smoothing, clipping),
//                  stepped in chunks in the worker (loss, grad norm before clipping),
//                  evaluated on the held-out set at the end; the exercise reuses them;
//   dropout        two trainers, dropout 0 against the reader's p (tfp_trainer_* option
//                  "dropout"), the same way.
// window.tfpLearn.state: loss, teacher, schedule, experiments, dropout (tests read them back).
import type { Engine } from 'transformer-playground';
import type { TeacherForcingResult, TrainerEval } from '../../../engine/learn_calls/training';
import { el } from '../../../widgets/dom';
import { LineChart, type Series } from '../../../widgets/line_chart';
import { numberTable, textTable } from '../../../widgets/tables';
import { startChapter } from '../../chapter';
import { fixed, pct } from '../../format';
import { scheduleSection } from './schedule';
import { TEXT, type Key } from './text';
import './training.css';

const ch = startChapter('training', TEXT);
const t = (k: Key, p?: Record<string, string | number>) => ch.t(k, p);
const state: Record<string, unknown> = {};
const publish = () => {
  ch.debug.state = { ...state };
  ch.debug.renders++;
};

const V = 15;  // the toy tasks' vocabulary: '_.>=+0123456789'
const MARGINS = Array.from({ length: 41 }, (_, i) => i * 0.5);  // 0 .. 20
const EPS_CHOICES = [0.1, 0.2, 0.3] as const;

// ---- 1. the loss -------------------------------------------------------------------------

const sLoss = ch.section('hLoss');
ch.prose(sLoss, 'loss');
const loss = { m: 3, eps: 0.1 as number, l0: new Float64Array(0) as Float64Array<ArrayBufferLike>, l1: new Float64Array(0) as Float64Array<ArrayBufferLike> };
const lossFig = ch.figure(sLoss, {
  caption: 'figLoss',
  table: (host) => {
    if (!loss.l0.length) return;
    const vals = MARGINS.flatMap((_, i) => [loss.l0[i]!, loss.l1[i]!]);
    host.append(numberTable(t('chartLoss'), MARGINS.map(String), [t('seriesEps0'), t('seriesEps', { eps: loss.eps })], vals, 4));
  },
});
const mInput = el('input');
mInput.type = 'range';
mInput.min = '0';
mInput.max = '20';
mInput.step = '0.5';
mInput.value = String(loss.m);
const mField = ch.field('lossMargin', mInput, 'training-margin', { params: () => ({ m: loss.m }) });
lossFig.controls.append(mField.element,
  ch.segmented('lossEps', 'training-eps', EPS_CHOICES, 0.1, (v) => { loss.eps = v; void runLoss(); }));
const lossChart = new LineChart({ label: () => t('chartLoss'), xLabel: () => t('axisMargin'), yLabel: () => t('axisLoss') });
const lossReadout = el('p', 'training-readout');
lossReadout.setAttribute('aria-live', 'polite');
lossFig.view.append(lossChart.element, lossReadout);
const renderLossReadout = ch.bind(lossReadout, 'lossReadout', (): Record<string, string | number> => {
  if (!loss.l0.length) return {};
  const i = MARGINS.indexOf(loss.m);
  const { floor, at } = lossFloor();
  return { m: loss.m, l0: fixed(loss.l0[i]!, 4), p0: fixed(perplexity(loss.l0[i]!), 3), l1: fixed(loss.l1[i]!, 4), eps: loss.eps, lnV: fixed(loss.l0[0]!, 4),
    floor: fixed(floor, 4), mFloor: at };
});
lossReadout.textContent = '';

/** Perplexity: the exponential of a mean cross-entropy in nats per token (the engine's
 *  loss); the one conversion this chapter makes in the page. */
const perplexity = (nats: number): number => Math.exp(nats);

/** The lowest loss on the smoothed curve and where (a pick among the engine's values). */
function lossFloor(): { floor: number; at: number } {
  let k = 0;
  loss.l1.forEach((v, i) => { if (v < loss.l1[k]!) k = i; });
  return { floor: loss.l1[k]!, at: MARGINS[k]! };
}

function drawLoss(): void {
  lossChart.update([
    { name: () => t('seriesEps0'), points: MARGINS.map((m, k) => [m, loss.l0[k]!]), markers: false },
    { name: () => t('seriesEps', { eps: loss.eps }), points: MARGINS.map((m, k) => [m, loss.l1[k]!]), markers: false, dashed: true },
  ], loss.m);
  renderLossReadout();
  smoothMistake?.rerender();
}

async function runLoss(): Promise<void> {
  const engine = await ch.engine();
  const logits = new Float32Array(MARGINS.length * V);
  MARGINS.forEach((m, i) => { logits[i * V] = m; });  // the true token is id 0, the others 0
  const targets = MARGINS.map(() => 0);
  try {
    const [l0, l1] = await Promise.all([
      engine.learn('trainingLoss', { logits, targets, V, smoothing: 0 }),
      engine.learn('trainingLoss', { logits: logits.slice(), targets, V, smoothing: loss.eps }),
    ]);
    loss.l0 = l0;
    loss.l1 = l1;
    drawLoss();
    lossFig.refreshTable();
    state.loss = { margins: MARGINS, eps: loss.eps, m: loss.m, l0, l1, floor: lossFloor() };
    publish();
  } catch (e) {
    ch.showError(e);
  }
}
mInput.addEventListener('input', () => {
  loss.m = Number(mInput.value);
  mField.relabel();
  if (loss.l0.length) {
    drawLoss();
    state.loss = { ...(state.loss as object), m: loss.m };
    publish();
  }
});

const smoothMistake = ch.mistake(sLoss, {
  title: 'mSmoothTitle', body: 'mSmoothBody',
  bodyParams: () => ({ floor: loss.l1.length ? fixed(lossFloor().floor, 3) : '…', eps: loss.eps }),
});
ch.prose(sLoss, 'perplexity');

// ---- 2. teacher forcing ------------------------------------------------------------------

const TF_STEPS = [50, 150, 400] as const;
const TOY = { d_model: 32, heads: 2, layers: 2, d_ff: 64, batch: 16, size: 6 };
const sTeacher = ch.section('hTeacher');
ch.prose(sTeacher, 'teacher');
const tf = { steps: 50 as number, prompt: '305716', result: null as TeacherForcingResult | null, handle: 0, trainedFor: 0 };
const tfFig = ch.figure(sTeacher, { caption: 'figTeacher', table: (host) => { if (tf.result) host.append(teacherTable(tf.result)); } });
const promptInput = el('input');
promptInput.type = 'text';
promptInput.inputMode = 'numeric';
promptInput.maxLength = 6;
promptInput.value = tf.prompt;
promptInput.size = 8;
tfFig.controls.append(
  ch.segmented('tfSteps', 'training-tf-steps', TF_STEPS, 50, (v) => { tf.steps = v; void runTeacher(); }),
  ch.field('tfPrompt', promptInput, 'training-prompt').element,
);
const tfSummary = el('p', 'training-readout');
tfSummary.setAttribute('aria-live', 'polite');
const tfTableHost = el('div', 'training-table');
tfFig.view.append(tfSummary, tfTableHost);

/** Rows per answer position: truth, fed and predicted under teacher forcing and free running. */
function teacherRows(r: TeacherForcingResult): string[][] {
  const answer = r.truth.slice(r.answerStart);
  const rows: string[][] = [];
  for (let k = 0; k < answer.length; k++) {
    const fedTrue = r.truth[r.answerStart + k - 1]!;
    const predTrue = r.teacher[r.answerStart + k - 1] ?? '';
    // Free running stops at its own end mark: later positions are never reached (—).
    const fedOwn = k === 0 ? fedTrue : (r.own[k - 1] ?? '—');
    const predOwn = r.own[k] ?? (k === r.own.length ? '.' : '—');
    rows.push([String(k + 1), answer[k]!, fedTrue, predTrue, fedOwn, predOwn]);
  }
  return rows;
}

function teacherTable(r: TeacherForcingResult): HTMLTableElement {
  const table = textTable(t('tTeacher'), [t('colPos'), t('colTruth'), t('colFedTrue'), t('colPredTrue'), t('colFedOwn'), t('colPredOwn')],
    teacherRows(r), 'training-tf');
  [...table.tBodies[0]!.rows].forEach((tr) => {
    const truth = tr.cells[1]!.textContent;
    for (const j of [3, 5]) if (tr.cells[j]!.textContent !== truth) tr.cells[j]!.classList.add('wrong');
  });
  return table;
}

function drawTeacher(): void {
  const r = tf.result;
  if (!r) return;
  const rows = teacherRows(r);
  const answer = r.truth.slice(r.answerStart);
  tfSummary.textContent = t('tfSummary', {
    truth: answer, teacher: rows.map((x) => x[3]).join(''), own: r.own || '∅', n: answer.length,
    tfRight: rows.filter((x) => x[3] === x[1]).length, ownRight: rows.filter((x) => x[5] === x[1]).length,
  });
  tfTableHost.replaceChildren(teacherTable(r));
}

ch.onLocale(drawTeacher);
let tfRun = 0;
async function runTeacher(): Promise<void> {
  const run = ++tfRun;
  const engine = await ch.engine();
  try {
    if (tf.trainedFor > tf.steps && tf.handle) {
      await engine.learn('trainingFree', { handle: tf.handle });
      tf.handle = 0;
    }
    if (!tf.handle) {
      tf.handle = (await engine.learn('trainingCreate', { task: 'reverse', options: { ...TOY, steps: 400 }, seed: 1 })).handle;
      tf.trainedFor = 0;
    }
    tfSummary.textContent = t('training');
    while (tf.trainedFor < tf.steps) {
      const n = Math.min(25, tf.steps - tf.trainedFor);
      await engine.learn('trainingStep', { handle: tf.handle, steps: n });
      tf.trainedFor += n;
      if (run !== tfRun) return;
    }
    const r = await engine.learn('trainingTeacherForcing', { handle: tf.handle, prompt: tf.prompt });
    if (run !== tfRun) return;
    tf.result = r;
    promptInput.removeAttribute('aria-invalid');
    drawTeacher();
    tfFig.refreshTable();
    state.teacher = { steps: tf.trainedFor, prompt: tf.prompt, ...r };
    publish();
  } catch (e) {
    if (run !== tfRun) return;
    promptInput.setAttribute('aria-invalid', 'true');
    tfSummary.textContent = ch.errorText(e);
  }
}
promptInput.addEventListener('change', () => {
  tf.prompt = promptInput.value.trim();
  void runTeacher();
});

// ---- 3. the schedule (schedule.ts) ---------------------------------------------------------

const schedule = scheduleSection(ch, state, publish);

// ---- 4. experiments ------------------------------------------------------------------------

const EXP_STEPS = 200;
const CHUNK = 20;
type ExpKind = 'warmup' | 'smoothing' | 'clip';
const EXPERIMENTS: Record<ExpKind, { note: Key; names: [Key, Key]; options: [Record<string, number>, Record<string, number>] }> = {
  warmup: { note: 'expNoteWarmup', names: ['runWarmOn', 'runWarmOff'], options: [{ lr: 0.01, warmup: 50 }, { lr: 0.01, warmup: 0 }] },
  smoothing: { note: 'expNoteSmoothing', names: ['runSmooth0', 'runSmooth1'], options: [{ label_smoothing: 0 }, { label_smoothing: 0.1 }] },
  clip: { note: 'expNoteClip', names: ['runClipOn', 'runClipOff'], options: [{ lr: 0.01, warmup: 0, clip: 1 }, { lr: 0.01, warmup: 0, clip: 0 }] },
};
interface ExpRun { stats: number[][]; evaluation: TrainerEval | null }
interface ExpResult { kind: ExpKind; runs: [ExpRun, ExpRun]; done: number; options: [Record<string, number>, Record<string, number>] }
const results = new Map<ExpKind, ExpResult>();
const pending = new Map<ExpKind, Promise<ExpResult>>();

const sExp = ch.section('hExperiments');
ch.prose(sExp, 'experiments', () => ({ steps: EXP_STEPS }));
let expKind: ExpKind = 'warmup';
const expFig = ch.figure(sExp, {
  caption: 'figExp',
  table: (host) => {
    const r = results.get(expKind);
    if (!r) return;
    const rows = r.runs[0].stats.map((_, s) => [s + 1, ...[0, 1].flatMap((k) => [fixed(r.runs[k]!.stats[s]?.[0] ?? NaN, 4)]), ...[0, 1].map((k) => fixed(r.runs[k]!.stats[s]?.[3] ?? NaN, 3))]);
    host.append(textTable(t('tExpSteps'), [t('colStep'), t('colLossA'), t('colLossB'), t('colNormA'), t('colNormB')], rows));
  },
});
const expButton = ch.button('expRun');
expFig.controls.append(
  ch.segmented('expPick', 'training-exp', ['warmup', 'smoothing', 'clip'] as const, 'warmup', (v) => { expKind = v; void showExperiment(false); },
    (v) => t(v === 'warmup' ? 'expWarmup' : v === 'smoothing' ? 'expSmoothing' : 'expClip')),
  expButton,
);
const expNote = el('div', 'training-note');
const lossCurves = new LineChart({ label: () => t('chartExpLoss'), xLabel: () => t('axisStep'), yLabel: () => t('axisLoss') });
const normCurves = new LineChart({ label: () => t('chartExpNorm'), xLabel: () => t('axisStep'), yLabel: () => t('axisGradNorm'), yLog: true });
const expProgress = el('p', 'training-readout');
expProgress.setAttribute('aria-live', 'polite');
const expTableHost = el('div', 'training-table');
expFig.view.append(expNote, lossCurves.element, normCurves.element, expProgress, expTableHost);
expButton.addEventListener('click', () => { results.delete(expKind); void showExperiment(true); });

function drawExperiment(r: ExpResult): void {
  const spec = EXPERIMENTS[r.kind];
  const series = (col: number): Series[] => [0, 1].map((k) => ({
    name: () => t(spec.names[k]!), dashed: k === 1, markers: false,
    points: r.runs[k]!.stats.map((row, s) => [s + 1, row[col]!] as [number, number]),
  }));
  lossCurves.update(series(0));
  normCurves.update(series(3));
  const [a, b] = r.runs;
  const parts = [t('expProgress', { done: r.done, total: EXP_STEPS })];
  if (a.stats.length) {
    parts.push(t('expFirst', { a: fixed(a.stats[0]![0]!, 3), b: fixed(b.stats[0]![0]!, 3), lnV: loss.l0.length ? fixed(loss.l0[0]!, 3) : '2.708',
      pa: fixed(perplexity(a.stats[0]![0]!), 2), pb: fixed(perplexity(b.stats[0]![0]!), 2) }));
    const n = a.stats.length;
    // A smoothed training loss is not a plain cross-entropy: its exponential is no perplexity.
    const ppl = (k: 0 | 1) => (r.options[k].label_smoothing ? t('pplSmoothed') : fixed(perplexity(r.runs[k].stats[n - 1]![0]!), 3));
    parts.push(t('expLast', { step: n, a: fixed(a.stats[n - 1]![0]!, 4), b: fixed(b.stats[n - 1]![0]!, 4), pa: ppl(0), pb: ppl(1) }));
  }
  expProgress.textContent = parts.join(' ');
  if (a.evaluation && b.evaluation) {
    const rows = [a, b].map((run, k) => [t(spec.names[k]!), fixed(run.stats[run.stats.length - 1]![0]!, 4), fixed(run.evaluation!.loss, 4),
      fixed(perplexity(run.evaluation!.loss), 3), pct(run.evaluation!.tokenAccuracy), pct(run.evaluation!.sequenceAccuracy),
      fixed(Math.max(...run.stats.map((x) => x[3]!)), 2)]);
    expTableHost.replaceChildren(textTable(t('tExp'), [t('colRun'), t('colTrainLoss'), t('colHeldLoss'), t('colHeldPpl'), t('colTokAcc'), t('colSeqAcc'),
      t('colMaxNorm')], rows));
  } else {
    expTableHost.replaceChildren();
  }
}

/** Trains two runs of the reverse task side by side (seed 7, TOY with each run's options),
 *  CHUNK steps at a time, calling onChunk after each chunk, then evaluates both on the
 *  held-out set. Stops early (the runs stay unfinished) once alive() turns false. */
async function trainPair(options: readonly Record<string, number>[], r: { runs: ExpRun[]; done: number }, onChunk: () => void,
                         alive: () => boolean = () => true): Promise<void> {
  const engine: Engine = await ch.engine();
  const handles: number[] = [];
  try {
    for (const o of options)
      handles.push((await engine.learn('trainingCreate', { task: 'reverse', options: { ...TOY, steps: EXP_STEPS, ...o }, seed: 7 })).handle);
    while (r.done < EXP_STEPS) {
      if (!alive()) return;
      const n = Math.min(CHUNK, EXP_STEPS - r.done);
      for (let k = 0; k < handles.length; k++) {
        const s = await engine.learn('trainingStep', { handle: handles[k]!, steps: n });
        for (let i = 0; i < n; i++) r.runs[k]!.stats.push(Array.from(s.subarray(i * 4, i * 4 + 4)));
      }
      r.done += n;
      onChunk();
    }
    for (let k = 0; k < handles.length; k++) r.runs[k]!.evaluation = await engine.learn('trainingEvaluate', { handle: handles[k]! });
  } finally {
    for (const h of handles) await engine.learn('trainingFree', { handle: h });
  }
}

/** Trains (or returns) the two runs of one experiment, drawing as it goes when `draw`. */
function experiment(kind: ExpKind, draw: () => boolean): Promise<ExpResult> {
  const done = results.get(kind);
  if (done) return Promise.resolve(done);
  const running = pending.get(kind);
  if (running) return running;
  const p = (async () => {
    const spec = EXPERIMENTS[kind];
    const r: ExpResult = { kind, runs: [{ stats: [], evaluation: null }, { stats: [], evaluation: null }], done: 0, options: spec.options };
    try {
      await trainPair(spec.options, r, () => { if (draw()) drawExperiment(r); });
    } finally {
      pending.delete(kind);
    }
    results.set(kind, r);
    return r;
  })();
  pending.set(kind, p);
  return p;
}

async function showExperiment(_force: boolean): Promise<void> {
  const kind = expKind;
  expNote.innerHTML = t(EXPERIMENTS[kind].note);
  expButton.disabled = true;
  try {
    const r = await experiment(kind, () => expKind === kind);
    if (expKind !== kind) return;
    drawExperiment(r);
    expFig.refreshTable();
    state.experiments = Object.fromEntries([...results].map(([k, v]) => [k, v]));
    state.shown = kind;
    publish();
  } catch (e) {
    ch.showError(e);
  } finally {
    if (expKind === kind) expButton.disabled = false;
  }
}
ch.onLocale(() => {
  expNote.innerHTML = t(EXPERIMENTS[expKind].note);
  const r = results.get(expKind);
  if (r) drawExperiment(r);
});

const exercise = ch.exercise(sExp, {
  id: 'warmup-off',
  question: 'exQuestion',
  questionParams: () => ({ steps: EXP_STEPS }),
  choices: () => [t('exHigher'), t('exLower'), t('exSame')],
  answer: async () => {
    const r = await experiment('warmup', () => expKind === 'warmup');
    const on = r.runs[0].evaluation!, off = r.runs[1].evaluation!;
    // The engine's two held-out losses, compared: within 2 % counts as the same.
    const rel = (off.loss - on.loss) / on.loss;
    const correct = Math.abs(rel) <= 0.02 ? 2 : rel > 0 ? 0 : 1;
    state.exercise = { on, off, correct };
    publish();
    return {
      correct,
      explanation: t('exExplain', { off: fixed(off.loss, 4), on: fixed(on.loss, 4), accOff: pct(off.tokenAccuracy), accOn: pct(on.tokenAccuracy),
        why: t(correct === 0 ? 'exWhyOn' : 'exWhyOff') }),
    };
  },
});
void exercise;
ch.mistake(sExp, { title: 'mClipTitle', body: 'mClipBody' });

// ---- 5. dropout, and where to go next -----------------------------------------------------

const sDropout = ch.section('hDropout');
ch.prose(sDropout, 'dropout', () => ({ steps: EXP_STEPS }));
const DROP_PS = [0.1, 0.2, 0.3, 0.5] as const;
/** The last 20 steps' mean training loss: one step's loss is noisy, more so with dropout. */
const TAIL = 20;
interface DropResult { p: number; runs: [ExpRun, ExpRun]; done: number; options: [Record<string, number>, Record<string, number>] }
const drop = { p: 0.1 as number, result: null as DropResult | null, shown: null as DropResult | null };
const dropFig = ch.figure(sDropout, {
  caption: 'figDrop',
  table: (host) => {
    const r = drop.result;
    if (!r) return;
    const rows = r.runs[0].stats.map((_, s) => [s + 1, ...[0, 1].map((k) => fixed(r.runs[k]!.stats[s]?.[0] ?? NaN, 4))]);
    host.append(textTable(t('tDropSteps'), [t('colStep'), t('runDrop0'), t('runDropP', { p: r.p })], rows));
  },
});
dropFig.controls.append(ch.segmented('dropP', 'training-dropout', DROP_PS, 0.1, (v) => { drop.p = v; void runDropout(); }));
const dropChart = new LineChart({ label: () => t('chartDrop'), xLabel: () => t('axisStep'), yLabel: () => t('axisLoss') });
const dropReadout = el('p', 'training-readout');
dropReadout.setAttribute('aria-live', 'polite');
const dropTableHost = el('div', 'training-table');
dropFig.view.append(dropChart.element, dropReadout, dropTableHost);

const tailMean = (run: ExpRun) => {
  const xs = run.stats.slice(-TAIL).map((x) => x[0]!);
  return xs.reduce((a, b) => a + b, 0) / xs.length;
};

function drawDropout(): void {
  const r = drop.shown;
  if (!r) return;
  const names = [t('runDrop0'), t('runDropP', { p: r.p })];
  dropChart.update([0, 1].map((k) => ({
    name: () => names[k]!, dashed: k === 1, markers: false,
    points: r.runs[k]!.stats.map((row, s) => [s + 1, row[0]!] as [number, number]),
  })));
  const [a, b] = r.runs;
  if (a.evaluation && b.evaluation) {
    dropReadout.textContent = t('dropReadout', {
      p: r.p, tail: TAIL, trainA: fixed(tailMean(a), 4), trainB: fixed(tailMean(b), 4),
      heldA: fixed(a.evaluation.loss, 4), heldB: fixed(b.evaluation.loss, 4),
      verdict: t(b.evaluation.loss < a.evaluation.loss ? 'dropHelped' : 'dropDidNot'),
    });
    const rows = [a, b].map((run, k) => [names[k]!, fixed(tailMean(run), 4), fixed(run.evaluation!.loss, 4), fixed(perplexity(run.evaluation!.loss), 3),
      pct(run.evaluation!.tokenAccuracy), pct(run.evaluation!.sequenceAccuracy)]);
    dropTableHost.replaceChildren(textTable(t('tDrop'), [t('colRun'), t('colTailLoss', { tail: TAIL }), t('colHeldLoss'), t('colHeldPpl'), t('colTokAcc'),
      t('colSeqAcc')], rows));
  } else {
    dropReadout.textContent = t('expProgress', { done: r.done, total: EXP_STEPS });
    dropTableHost.replaceChildren();
  }
}
ch.onLocale(drawDropout);

let dropRun = 0;
/** Trains p = 0 against the chosen p (same seed, same batches) and shows both. */
async function runDropout(): Promise<void> {
  const run = ++dropRun;
  const p = drop.p;
  const r: DropResult = { p, runs: [{ stats: [], evaluation: null }, { stats: [], evaluation: null }], done: 0, options: [{ dropout: 0 }, { dropout: p }] };
  drop.shown = r;
  try {
    await trainPair(r.options, r, () => { if (run === dropRun) drawDropout(); }, () => run === dropRun);
    if (run !== dropRun) return;
    drop.result = r;
    drawDropout();
    dropFig.refreshTable();
    state.dropout = { p: r.p, runs: r.runs, options: r.options, tail: TAIL };
    publish();
  } catch (e) {
    if (run === dropRun) ch.showError(e);
  }
}

const sNext = ch.section('hNext');
ch.prose(sNext, 'next');
const links = el('p', 'training-links');
sNext.append(links);
ch.playgroundLink(links, 'openPlayground', () => ({ model: 'numbers-transformer', text: '3141', set: 'cross', view: 'matrix' }));
const trainLink = el('a', 'playground-link');
trainLink.href = '../train.html';
ch.bind(trainLink, 'openTrain');
links.append(' ', trainLink);

// The cheap figures first, then the trainers.
void runLoss().then(() => schedule.run()).then(() => runTeacher()).then(() => showExperiment(false)).then(() => runDropout());
