// Chapter 11, "Efficiency". Every number from the engine (src/api/tfp_learn_efficiency_api.h):
//   1. the cost of full attention over T = 128 … 1024 for the reader's d_model and heads,
//      timed in the worker (engine.learn('efficiencyTiming'): full, the same with the
//      sparse pattern as a dense −∞ mask, the sparse path, linear attention), with the
//      score bytes H·T²·4 the engine reports;
//   2. the sparse patterns (window, dilated, global; causal) as the engine's (T, T) mask
//      (engine.learn('sparsePattern')), the exercise "how much faster at T = 1024" and
//      the mistake "masking saves time" with the measured full / masked / sparse times;
//   3. linear attention's time and its relative error against full attention (same run);
//      then on a Q, K, V the reader types, step by step with its running state, beside
//      softmax, and the exercise "which outputs move" (linear_typed.ts);
//   4. brown-gpt with int8 weights on a held-out passage (engine.learn('int8Model')): the
//      largest logit change, both perplexities, the bytes; before it, the int8 rule written
//      out and a matrix the reader types quantised per tensor and per row by that rule,
//      replayed in float32 in the page (int8_rule.mjs: the engine has no call that
//      quantises a given matrix; the replay is checked bit for bit against the engine's
//      int8 load in the chapter's browser test).
// The only other arithmetic here reads engine numbers: ratios of two of them, a share of pairs.
import type { EfficiencyRow, Int8ModelResult, SparseKindId, SparsePatternResult, SparseReachResult } from '../../../engine/learn_calls/efficiency';
import { el } from '../../../widgets/dom';
import { Heatmap } from '../../../widgets/heatmap';
import { LineChart } from '../../../widgets/line_chart';
import { NumberMatrix } from '../../../widgets/number_matrix';
import { textTable } from '../../../widgets/tables';
import { parseMatrix, quantiseMatrix, type Int8Scheme } from './int8_rule.mjs';
import { linearTypedSection } from './linear_typed';
import { startChapter } from '../../chapter';
import { proseHtml } from '../../maths';
import { fixed, num, pct, subscript, texNum } from '../../format';
import { TEXT, type Key } from './text';
import './efficiency.css';

const LENGTHS = [128, 256, 512, 1024];
const EXERCISE_T = 1024;
const PATTERN_T = 32;
const REPEATS = 3;
const SEED = 1;
const MODEL = 'brown-gpt';
/** Held-out Brown document ca10 (train/brown.h: every 10th file is held out), its first
 *  five sentences as brown-gpt's training text is written (brown::document_text). */
const SAMPLE = 'Vincent G. Ierulli has been appointed temporary assistant district attorney, it was announced Monday by '
  + 'Charles E. Raymond, District Attorney. Ierulli will replace Desmond D. Connall who has been called to active military '
  + 'service but is expected back on the job by March 31. Ierulli, 29, has been practicing in Portland since November, 1959. '
  + 'He is a graduate of Portland University and the Northwestern College of Law. He is married and the father of three children.';

const ch = startChapter('efficiency', TEXT);

/** The int8 widget's starting matrices: a small row beside a large one (per tensor crushes
 *  it), ties (x/s exactly k + ½ in float32), one outlier in a row. */
const QUANT_PRESETS: { key: Key; text: string }[] = [
  { key: 'quantPresetRows', text: '0.5 -1.2 0.03 2.54\n0.01 0.02 -0.015 0.004' },
  { key: 'quantPresetTies', text: '127 2.5 -2.5 0.5\n-1.5 0.25 12.7 0' },
  { key: 'quantPresetOutlier', text: '0.11 -0.07 0.02 9.5 0.05 -0.13\n0.09 0.04 -0.12 0.08 -0.03 0.1' },
];
const QUANT_MAX_ROWS = 8, QUANT_MAX_COLS = 12;
const QUANT_ERRORS = { empty: 'quantErrEmpty', rows: 'quantErrRows', cols: 'quantErrCols', ragged: 'quantErrRagged', number: 'quantErrNumber' } as const satisfies Record<string, Key>;

const KINDS: { id: SparseKindId; key: Key }[] = [
  { id: 0, key: 'kindWindow' }, { id: 1, key: 'kindDilated' }, { id: 2, key: 'kindGlobal' },
];

