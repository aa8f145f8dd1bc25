// Chapter 1, why attention. Four live figures; (b), (c) and (d) in their own modules:
//   (a) the engine times its GRU (nn::gru_sequence) against one self-attention layer
//       (nn::multi_head_attention) of the width d the reader picks, over T = 8 … 512
//       (tfp_learn_time_gru_attention, via engine.learn('timeGruAttention')): medians,
//       sequential steps and multiply-adds, all from the engine, plotted log-log;
//   (b) models.ts: the shipped numbers-gru and numbers-transformer translate the
//       reader's number words; their alignment / cross-attention come from model.translate;
//   (c) gradients.ts: a gradient passed back through 100 steps of a tanh RNN or a GRU
//       (engine.learn('gradientSteps')), and its predict-then-check exercise;
//   (d) order.ts: self-attention without positions on two orders of the same words
//       (engine.attention), the outputs permuted copies.
// This file holds (a): it asks the engine and formats its numbers. The only arithmetic
// here is for reading them: ratios of two engine numbers and slopes between two measured
// points.
import type { TimingRow } from '../../../engine/learn_calls/timing';
import { el } from '../../../widgets/dom';
import { textTable } from '../../../widgets/tables';
import { num } from '../../format';
import { LineChart } from '../../../widgets/line_chart';
import { startChapter, type TextParams } from '../../chapter';
import { liveProse } from './dom';
import { gradientSection } from './gradients';
import { modelsSection } from './models';
import { orderSection } from './order';
import { TEXT, type WhyKey } from './text';
import './style.css';

const LENGTHS = [8, 16, 32, 64, 128, 256, 512];
const WIDTHS = [16, 32, 64, 128, 256];
const HEADS = 4;
const REPEATS = 5;
const SEED = 1;
const EXERCISE_T = 256;

const ch = startChapter('why-attention', TEXT);

const state = {
  d: 64,
  heads: HEADS,
  repeats: REPEATS,
  seed: SEED,
  /** The engine's rows of the latest (or current) sweep, in LENGTHS order. */
  rows: [] as TimingRow[],
  /** The d the rows belong to. */
  rowsD: 64,
  measuring: null as number | null,
  sweeps: 0,
  /** The exercise's own measurement at T = 256 (the last one checked). */
  exercise: null as TimingRow | null,
};
ch.debug.state = state;

// ---- formatting (display only) -------------------------------------------------------
const fmtMs = (v: number) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v >= 1 ? v.toFixed(2) : v.toFixed(3));
const fmtInt = (v: number) => num(Math.round(v));
const fmtRatio = (v: number) => (v >= 10 ? v.toFixed(1) : v.toFixed(2));
type Params = TextParams;

// ---- the idea ----------------------------------------------------------------------------
const idea = ch.section('hIdea');
ch.prose(idea, 'idea');
ch.prose(idea, 'ideaAttn');

// ---- (a) the timing ----------------------------------------------------------------------
const timing = ch.section('hTiming');
ch.prose(timing, 'timingIntro');
const fig = ch.figure(timing, { caption: 'figTiming', label: 'figTimingLabel', table: (host) => timingTable(host) });

const widthField = el('div', 'field');
const widthLabel = el('label');
const widthSelect = el('select');
widthSelect.id = 'wa-width';
widthLabel.htmlFor = widthSelect.id;
for (const d of WIDTHS) {
  const o = el('option');
  o.value = String(d);
  o.textContent = String(d);
  o.selected = d === state.d;
  widthSelect.append(o);
}
const widthHelp = el('p', 'help');
widthHelp.id = 'wa-width-help';
widthSelect.setAttribute('aria-describedby', widthHelp.id);
widthField.append(widthLabel, widthSelect, widthHelp);
const rerunField = el('div', 'field');
const rerun = el('button');
rerun.type = 'button';
rerun.id = 'wa-rerun';
const timingStatus = el('p', 'help');
timingStatus.id = 'wa-timing-status';
timingStatus.setAttribute('role', 'status');
rerunField.append(rerun, timingStatus);
fig.controls.append(widthField, rerunField);