const state = {
  d: 128,
  heads: 4,
  kind: 0 as SparseKindId,
  window: 2,        // the drawn pattern's w (T = 32)
  dilation: 2,
  nGlobal: 2,
  causal: false,
  timingWindow: 64,  // the timed pattern's w (T up to 1024)
  pattern: null as (SparsePatternResult & { T: number; kind: SparseKindId; window: number; dilation: number; nGlobal: number; causal: boolean }) | null,
  /** The latest timing sweep and what it was measured for. */
  timing: null as { rows: EfficiencyRow[]; d: number; heads: number; kind: SparseKindId; window: number; dilation: number; nGlobal: number } | null,
  measuring: false,
  exercise: null as EfficiencyRow | null,
  reach: null as (SparseReachResult & { T: number; kind: SparseKindId; window: number; dilation: number; nGlobal: number; causal: boolean; layers: number }) | null,
  sample: SAMPLE,
  int8: null as (Int8ModelResult & { ids: number[] }) | null,
  /** The typed matrix quantised by the engine's int8 rule, per tensor and per row (int8_rule.mjs). */
  quant: null as ({ text: string; rows: number; cols: number; x: number[]; tensor: Int8Scheme; channel: Int8Scheme }) | null,
};
ch.debug.state = state;

const kindName = (k: SparseKindId) => ch.t(KINDS[k]!.key);
/** The timed pattern in words: "window w = 64", "dilated w = 64, d = 2", "global g = 2, w = 64". */
function patternText(t: { kind: SparseKindId; window: number; dilation: number; nGlobal: number }): string {
  const w = `w = ${t.window}`;
  return t.kind === 0 ? `${kindName(0)} ${w}` : t.kind === 1 ? `${kindName(1)} ${w}, d = ${t.dilation}` : `${kindName(2)} g = ${t.nGlobal}, ${w}`;
}
const ratio = (a: number, b: number) => num(a / b, a / b >= 10 ? 0 : 1);

// ---- 1. the cost -------------------------------------------------------------------
const s1 = ch.section('hCost');
ch.prose(s1, 'costIntro');
const tfig = ch.figure(s1, { caption: 'figTiming', label: 'figTimingLabel', table: (host) => host.replaceChildren(timingTable()) });
tfig.controls.append(
  ch.segmented('dModel', 'eff-d', [64, 128, 256] as const, state.d, (v) => { state.d = v; remeasure(); }),
  ch.segmented('heads', 'eff-heads', [1, 2, 4, 8] as const, state.heads, (v) => { state.heads = v; remeasure(); }),
  ch.segmented('timingWindow', 'eff-tw', [16, 32, 64, 128] as const, state.timingWindow, (v) => { state.timingWindow = v; remeasure(); }),
);
const again = ch.button('measureAgain');
again.addEventListener('click', () => void measure());
const status = el('p', 'eff-status');
status.setAttribute('role', 'status');
tfig.controls.append(again, status);
const timeChart = new LineChart({ label: () => ch.t('chartTime'), xLabel: () => ch.t('axisT'), yLabel: () => ch.t('axisMs'),
                                  xLog: true, yLog: true, xFormat: (v) => String(v) });
const bytesChart = new LineChart({ label: () => ch.t('chartBytes'), xLabel: () => ch.t('axisT'), yLabel: () => ch.t('axisBytes'),
                                   xLog: true, yLog: true, xFormat: (v) => String(v),
                                   yFormat: (v) => v.toExponential(0).replace('e+', 'e') });
const measuredFor = el('p', 'eff-note');
const costSummary = el('p', 'eff-summary');
const charts = el('div', 'eff-charts');
charts.append(timeChart.element, bytesChart.element);
tfig.view.append(measuredFor, charts, costSummary);
tfig.view.classList.add('eff-view');
const scoreFormula = ch.formula(s1, () => {
  const r = state.timing?.rows[state.timing.rows.length - 1];
  const h = state.timing?.heads ?? state.heads;
  return String.raw`\begin{aligned} M_{\text{scores}} &= H \cdot T^2 \cdot 4 \text{ B}` + (r ? String.raw` \\ &= ${h} \cdot ${r.T}^2 \cdot 4 = ${texNum(r.scoreBytes)} \text{ B}` : '') + String.raw`\end{aligned}`;
});

function timingTable(): HTMLTableElement {
  const t = state.timing;
  const rows = t?.rows.map((r) => [r.T, fixed(r.fullMs, 2), fixed(r.maskedMs, 2), fixed(r.sparseMs, 2), fixed(r.linearMs, 2),
                                   num(r.scoreBytes), num(r.sparsePairs), fixed(r.linearRelErr, 3), r.sparseDiff.toExponential(1)]) ?? [];
  return textTable(ch.t('tableTiming', { d: t?.d ?? state.d, h: t?.heads ?? state.heads, pattern: t ? patternText(t) : '' }),
    [ch.t('thT'), ch.t('thFull'), ch.t('thMasked'), ch.t('thSparse'), ch.t('thLinear'), ch.t('thScoreBytes'), ch.t('thSparsePairs'),
     ch.t('thLinErr'), ch.t('thDiff')], rows, 'eff-table');
}

function renderStatus(): void {
  status.textContent = state.measuring ? ch.t('measuring', { Ts: LENGTHS.join(', ') }) : '';
  again.disabled = state.measuring;
}

function renderTiming(): void {
  const t = state.timing;
  renderStatus();
  if (!t) return;
  const rows = t.rows;
  timeChart.update([
    { name: () => ch.t('seriesFull'), points: rows.map((r) => [r.T, r.fullMs]) },
    { name: () => ch.t('seriesMasked'), points: rows.map((r) => [r.T, r.maskedMs]), dashed: true },
    { name: () => ch.t('seriesSparse'), points: rows.map((r) => [r.T, r.sparseMs]) },
    { name: () => ch.t('seriesLinear'), points: rows.map((r) => [r.T, r.linearMs]) },
  ]);
  bytesChart.update([
    { name: () => ch.t('seriesScoreBytes'), points: rows.map((r) => [r.T, r.scoreBytes]) },
    { name: () => ch.t('seriesSparseBytes'), points: rows.map((r) => [r.T, r.sparseBytes]) },
    { name: () => ch.t('seriesLinearBytes'), points: rows.map((r) => [r.T, r.linearBytes]) },
  ]);
  measuredFor.textContent = ch.t('measuredFor', { d: t.d, h: t.heads, D: t.d / t.heads, pattern: patternText(t) });
  const a = rows[rows.length - 2]!, b = rows[rows.length - 1]!;
  costSummary.textContent = ch.t('costSummary', { T0: a.T, T1: b.T, x: b.T / a.T, tf: ratio(b.fullMs, a.fullMs), mf: ratio(b.scoreBytes, a.scoreBytes),
                                                  mib: num(b.scoreBytes / 1048576, 0) });
  scoreFormula.update();
  tfig.refreshTable();
  sparsePath.rerender();
  renderMistake();
  renderLinear();
  ch.debug.renders++;
}
ch.onLocale(renderTiming);

let sweep = 0;
async function measure(): Promise<void> {
  const mine = ++sweep;
  state.measuring = true;
  renderStatus();
  const args = { d: state.d, heads: state.heads, kind: state.kind, window: state.timingWindow, dilation: state.dilation, nGlobal: state.nGlobal };
  try {
    const engine = await ch.engine();
    const { rows } = await engine.learn('efficiencyTiming', { ...args, lengths: LENGTHS, repeats: REPEATS, seed: SEED });
    if (mine !== sweep) return;
    state.timing = { rows, ...args };
  } catch (e) {
    if (mine === sweep) ch.showError(e);
  } finally {
    if (mine === sweep) {
      state.measuring = false;
      renderTiming();
    }
  }
}

let remeasureTimer = 0;
/** The timed shape or pattern changed: the exercise asks again, the sweep reruns (once). */
function remeasure(): void {
  exercise.refresh();
  window.clearTimeout(remeasureTimer);
  remeasureTimer = window.setTimeout(() => void measure(), 150);
}