const timeChart = new LineChart({
  label: () => ch.t('chartTime'), xLabel: () => ch.t('axisT'), yLabel: () => ch.t('axisMs'),
  xLog: true, yLog: true, xDomain: [8, 512], xFormat: (v) => String(v),
  yFormat: (v) => (v >= 1 ? String(v) : String(Number(v.toPrecision(2)))),
});
fig.view.append(timeChart.element);

// The formula, tied to the engine's counts at the largest T measured.
const workBox = el('div', 'wa-work');
const workReadout = el('p', 'wa-work-readout');
workReadout.setAttribute('aria-live', 'polite');
const gruWork = el('span');
gruWork.dataset.sym = 'gruWork';
gruWork.tabIndex = 0;
const attnWork = el('span');
attnWork.dataset.sym = 'attnWork';
attnWork.tabIndex = 0;
workReadout.append(gruWork, attnWork);
const workNote = liveProse(ch, workBox, 'formulaNote', () => ({ T: state.rows[state.rows.length - 1]?.T ?? 512, d: state.rowsD }));
ch.formula(workBox, () => String.raw`\begin{aligned}
W_{\mathrm{GRU}} &= \sym{gruWork}{6\,T d^2}, & n_{\mathrm{GRU}} &= \sym{gruWork}{T}\\
W_{\mathrm{attn}} &= \sym{attnWork}{4\,T d^2 + 2\,T^2 d}, & n_{\mathrm{attn}} &= \sym{attnWork}{1}
\end{aligned}`);
workBox.append(workReadout);
timing.append(workBox);

const summary = el('div', 'wa-summary');
summary.setAttribute('aria-live', 'polite');
timing.append(summary);
const summaries = (['summaryCross', 'summaryAttnAll', 'summaryGruAll'] as const).map((k) => ({ key: k, prose: liveProse(ch, summary, k, () => summaryParams()) }));
ch.prose(timing, 'honest');

function renderTimingText(): void {
  widthLabel.textContent = ch.t('width');
  widthHelp.textContent = ch.t('widthHelp');
  rerun.textContent = ch.t('rerun');
  timingStatus.textContent = state.measuring !== null ? ch.t('measuring', { T: state.measuring })
    : state.rows.length ? ch.t('measured', { d: state.rowsD }) : '';
  // Screen readers hear the end of a sweep, not each of its seven steps.
  timingStatus.setAttribute('aria-busy', String(state.measuring !== null));
  const last = state.rows[state.rows.length - 1];
  workNote.render();
  gruWork.textContent = last ? ch.t('workGru', { n: fmtInt(last.gruMacs), steps: fmtInt(last.gruSteps) }) : '';
  attnWork.textContent = last ? ch.t('workAttn', { n: fmtInt(last.attnMacs) }) : '';
  const done = state.rows.length === LENGTHS.length;
  const key = done ? summaryKey() : null;
  for (const p of summaries) p.prose.render(p.key === key);
}

function slope(a: number, b: number, Ta: number, Tb: number): string {
  return (Math.log2(b / a) / Math.log2(Tb / Ta)).toFixed(2);
}

function summaryKey(): WhyKey {
  const gruWins = state.rows.filter((r) => r.gruMs < r.attnMs).length;
  return gruWins === 0 ? 'summaryAttnAll' : gruWins === state.rows.length ? 'summaryGruAll' : 'summaryCross';
}

function summaryParams(): Params {
  const rows = state.rows;
  if (rows.length < 2) return {};
  const a = rows[rows.length - 2]!, b = rows[rows.length - 1]!;
  const at = (gru: boolean) => rows.filter((r) => (r.gruMs < r.attnMs) === gru).map((r) => r.T).join(', ');
  return {
    d: state.rowsD,
    attnAt: at(false),
    gruAt: at(true),
    slopeGru: slope(a.gruMs, b.gruMs, a.T, b.T),
    slopeAttn: slope(a.attnMs, b.attnMs, a.T, b.T),
  };
}