// ---- 2. sparse patterns ------------------------------------------------------------
const s2 = ch.section('hPatterns');
ch.prose(s2, 'patternsIntro');
const pfig = ch.figure(s2, { caption: 'figPattern', label: 'figPatternLabel' });
const paramBox = el('div', 'eff-params');
function renderParams(): void {
  const fields: HTMLElement[] = [ch.segmented('patWindow', 'eff-w', [0, 1, 2, 3, 4] as const, state.window, (v) => { state.window = v; void drawPattern(); })];
  if (state.kind === 1) fields.push(ch.segmented('patDilation', 'eff-dil', [2, 3, 4] as const, state.dilation, (v) => { state.dilation = v; void drawPattern(); remeasure(); }));
  if (state.kind === 2) fields.push(ch.segmented('patGlobal', 'eff-g', [1, 2, 4] as const, state.nGlobal, (v) => { state.nGlobal = v; void drawPattern(); remeasure(); }));
  paramBox.replaceChildren(...fields);
}
const causalBox = el('input');
causalBox.type = 'checkbox';
causalBox.checked = state.causal;
causalBox.addEventListener('change', () => { state.causal = causalBox.checked; void drawPattern(); });
const causalField = el('div', 'field eff-check');
const causalLabel = el('label');
causalLabel.htmlFor = causalBox.id = 'eff-causal';
ch.bind(causalLabel, 'causal');
causalField.append(causalBox, causalLabel);
const kindSeg = ch.segmented('kind', 'eff-kind', [0, 1, 2] as const, state.kind,
                             (v) => { state.kind = v; renderParams(); void drawPattern(); remeasure(); }, (v) => kindName(v));
ch.onLocale(() => kindSeg.querySelectorAll('label').forEach((l, i) => { l.textContent = kindName(KINDS[i]!.id); }));
pfig.controls.append(kindSeg, paramBox, causalField);
renderParams();
const map = new Heatmap({ title: ch.t('mapTitle', { T: PATTERN_T }), rowAxis: () => ch.t('axisQuery'), colAxis: () => ch.t('axisKey'), digits: 0, maxCell: 14 });
const count = el('p', 'eff-summary eff-count');
count.setAttribute('aria-live', 'polite');
pfig.view.append(map.element, count);
const sparsePath = ch.prose(s2, 'sparsePath', () => {
  const r = state.timing?.rows[state.timing.rows.length - 1];
  return { diff: r ? r.sparseDiff.toExponential(1) : '…', T: r?.T ?? EXERCISE_T };
});

function renderPattern(): void {
  const p = state.pattern;
  if (!p) return;
  const labels = Array.from({ length: p.T }, (_, i) => String(i));
  map.setTitle(ch.t('mapTitle', { T: p.T }));
  map.update({ rowLabels: labels, colLabels: labels, values: Float32Array.from(p.mask) });
  count.innerHTML = ch.t('patternCount', { pairs: num(p.pairs), total: num(p.T * p.T), share: pct(p.pairs / (p.T * p.T)), T: p.T });
  ch.debug.renders++;
}
ch.onLocale(renderPattern);

let patternRun = 0;
async function drawPattern(): Promise<void> {
  const mine = ++patternRun;
  try {
    const engine = await ch.engine();
    const args = { kind: state.kind, T: PATTERN_T, window: state.window, dilation: state.dilation, nGlobal: state.nGlobal, causal: state.causal };
    const r = await engine.learn('sparsePattern', args);
    if (mine !== patternRun) return;
    state.pattern = { ...r, ...args };
    renderPattern();
    void drawReach();
  } catch (e) {
    if (mine === patternRun) ch.showError(e);
  }
}

// Exercise: how much faster is the sparse path at T = 1024? Answered by a fresh timing.
const exercise = ch.exercise(s2, {
  id: 'sparse-speed',
  question: 'exQuestion',
  questionParams: () => ({ w: state.timingWindow, d: state.d, h: state.heads }),
  choices: () => (['exNone', 'exSmall', 'exMid', 'exLarge'] as const).map((k) => ch.t(k)),
  answer: async () => {
    const engine = await ch.engine();
    const { rows } = await engine.learn('efficiencyTiming', {
      d: state.d, heads: state.heads, lengths: [EXERCISE_T], kind: 0, window: state.timingWindow, dilation: 1, nGlobal: 0, repeats: REPEATS, seed: SEED,
    });
    const r = rows[0]!;
    state.exercise = r;
    const speedup = r.fullMs / r.sparseMs;
    const total = r.T * r.T;
    return {
      correct: speedup < 1.5 ? 0 : speedup < 3 ? 1 : speedup < 6 ? 2 : 3,
      explanation: ch.t('exExplain', { full: fixed(r.fullMs, 2), sparse: fixed(r.sparseMs, 2), ratio: num(speedup, 1), pairs: num(r.sparsePairs),
                                       total: num(total), share: pct(r.sparsePairs / total), work: num(total / r.sparsePairs, 1) }),
    };
  },
});

// Mistake: masking saves time. The measured full / masked / sparse times, side by side.
const mistakeTable = el('div', 'eff-table-box');
const mistake = ch.mistake(s2, { title: 'mistakeTitle', body: 'mistakeBody',
                                 bodyParams: () => {
                                   const t = state.timing, r = t?.rows[t.rows.length - 1];
                                   if (!t || !r) return { pattern: '…', T: '…', full: '…', masked: '…', maskedRatio: '…', sparse: '…', sparseRatio: '…', total: '…', pairs: '…', share: '…' };
                                   return { pattern: patternText(t), T: r.T, full: fixed(r.fullMs, 2), masked: fixed(r.maskedMs, 2), maskedRatio: fixed(r.maskedMs / r.fullMs, 2),
                                            sparse: fixed(r.sparseMs, 2), sparseRatio: fixed(r.sparseMs / r.fullMs, 2), total: num(r.T * r.T), pairs: num(r.sparsePairs),
                                            share: pct(r.sparsePairs / (r.T * r.T)) };
                                 },
                                 demo: (host) => host.append(mistakeTable) });
function renderMistake(): void {
  const rows = state.timing?.rows ?? [];
  mistakeTable.replaceChildren(textTable(ch.t('mistakeTable'),
    [ch.t('thT'), ch.t('thFull'), ch.t('thMasked'), ch.t('thSparse'), ch.t('thMaskedRatio'), ch.t('thSparseRatio')],
    rows.map((r) => [r.T, fixed(r.fullMs, 2), fixed(r.maskedMs, 2), fixed(r.sparseMs, 2), fixed(r.maskedMs / r.fullMs, 2), fixed(r.fullMs / r.sparseMs, 1)]),
    'eff-table'));
  mistake.rerender();
}

// Mistake: a window never sees far. The engine follows the pattern through L layers.
const reachMap = new Heatmap({ title: ch.t('reachTitle', { T: PATTERN_T }), rowAxis: () => ch.t('axisQuery'), colAxis: () => ch.t('axisKey'),
                               digits: 0, maxCell: 12 });
const reachText = el('p', 'eff-summary eff-reach');
reachText.setAttribute('aria-live', 'polite');
let reachL = 2;
const reachLayers = ch.segmented('reachLayers', 'eff-layers', [1, 2, 3, 4] as const, reachL, (v) => { reachL = v; void drawReach(); });
ch.mistake(s2, { title: 'mistake2Title', body: 'reach', demo: (host) => host.append(reachLayers, reachMap.element, reachText) });

function renderReach(): void {
  const r = state.reach;
  if (!r) return;
  const labels = Array.from({ length: r.T }, (_, i) => String(i));
  reachMap.setTitle(ch.t('reachTitle', { T: r.T }));
  reachMap.update({ rowLabels: labels, colLabels: labels, values: Float32Array.from(r.first), domain: [0, r.layers] });
  reachText.innerHTML = proseHtml(ch.t('reachReadout', { L: r.layers, far: r.farthest, w: r.window }));
  ch.debug.renders++;
}
ch.onLocale(renderReach);

let reachRun = 0;
async function drawReach(): Promise<void> {
  const mine = ++reachRun;
  try {
    const engine = await ch.engine();
    const args = { kind: state.kind, T: PATTERN_T, window: state.window, dilation: state.dilation, nGlobal: state.nGlobal, causal: state.causal, layers: reachL };
    const r = await engine.learn('sparseReach', args);
    if (mine !== reachRun) return;
    state.reach = { ...r, ...args };
    renderReach();
  } catch (e) {
    if (mine === reachRun) ch.showError(e);
  }
}