function drawTiming(): void {
  const rows = state.rows;
  timeChart.update([
    { name: () => ch.t('seriesGru'), points: rows.map((r) => [r.T, r.gruMs]) },
    { name: () => ch.t('seriesAttn'), points: rows.map((r) => [r.T, r.attnMs]) },
  ]);
  renderTimingText();
  fig.refreshTable();
  drawMistake();
  ch.debug.renders++;
}

function timingTable(host: HTMLElement): void {
  host.replaceChildren(textTable(ch.t('tableTiming', { d: state.rowsD }),
    [ch.t('thT'), ch.t('thGruMs'), ch.t('thAttnMs'), ch.t('thRatio'), ch.t('thGruSteps'), ch.t('thAttnSteps'),
     ch.t('thGruMacs'), ch.t('thAttnMacs')],
    state.rows.map((r) => [String(r.T), `${fmtMs(r.gruMs)} (${fmtMs(r.gruMinMs)}–${fmtMs(r.gruMaxMs)})`,
      `${fmtMs(r.attnMs)} (${fmtMs(r.attnMinMs)}–${fmtMs(r.attnMaxMs)})`, fmtRatio(r.gruMs / r.attnMs),
      fmtInt(r.gruSteps), fmtInt(r.attnSteps), fmtInt(r.gruMacs), fmtInt(r.attnMacs)])));
}

let sweepId = 0;
/** One sweep over LENGTHS at the current d, one engine call per length so the chart fills
 *  in as the points arrive; a newer sweep (another d, "measure again") stops this one. */
async function measure(): Promise<void> {
  const id = ++sweepId;
  const d = state.d;
  try {
    const engine = await ch.engine();
    const rows: TimingRow[] = [];
    for (const T of LENGTHS) {
      if (id !== sweepId) return;
      state.measuring = T;
      renderTimingText();
      const r = await engine.learn('timeGruAttention', { d, heads: HEADS, lengths: [T], repeats: REPEATS, seed: SEED });
      if (id !== sweepId) return;
      rows.push(r.rows[0]!);
      state.rows = rows.slice();
      state.rowsD = d;
      drawTiming();
    }
    state.measuring = null;
    state.sweeps++;
    drawTiming();
  } catch (e) {
    if (id === sweepId) {
      state.measuring = null;
      timingStatus.textContent = ch.errorText(e);
    }
  }
}

widthSelect.addEventListener('change', () => {
  state.d = Number(widthSelect.value);
  refreshQuestion();
  exercise.refresh();
  void measure();
});
rerun.addEventListener('click', () => void measure());

// ---- the exercise -------------------------------------------------------------------------
const choiceKeys = ['exAttnMore', 'exAttnLess', 'exGruLess', 'exGruMore'] as const;
const exercise = ch.exercise(timing, {
  id: 't256',
  question: 'exQuestion',
  questionParams: () => ({ d: state.d }),
  choices: () => choiceKeys.map((k) => ch.t(k)),
  answer: async () => {
    const engine = await ch.engine();
    const d = state.d;
    const r = (await engine.learn('timeGruAttention', { d, heads: HEADS, lengths: [EXERCISE_T], repeats: REPEATS, seed: SEED })).rows[0]!;
    state.exercise = r;
    const ratio = r.gruMs / r.attnMs;  // > 1: attention faster
    const correct = ratio >= 1.5 ? 0 : ratio >= 1 ? 1 : ratio > 1 / 1.5 ? 2 : 3;
    const attnFaster = ratio >= 1;
    return {
      correct,
      explanation: ch.t('exExplain', {
        d, gru: fmtMs(r.gruMs), attn: fmtMs(r.attnMs), faster: ch.t(attnFaster ? 'fasterAttn' : 'fasterGru'),
        ratio: fmtRatio(attnFaster ? ratio : 1 / ratio), attnMacs: fmtInt(r.attnMacs), gruMacs: fmtInt(r.gruMacs),
        gruSteps: fmtInt(r.gruSteps), attnSteps: fmtInt(r.attnSteps),
      }),
    };
  },
});