// ---- 3. linear attention -----------------------------------------------------------
const s3 = ch.section('hLinear');
ch.prose(s3, 'linearIntro');
ch.formula(s3, () => String.raw`\begin{aligned} \text{out}_i &= \frac{\phi(q_i)^\top S}{\phi(q_i)^\top z} \\ S &= \textstyle\sum_j \phi(k_j)\, v_j^\top \quad (D \times D) \\ z &= \textstyle\sum_j \phi(k_j) \quad (D) \end{aligned}`);
const lfig = ch.figure(s3, { caption: 'figLinear', label: 'figLinearLabel', table: (host) => host.replaceChildren(linearTable()) });
const errChart = new LineChart({ label: () => ch.t('chartErr'), xLabel: () => ch.t('axisT'), yLabel: () => ch.t('axisErr'),
                                 xLog: true, xFormat: (v) => String(v) });
const linearReadout = el('p', 'eff-summary');
lfig.view.append(errChart.element, linearReadout);
lfig.view.classList.add('eff-view');

function linearTable(): HTMLTableElement {
  return textTable(ch.t('figLinearLabel'), [ch.t('thT'), ch.t('thLinear'), ch.t('thFull'), ch.t('thLinErr')],
    (state.timing?.rows ?? []).map((r) => [r.T, fixed(r.linearMs, 2), fixed(r.fullMs, 2), fixed(r.linearRelErr, 3)]), 'eff-table');
}

function renderLinear(): void {
  const rows = state.timing?.rows ?? [];
  errChart.update([{ name: () => ch.t('seriesErr'), points: rows.map((r) => [r.T, r.linearRelErr]) }]);
  const r = rows[rows.length - 1];
  linearReadout.textContent = r ? ch.t('linearReadout', { T: r.T, lin: fixed(r.linearMs, 2), full: fixed(r.fullMs, 2), lbytes: num(r.linearBytes),
                                                         sbytes: num(r.scoreBytes), err: fixed(r.linearRelErr, 3) }) : '';
  lfig.refreshTable();
}
linearTypedSection(ch, s3);

// ---- 4. int8 weights ---------------------------------------------------------------
const s4 = ch.section('hInt8');
ch.prose(s4, 'int8Intro');
ch.formula(s4, () => String.raw`\begin{aligned} s_o &= \max_i |W_{oi}| \,/\, 127 \\ q_{oi} &= \mathrm{round}(W_{oi} / s_o) \in [-127, 127] \quad (\text{ties away from } 0) \\ W'_{oi} &= q_{oi}\, s_o, \qquad |W'_{oi} - W_{oi}| \le s_o / 2 \end{aligned}`);
ch.prose(s4, 'int8Rule');
const qfig = ch.figure(s4, { caption: 'figQuant', label: 'figQuantLabel', table: (host) => host.replaceChildren(quantTable()) });
const quantIn = el('textarea');
quantIn.rows = 4;
quantIn.value = QUANT_PRESETS[0]!.text;
quantIn.spellcheck = false;
const quantHelp = el('p', 'help');
ch.bind(quantHelp, 'quantHelp');
const quantField = ch.field('quantLabel', quantIn, 'eff-quant', { help: quantHelp }).element;
quantField.classList.add('eff-sample');
const quantPresets = el('div', 'eff-presets');
for (const pr of QUANT_PRESETS) {
  const b = ch.button(pr.key);
  b.addEventListener('click', () => { quantIn.value = pr.text; renderQuant(); });
  quantPresets.append(b);
}
qfig.controls.append(quantField, quantPresets);
const quantError = el('p', 'eff-status');
quantError.setAttribute('role', 'status');
const quantNote = el('p', 'eff-note');
ch.bind(quantNote, 'quantNumbering');
const rowLabel = (r: number) => () => ch.t('quantRow', { r: r + 1 });
const colLabel = (c: number) => () => ch.t('quantCol', { c: c + 1 });
const intFmt = (v: number) => String(v).replace('-', '−');
const errFmt = (v: number) => (v === 0 ? '0' : Math.abs(v) >= 1e-3 ? v.toFixed(4) : v.toExponential(1)).replace(/-/g, '−');
const scheme = (key: Key) => {
  const box = el('div', 'eff-quant-side');
  const title = el('p', 'eff-quant-title');
  ch.bind(title, key);
  const scales = el('p', 'eff-summary eff-quant-scales');
  const qm = new NumberMatrix(1, 1, { label: () => `${ch.t(key)}: ${ch.t('quantQ')}`, format: intFmt, colAxis: () => ch.t('quantColAxis') });
  const em = new NumberMatrix(1, 1, { label: () => `${ch.t(key)}: ${ch.t('quantErr')}`, format: errFmt, colAxis: () => ch.t('quantColAxis'),
                                      });
  const worst = el('p', 'eff-summary eff-quant-worst');
  box.append(title, scales, qm.element, em.element, worst);
  return { box, scales, qm, em, worst };
};
const perTensor = scheme('quantTensor');
const perChannel = scheme('quantChannel');
const quantSides = el('div', 'eff-quant');
quantSides.append(perTensor.box, perChannel.box);
qfig.view.append(quantError, quantNote, quantSides);
qfig.view.classList.add('eff-view');

function quantTable(): HTMLTableElement {
  const r = state.quant;
  const rows = r ? r.x.map((x, i) => {
    const row = Math.floor(i / r.cols), col = i % r.cols;
    return [ch.t('quantRow', { r: row + 1 }), ch.t('quantCol', { c: col + 1 }), String(x), r.tensor.q[i]!, String(r.tensor.deq[i]), errFmt(r.tensor.err[i]!),
            r.channel.q[i]!, String(r.channel.deq[i]), errFmt(r.channel.err[i]!)];
  }) : [];
  return textTable(ch.t('figQuantLabel'), [ch.t('thRow'), ch.t('thCol'), 'x', `${ch.t('quantTensor')}: q`, `${ch.t('quantTensor')}: x′`,
                   `${ch.t('quantTensor')}: x′ − x`, `${ch.t('quantChannel')}: q`, `${ch.t('quantChannel')}: x′`, `${ch.t('quantChannel')}: x′ − x`], rows, 'eff-table');
}

function renderQuant(): void {
  const parsed = parseMatrix(quantIn.value, QUANT_MAX_ROWS, QUANT_MAX_COLS);
  if (parsed.error !== undefined) {
    quantError.textContent = ch.t(QUANT_ERRORS[parsed.error], { rows: QUANT_MAX_ROWS, cols: QUANT_MAX_COLS });
    quantSides.hidden = true;
    return;
  }
  quantError.textContent = '';
  quantSides.hidden = false;
  const { rows, cols, values } = parsed;
  const r = quantiseMatrix(values, rows, cols);
  state.quant = { text: quantIn.value, rows, cols, ...r };
  const shape = { rows, cols, rowLabels: Array.from({ length: rows }, (_, i) => rowLabel(i)), colLabels: Array.from({ length: cols }, (_, i) => colLabel(i)) };
  const show = (side: typeof perTensor, s: Int8Scheme, tensor: boolean) => {
    side.scales.textContent = tensor ? ch.t('quantScaleOne', { s: String(s.scales[0]) })
      : ch.t('quantScaleRows', { s: s.scales.map((v, i) => `s${subscript(i + 1)} = ${v}`).join(', ') });
    side.qm.set(s.q, shape);
    side.em.set(s.err, shape);
    let worst = 0;
    s.err.forEach((e, i) => { if (Math.abs(e) > Math.abs(s.err[worst]!)) worst = i; });
    const sc = tensor ? s.scales[0]! : s.scales[Math.floor(worst / cols)]!;
    side.worst.textContent = ch.t('quantWorst', { e: errFmt(Math.abs(s.err[worst]!)), r: Math.floor(worst / cols) + 1, c: (worst % cols) + 1,
                                                  half: errFmt(sc / 2),
                                                  rel: Array.from({ length: rows }, (_, i) => ch.t('quantRowRel', { r: i + 1, p: relErr(s.err.slice(i * cols, (i + 1) * cols), r.x.slice(i * cols, (i + 1) * cols)) })).join(ch.t('listSep')) });
  };
  show(perTensor, r.tensor, true);
  show(perChannel, r.channel, false);
  qfig.refreshTable();
  ch.debug.renders++;
}
/** ‖x′ − x‖ / ‖x‖ as a percentage. */
function relErr(err: number[], x: number[]): string {
  const n = Math.hypot(...x);
  return n > 0 ? pct(Math.hypot(...err) / n, 1) : '0 %';
}
let quantTyping = 0;
quantIn.addEventListener('input', () => {
  window.clearTimeout(quantTyping);
  quantTyping = window.setTimeout(renderQuant, 150);
});
ch.onLocale(renderQuant);
renderQuant();