function refreshQuestion(): void {
  const q = exercise.element.querySelector('.question') as (HTMLElement & { rerender?: () => void }) | null;
  q?.rerender?.();
}

// ---- the common mistake: "attention is cheaper" ----------------------------------------
const workChart = new LineChart({
  label: () => ch.t('chartWork'), xLabel: () => ch.t('axisT'), yLabel: () => ch.t('axisMacs'),
  xLog: true, yLog: true, xDomain: [8, 512], xFormat: (v) => String(v),
  yFormat: (v) => v.toExponential(0).replace('e+', 'e'),
});
const doublingText = el('div');
doublingText.setAttribute('aria-live', 'polite');
const doublingWait = liveProse(ch, doublingText, 'doublingWait', () => ({}));
const doubling = liveProse(ch, doublingText, 'doubling', () => doublingParams());
const doublingTable = el('div', 'wa-doubling');
doublingTable.tabIndex = 0;  // scrollable with the arrow keys when narrower than the table
doublingTable.setAttribute('role', 'region');
ch.mistake(timing, {
  title: 'mistakeTitle',
  body: 'mistakeBody',
  demo: (host) => {
    const col = el('div');
    col.style.minWidth = '0';
    col.style.flex = '1 1 20rem';
    col.append(doublingText, doublingTable);
    host.append(workChart.element, col);
  },
});

function doublingParams(): Params {
  const rows = state.rows;
  if (rows.length < 2) return {};
  const a = rows[rows.length - 2]!, b = rows[rows.length - 1]!;
  return {
    d: state.rowsD, T0: a.T, T1: b.T,
    gruWork: fmtRatio(b.gruMacs / a.gruMacs), gruTime: fmtRatio(b.gruMs / a.gruMs),
    attnWork: fmtRatio(b.attnMacs / a.attnMacs), attnTime: fmtRatio(b.attnMs / a.attnMs),
    more: fmtRatio(b.attnMacs / b.gruMacs),
  };
}

function drawMistake(): void {
  const rows = state.rows;
  workChart.update([
    { name: () => ch.t('seriesGru'), points: rows.map((r) => [r.T, r.gruMacs]) },
    { name: () => ch.t('seriesAttn'), points: rows.map((r) => [r.T, r.attnMacs]) },
  ]);
  doublingTable.replaceChildren();
  doublingWait.render(rows.length < 2);
  doubling.render(rows.length >= 2);
  if (rows.length < 2) return;
  const pairs = rows.slice(1).map((r, i) => [rows[i]!, r] as const);
  doublingTable.setAttribute('aria-label', ch.t('tableDoubling', { d: state.rowsD }));
  doublingTable.append(textTable(ch.t('tableDoubling', { d: state.rowsD }),
    [ch.t('thStep'), ch.t('thGruWork'), ch.t('thGruTime'), ch.t('thAttnWork'), ch.t('thAttnTime')],
    pairs.map(([p, q]) => [`${p.T} → ${q.T}`, fmtRatio(q.gruMacs / p.gruMacs), fmtRatio(q.gruMs / p.gruMs),
      fmtRatio(q.attnMacs / p.attnMacs), fmtRatio(q.attnMs / p.attnMs)])));
}

// ---- (b) the two translators, (c) gradients through many steps, (d) attention ignores order
const models = modelsSection(ch);
const gradients = gradientSection(ch);
const order = orderSection(ch);

ch.onLocale(() => {
  renderTimingText();
  drawMistake();
});

renderTimingText();
drawTiming();
void measure();
void models.run();
void gradients.run();
void order.run();