const ifig = ch.figure(s4, { caption: 'figInt8', label: 'figInt8Label', table: (host) => host.replaceChildren(int8Table()) });
const sampleIn = el('textarea');
sampleIn.rows = 4;
sampleIn.value = state.sample;
sampleIn.spellcheck = false;
const sampleHelp = el('p', 'help');
ch.bind(sampleHelp, 'sampleHelp');
const sampleField = ch.field('sampleLabel', sampleIn, 'eff-sample', { help: sampleHelp }).element;
sampleField.classList.add('eff-sample');
ifig.controls.append(sampleField);
const int8Status = el('p', 'eff-status');
int8Status.setAttribute('role', 'status');
const int8Readout = el('p', 'eff-summary eff-int8');
const int8Box = el('div', 'eff-table-box');
ifig.view.append(int8Status, int8Readout, int8Box);
ifig.view.classList.add('eff-view');
ch.prose(s4, 'int8Note');

function int8Table(): HTMLTableElement {
  const r = state.int8;
  const rows = r ? [
    [ch.t('rowPpl'), fixed(r.pplF32, 2), fixed(r.pplInt8, 2)],
    [ch.t('rowBytes'), num(r.bytesF32), num(r.bytesInt8)],
    [ch.t('rowWeights'), num(r.weights - r.quantised), num(r.quantised)],
    [ch.t('rowMaxDiff'), '0', fixed(r.maxLogitDiff, 4)],
  ] : [];
  return textTable(ch.t('figInt8Label'), [ch.t('thQuantity'), ch.t('thF32'), ch.t('thInt8')], rows, 'eff-table');
}

function renderInt8(): void {
  const r = state.int8;
  if (!r) return;
  const change = r.pplInt8 / r.pplF32 - 1;
  int8Readout.innerHTML = ch.t('int8Readout', {
    n: r.ids.length, pred: r.ids.length - 1, diff: fixed(r.maxLogitDiff, 4), p32: fixed(r.pplF32, 2), p8: fixed(r.pplInt8, 2),
    change: `${change >= 0 ? '+' : ''}${pct(change, 2)}`, b32: num(r.bytesF32), b8: num(r.bytesInt8), ratio: num(r.bytesInt8 / r.bytesF32, 2),
    werr: fixed(r.maxWeightErr, 5),
  });
  int8Box.replaceChildren(int8Table());
  ifig.refreshTable();
  ch.debug.renders++;
}
ch.onLocale(renderInt8);

let int8Run = 0;
async function runInt8(): Promise<void> {
  const mine = ++int8Run;
  const text = sampleIn.value;
  int8Status.textContent = ch.t('int8Running');
  try {
    const engine = await ch.engine();
    const model = await ch.model(MODEL);
    const enc = await model.tokenize(text);
    const ids = Int32Array.from(enc.ids).slice(0, model.info.max_positions);
    if (ids.length < 2) { int8Status.textContent = ''; return; }
    const r = await engine.learn('int8Model', { model: model.id, ids });
    if (mine !== int8Run) return;
    state.sample = text;
    state.int8 = { ...r, ids: Array.from(ids) };
    int8Status.textContent = '';
    renderInt8();
  } catch (e) {
    if (mine === int8Run) { int8Status.textContent = ''; ch.showError(e); }
  }
}
let typing = 0;
sampleIn.addEventListener('input', () => {
  window.clearTimeout(typing);
  typing = window.setTimeout(() => void runInt8(), 300);
});

// The pattern first (quick), then the int8 run, then the timing sweep (a second or two).
renderStatus();
void drawPattern().then(() => runInt8()).then(() => measure());
