// Learn chapter 4, "Softmax": one row of scores the reader edits (with masks and a
// temperature) through the engine's softmax, step by step; the naive formula beside it
// (why the maximum is subtracted); each row's entropy (the engine's head statistics); a
// fully masked row; masking before the softmax against zeroing after it (and
// renormalising) on a causal matrix; a finite mask value (−1e9, −1e4, …) in float32,
// float16 or bfloat16; the weights against τ; an exercise; two common mistakes. Every number shown comes from the engine
// (learn_calls/softmax.ts → src/api/tfp_learn_softmax_api.h); this file only arranges
// inputs and draws what comes back, except three small steps said in the captions: zeroing
// and renormalising weights (float32, Math.fround), and rounding to f16/bf16
// (float16.mjs: the engine has no call that rounds a typed number to 16 bits).
//
// window.tfpLearn.state holds the inputs and the engine's last results (tests read it).
import type { Engine } from 'transformer-playground';
import type { SoftmaxRowResult } from '../../../engine/learn_calls/softmax';
import { LineChart } from '../../../widgets/line_chart';
import { NumberMatrix } from '../../../widgets/number_matrix';
import { ProbBars } from '../../../widgets/prob_bars';
import { startChapter } from '../../chapter';
import { TEXT } from './text';
import { roundToDtype } from './float16.mjs';
import { entropies } from './entropy';
import { sharpnessExercise } from './sharpness_exercise';
import './softmax.css';

type Key = keyof typeof TEXT.en;
const ch = startChapter('softmax', TEXT);
const t = (k: Key, p?: Record<string, string | number>) => ch.t(k, p);

// ---- inputs -------------------------------------------------------------------------
/** The temperatures the slider steps through (exact values, so a reader can reproduce them). */
const TAUS = [0.02, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.25, 1.5, 2, 2.5, 3, 4, 5, 7, 10, 20, 50, 100];
/** The temperatures of the sweep (figure 4). */
const SWEEP = Float32Array.of(0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1, 1.5, 2, 3, 5, 10, 20, 50, 100);
const MIN_KEYS = 2, MAX_KEYS = 8;
const OFFSETS = [0, 50, 86, 87, 100, 1000, -200];

const state = {
  scores: [2, 1, 0.1, -1],
  masked: [0, 0, 0, 0],
  tauIndex: TAUS.indexOf(1),
  offset: 0,
  hideKey: 3,
  /** Figure "a finite mask value": the value written into masked scores and the dtype the scores are held in. */
  maskValue: -1e4,
  dtype: 'f32' as Dtype,
};
type Dtype = 'f32' | 'f16' | 'bf16';
const MASK_VALUES = [-Infinity, -1e9, -1e4, -30, -5] as const;
const DTYPES = ['f32', 'f16', 'bf16'] as const;
/** −∞, −1e9 and −1e4 as written in code; any other value as it is. */
const maskText = (v: number) => {
  if (v === -Infinity) return '−∞';
  const e = Math.round(Math.log10(Math.abs(v)));
  return e >= 4 && v === -(10 ** e) ? `−1e${e}` : String(v).replace('-', '−');
};
const tau = () => TAUS[state.tauIndex]!;
const n = () => state.scores.length;
const keyName = (j: number) => () => t('key', { n: j + 1 });
const keyLabels = () => state.scores.map((_, j) => keyName(j));

/** Values as text: ∞, −∞ and NaN spelled out; very large or small ones in e-notation. */
function fmt(v: number, digits = 4): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '∞';
  if (v === -Infinity) return '−∞';
  if (v === 0) return '0';
  const a = Math.abs(v);
  const s = a >= 1e6 || a < 10 ** -digits ? v.toExponential(3).replace('e+', 'e') : v.toFixed(a >= 100 ? Math.min(digits, 2) : digits);
  return s.replace('-', '−');
}
const fmtTau = (v: number) => String(v);

// ---- engine -------------------------------------------------------------------------
let engine: Engine | null = null;
function row(scores: number[], masked: number[], temperature: number, variant: 'stable' | 'naive'): Promise<SoftmaxRowResult> {
  return engine!.learn('softmaxRow', { scores: Float32Array.from(scores), masked: Uint8Array.from(masked), temperature, variant });
}

// ---- section 1: the row ---------------------------------------------------------------
const s1 = ch.section('hWhat');
ch.prose(s1, 'what');
ch.formula(s1, () => String.raw`\begin{gathered}\sym{p}{p_j} = \frac{e^{\sym{z}{z_j}}}{\sum_k e^{z_k}} = \frac{e^{z_j - m}}{\sum_k e^{z_k - m}} \\[0.4em] \sym{z}{z_j} = \frac{\sym{x}{x_j}}{\sym{tau}{\tau}},\qquad m = \max_k z_k\end{gathered}`);

const fig1 = ch.figure(s1, { caption: 'figMain', label: 'figMainLabel', table: (host) => table1(host) });
const scoresM = new NumberMatrix(1, n(), {
  label: () => t('scores'), sym: 'x', rowLabels: [() => t('rowScores')], colLabels: keyLabels(), colAxis: () => t('keyAxis'),
  digits: 2, editable: true, step: 0.1, min: -1e6, max: 1e6,
  onChange: (v) => { state.scores = Array.from(v); void recompute(); },
});
const maskRow = document.createElement('div');
maskRow.className = 'softmax-masks';
const tauField = document.createElement('label');
tauField.className = 'field softmax-tau';
tauField.dataset.sym = 'tau';
const tauText = document.createElement('span');
const tauInput = document.createElement('input');
tauInput.type = 'range';
tauInput.min = '0';
tauInput.max = String(TAUS.length - 1);
tauInput.step = '1';
tauInput.value = String(state.tauIndex);
tauField.append(tauText, tauInput);
tauInput.addEventListener('input', () => { state.tauIndex = Number(tauInput.value); void recompute(); });
const keyButtons = document.createElement('div');
keyButtons.className = 'softmax-keys';
const addBtn = document.createElement('button');
addBtn.type = 'button';
const removeBtn = document.createElement('button');
removeBtn.type = 'button';
keyButtons.append(addBtn, removeBtn);
addBtn.addEventListener('click', () => {
  if (n() >= MAX_KEYS) return;
  state.scores.push(0);
  state.masked.push(0);
  rebuildKeys();
});
removeBtn.addEventListener('click', () => {
  if (n() <= MIN_KEYS) return;
  state.scores.pop();
  state.masked.pop();
  state.hideKey = Math.min(state.hideKey, n() - 1);
  rebuildKeys();
});
const scoresBox = document.createElement('div');
scoresBox.className = 'softmax-scores';
scoresBox.append(scoresM.element, maskRow);
fig1.controls.append(scoresBox, tauField, keyButtons);

const stepsM = new NumberMatrix(3, n(), {
  label: () => t('steps'), rowLabels: [() => t('rowZ'), () => t('rowExpShift'), () => t('rowP')], colLabels: keyLabels(),
  colAxis: () => t('keyAxis'), format: (v) => fmt(v),
});
stepsM.element.dataset.sym = 'z';
const sums1 = document.createElement('p');
sums1.className = 'softmax-sums';
sums1.setAttribute('aria-live', 'polite');
const bars1 = new ProbBars(() => t('bars'), { absolute: true });
bars1.element.dataset.sym = 'p';
const barsBox = document.createElement('div');
barsBox.className = 'softmax-bars';
barsBox.append(bars1.element);
const stepsBox = document.createElement('div');
stepsBox.append(stepsM.element, sums1);
fig1.view.append(stepsBox, barsBox);

ch.prose(s1, 'entropy');

function renderStatic(): void {
  tauText.textContent = t('temperature', { t: fmtTau(tau()) });
  tauInput.setAttribute('aria-valuetext', `τ = ${fmtTau(tau())}`);
  addBtn.textContent = t('addKey');
  removeBtn.textContent = t('removeKey');
  addBtn.disabled = n() >= MAX_KEYS;
  removeBtn.disabled = n() <= MIN_KEYS;
}

function buildMasks(): void {
  maskRow.replaceChildren(...state.scores.map((_, j) => {
    const l = document.createElement('label');
    const box = document.createElement('input');
    box.type = 'checkbox';
    box.checked = state.masked[j] === 1;
    box.dataset.key = String(j);
    const span = document.createElement('span');
    const say = () => { span.textContent = t('maskKey'); box.setAttribute('aria-label', t('maskKeyAria', { n: j + 1 })); };
    say();
    ch.onLocale(say);
    box.addEventListener('change', () => { state.masked[j] = box.checked ? 1 : 0; void recompute(); });
    l.append(box, span);
    return l;
  }));
}

function rebuildKeys(): void {
  scoresM.set(state.scores, { rows: 1, cols: n(), colLabels: keyLabels() });
  buildMasks();
  buildHideSelect();
  void recompute();
}

// ---- section 2: why the max is subtracted ------------------------------------------------
const s2 = ch.section('hStable');
ch.prose(s2, 'stable');
const fig2 = ch.figure(s2, { caption: 'figStable', label: 'figStableLabel', table: (host) => table2(host) });
const offField = document.createElement('label');
offField.className = 'field';
const offText = document.createElement('span');
const offInput = document.createElement('input');
offInput.type = 'number';
offInput.step = '1';
offInput.value = '0';
offInput.className = 'softmax-offset';
offField.append(offText, offInput);
const presets = document.createElement('div');
presets.className = 'softmax-presets';
presets.setAttribute('role', 'group');
const setOffset = (c: number) => { state.offset = c; offInput.value = String(c); void recompute(); };
for (const c of OFFSETS) {
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = `c = ${String(c).replace('-', '−')}`;
  b.addEventListener('click', () => setOffset(c));
  presets.append(b);
}
offInput.addEventListener('change', () => {
  const v = Number(offInput.value);
  if (Number.isFinite(v) && Math.abs(v) <= 1e6) setOffset(v);
  else offInput.value = String(state.offset);
});
fig2.controls.append(offField, presets);
const side = (titleKey: Key, expKey: Key) => {
  const box = document.createElement('div');
  box.className = 'softmax-side';
  const m = new NumberMatrix(3, n(), {
    label: () => t(titleKey), rowLabels: [() => t('rowZc'), () => t(expKey), () => t('rowP')], colLabels: keyLabels(),
    colAxis: () => t('keyAxis'), format: (v) => fmt(v),
  });
  const sums = document.createElement('p');
  sums.className = 'softmax-sums';
  const note = document.createElement('p');
  note.className = 'softmax-note';
  box.append(m.element, sums, note);
  return { box, m, sums, note };
};
const naiveSide = side('naive', 'rowExp');
naiveSide.box.classList.add('naive');
const stableSide = side('stableTitle', 'rowExpShift');
fig2.view.append(naiveSide.box, stableSide.box);

// ---- section 3: masking ------------------------------------------------------------------
const s3 = ch.section('hMask');
ch.prose(s3, 'mask');
ch.prose(s3, 'playNote');
ch.playgroundLink(s3, 'playLink', () => ({ model: 'brown-gpt', text: 'The jury said it did not find any evidence', layer: 0, head: 0, view: 'matrix' }));
const fig3 = ch.figure(s3, { caption: 'figMasked', label: 'figMaskedLabel', table: (host) => table3(host) });
const maskedM = new NumberMatrix(2, n(), {
  label: () => t('figMaskedLabel'), rowLabels: [() => t('rowEngine'), () => t('rowNaive')], colLabels: keyLabels(),
  colAxis: () => t('keyAxis'), format: (v) => fmt(v),
});
const maskedSums = document.createElement('p');
maskedSums.className = 'softmax-sums';
const maskedBox = document.createElement('div');
maskedBox.append(maskedM.element, maskedSums);
fig3.view.append(maskedBox);

// ---- section 3b: masking before the softmax, or zeroing after it ---------------------------
ch.prose(s3, 'after');
const figA = ch.figure(s3, { caption: 'figAfter', label: 'figAfterLabel', table: (host) => tableAfter(host) });
const queryLabels = (rows: number) => Array.from({ length: rows }, (_, i) => () => t('query', { n: i + 1 }));
const sumCols = () => [...keyLabels(), () => t('colSum'), () => t('colH')];
const rowMatrix = (titleKey: Key) => new NumberMatrix(n(), n() + 2, {
  label: () => t(titleKey), rowAxis: () => t('queryAxis'), colAxis: () => t('keyAxis'), format: (v) => fmt(v),
});
const beforeM = rowMatrix('mBefore'), zeroedM = rowMatrix('mZeroed'), renormM = rowMatrix('mRenorm');
const afterNote = document.createElement('p');
afterNote.className = 'softmax-sums';
afterNote.setAttribute('aria-live', 'polite');
const numbering = () => { const p = document.createElement('p'); p.className = 'softmax-note'; const say = () => { p.textContent = t('numbering'); }; say(); ch.onLocale(say); return p; };
const afterBox = document.createElement('div');
afterBox.className = 'softmax-rows';
afterBox.append(numbering(), beforeM.element, zeroedM.element, renormM.element, afterNote);
figA.view.append(afterBox);

// ---- section 3c: a large finite mask value, in 32 and 16 bits -----------------------------
const s3c = ch.section('hFinite');
ch.prose(s3c, 'finite');
const figF = ch.figure(s3c, { caption: 'figFinite', label: 'figFiniteLabel', table: (host) => tableFinite(host) });
figF.controls.append(
  ch.segmented('maskValue', 'softmax-mv', MASK_VALUES.map(maskText), maskText(state.maskValue), (v) => {
    state.maskValue = MASK_VALUES.find((m) => maskText(m) === v)!;
    void recompute();
  }),
  ch.segmented('dtype', 'softmax-dt', DTYPES, state.dtype, (v) => { state.dtype = v; void recompute(); }, (v) => t(`dt_${v}`)),
);
// Or a value of the reader's own (any negative number): the presets are then unchecked.
const mvInput = document.createElement('input');
mvInput.type = 'number';
mvInput.step = 'any';
mvInput.max = '0';
mvInput.className = 'softmax-offset';
const mvField = ch.field('maskTyped', mvInput, 'softmax-mv-typed').element;
figF.controls.append(mvField);
mvInput.addEventListener('change', () => {
  const v = Number(mvInput.value);
  if (mvInput.value.trim() === '' || !Number.isFinite(v) || v >= 0) { mvInput.value = ''; return; }
  state.maskValue = v;
  figF.controls.querySelectorAll<HTMLInputElement>('input[name="softmax-mv"]').forEach((r) => { r.checked = r.value === maskText(v); });
  void recompute();
});
figF.controls.querySelectorAll<HTMLInputElement>('input[name="softmax-mv"]').forEach((r) => r.addEventListener('change', () => { mvInput.value = ''; }));
const storedM = new NumberMatrix(n() + 1, n(), { label: () => t('mStored'), rowAxis: () => t('queryAxis'), colAxis: () => t('keyAxis'), format: (v) => fmt(v, 6) });
const finiteM = new NumberMatrix(n() + 1, n() + 2, { label: () => t('mFinite'), rowAxis: () => t('queryAxis'), colAxis: () => t('keyAxis'), format: (v) => fmt(v) });
const finiteNote = document.createElement('p');
finiteNote.className = 'softmax-sums';
finiteNote.setAttribute('aria-live', 'polite');
const finiteBox = document.createElement('div');
finiteBox.className = 'softmax-rows';
finiteBox.append(numbering(), storedM.element, finiteM.element, finiteNote);
figF.view.append(finiteBox);

// ---- section 4: temperature --------------------------------------------------------------
const s4 = ch.section('hTemp');
ch.prose(s4, 'temp');
const fig4 = ch.figure(s4, { caption: 'figTemp', label: 'figTempLabel', table: (host) => table4(host) });
const chart = new LineChart({
  label: () => t('chart'), xLabel: () => t('chartX'), yLabel: () => t('chartY'), xLog: true, yDomain: [0, 1],
  xDomain: [0.05, 100], xFormat: (v) => String(v),
});
fig4.view.append(chart.element);

const EX_SCORES = [2, 1, 0.1], EX_TAU = 0.5;
const EX_CHOICES: { key: Key; value: number }[] = [
  { key: 'exHalf', value: 0.5 }, { key: 'exSame', value: 0.659 }, { key: 'exSharp', value: 0.864 }, { key: 'exOne', value: 1 },
];
ch.exercise(s4, {
  id: 'temperature',
  question: 'exQuestion',
  choices: () => EX_CHOICES.map((c) => t(c.key)),
  answer: async () => {
    const e = engine ?? await ch.engine();
    const r = await e.learn('softmaxRow', { scores: Float32Array.from(EX_SCORES), temperature: EX_TAU });
    // The right choice is the one nearest the engine's largest weight.
    let correct = 0;
    EX_CHOICES.forEach((c, i) => { if (Math.abs(c.value - r.maxProb) < Math.abs(EX_CHOICES[correct]!.value - r.maxProb)) correct = i; });
    ch.debug.state.exercise = { maxProb: r.maxProb, argmax: r.argmax, probs: Array.from(r.probs), correct };
    return { correct, explanation: t('exExplain', { p: r.maxProb.toFixed(4) }) };
  },
});

const sharpEx = sharpnessExercise(ch, s4, async () => (engine ??= await ch.engine()), () => ({ scores: state.scores, masked: state.masked }));

// ---- section 5: common mistakes ----------------------------------------------------------
const s5 = ch.section('hMistakes');
const hideSelect = document.createElement('select');
const zeroInf = new ProbBars(() => t('mZeroInf'), { absolute: true });
const zeroZero = new ProbBars(() => t('mZeroZero'), { absolute: true });
const zeroNote = document.createElement('p');
zeroNote.className = 'softmax-note';
zeroNote.setAttribute('aria-live', 'polite');
function buildHideSelect(): void {
  hideSelect.replaceChildren(...state.scores.map((_, j) => {
    const o = document.createElement('option');
    o.value = String(j);
    o.textContent = t('key', { n: j + 1 });
    o.selected = j === state.hideKey;
    return o;
  }));
}
hideSelect.addEventListener('change', () => { state.hideKey = Number(hideSelect.value); void recompute(); });
const titled = (bars: ProbBars, key: Key) => {
  const box = document.createElement('div');
  box.className = 'softmax-demo';
  const h = document.createElement('p');
  h.className = 'softmax-demo-title';
  const say = () => { h.textContent = t(key); };
  say();
  ch.onLocale(say);
  box.append(h, bars.element);
  return box;
};
ch.mistake(s5, {
  title: 'mZeroTitle', body: 'mZeroBody',
  demo: (host) => {
    const field = document.createElement('label');
    field.className = 'field';
    const span = document.createElement('span');
    const say = () => { span.textContent = t('mZeroKey'); };
    say();
    ch.onLocale(say);
    field.append(span, hideSelect);
    host.append(field, titled(zeroInf, 'mZeroInf'), titled(zeroZero, 'mZeroZero'), zeroNote);
  },
});
const shiftX = new ProbBars(() => t('mShiftX'), { absolute: true });
const shiftX100 = new ProbBars(() => t('mShiftX100'), { absolute: true });
ch.mistake(s5, {
  title: 'mShiftTitle', body: 'mShiftBody',
  demo: (host) => host.append(titled(shiftX, 'mShiftX'), titled(shiftX100, 'mShiftX100')),
});

// ---- tables ----------------------------------------------------------------------------
function table(host: HTMLElement, caption: string, head: string[], rows: (string | number)[][]): void {
  const tbl = document.createElement('table');
  tbl.createCaption().textContent = caption;
  const hr = tbl.createTHead().insertRow();
  for (const h of head) {
    const th = document.createElement('th');
    th.scope = 'col';
    th.textContent = h;
    hr.append(th);
  }
  const body = tbl.createTBody();
  for (const r of rows) {
    const tr = body.insertRow();
    r.forEach((v, i) => {
      const cell = i === 0 ? document.createElement('th') : tr.insertCell();
      if (i === 0) { (cell as HTMLTableCellElement).scope = 'row'; tr.append(cell); }
      cell.textContent = typeof v === 'number' ? fmt(v, 6) : v;
    });
  }
  host.replaceChildren(tbl);
}

let last: Results | null = null;
function table1(host: HTMLElement): void {
  if (!last) return;
  const r = last.main;
  table(host, `${t('figMainLabel')} (τ = ${fmtTau(last.tau)})`,
    [t('colKey'), t('colX'), t('colMasked'), t('colZ'), t('colExpShift'), t('colP')],
    [...last.scores.map((x, j) => [t('key', { n: j + 1 }), x, last!.masked[j] ? t('yes') : t('no'), r.logits[j]!, r.exps[j]!, r.probs[j]!]),
     [t('total'), '', '', `m = ${fmt(r.shift, 6)}`, r.sumExps, r.sumProbs]]);
}
function table2(host: HTMLElement): void {
  if (!last) return;
  const a = last.naive, b = last.stable;
  table(host, `${t('figStableLabel')} (c = ${last.offset}, τ = ${fmtTau(last.tau)})`,
    [t('colKey'), t('colZ'), `${t('naive')}: ${t('colExp')}`, `${t('naive')}: ${t('colP')}`,
     `${t('stableTitle')}: ${t('colExpShift')}`, `${t('stableTitle')}: ${t('colP')}`],
    [...last.scores.map((_, j) => [t('key', { n: j + 1 }), b.logits[j]!, a.exps[j]!, a.probs[j]!, b.exps[j]!, b.probs[j]!]),
     [t('total'), '', a.sumExps, a.sumProbs, b.sumExps, b.sumProbs]]);
}
function table3(host: HTMLElement): void {
  if (!last) return;
  const a = last.allMasked, b = last.allMaskedNaive;
  table(host, t('figMaskedLabel'), [t('colKey'), t('rowEngine'), t('rowNaive')],
    [...last.scores.map((_, j) => [t('key', { n: j + 1 }), a.probs[j]!, b.probs[j]!]), [t('total'), a.sumProbs, b.sumProbs]]);
}
function table4(host: HTMLElement): void {
  if (!last) return;
  const { probs } = last.sweep;
  table(host, t('figTempLabel'), [t('colTau'), ...last.scores.map((_, j) => t('key', { n: j + 1 }))],
    Array.from(SWEEP, (tv, i) => [fmtTau(Number(tv.toPrecision(3))), ...last!.scores.map((_, j) => probs[i * last!.scores.length + j]!)]));
}

/** Rows as the table shows them: one line per (query, key), then the row's Σ and H. */
function rowsTable(host: HTMLElement, caption: string, mats: { name: string; rows: number[][]; sums: number[]; H: number[] }[]): void {
  const N = last!.scores.length;
  const rowCount = mats[0]!.rows.length;
  const body: (string | number)[][] = [];
  for (let i = 0; i < rowCount; i++) {
    const q = i < N ? t('query', { n: i + 1 }) : t('allMaskedRow');
    for (let j = 0; j < N; j++) body.push([`${q}, ${t('key', { n: j + 1 })}`, ...mats.map((m) => m.rows[i]![j]!)]);
    body.push([`${q}: ${t('colSum')}`, ...mats.map((m) => m.sums[i]!)]);
    body.push([`${q}: ${t('colH')}`, ...mats.map((m) => m.H[i]!)]);
  }
  table(host, caption, ['', ...mats.map((m) => m.name)], body);
}
function tableAfter(host: HTMLElement): void {
  if (!last) return;
  const a = last.after;
  rowsTable(host, t('figAfterLabel'), [
    { name: t('mBefore'), rows: a.before, sums: a.beforeSums, H: a.beforeH },
    { name: t('mZeroed'), rows: a.zeroed, sums: a.zeroedSums, H: a.zeroedH },
    { name: t('mRenorm'), rows: a.renorm, sums: a.renormSums, H: a.renormH },
  ]);
}
function tableFinite(host: HTMLElement): void {
  if (!last) return;
  const f = last.finite;
  rowsTable(host, `${t('figFiniteLabel')} (${maskText(f.value)}, ${t(`dt_${f.dtype}`)})`, [
    { name: t('mStored'), rows: f.stored, sums: f.stored.map(() => NaN), H: f.stored.map(() => NaN) },
    { name: t('mFinite'), rows: f.probs, sums: f.sums, H: f.H },
  ]);
}

/** A causal row: query i (from 0) may see keys j <= i. */
const causal = (N: number, i: number) => Array.from({ length: N }, (_, j) => (j > i ? 1 : 0));
/** Σ of a row in float32, key by key (as the engine's sums are reported). */
const sum32 = (v: ArrayLike<number>) => Array.from(v).reduce((a, b) => Math.fround(a + b), 0);

interface AfterResults {
  before: number[][]; zeroed: number[][]; renorm: number[][];
  beforeSums: number[]; zeroedSums: number[]; renormSums: number[];
  beforeH: number[]; zeroedH: number[]; renormH: number[];
  /** The largest |renormalised − masked before| and where (query, key; from 0). */
  maxDiff: number; at: [number, number]; diffs: number;
}
interface FiniteResults {
  value: number; dtype: Dtype; storedValue: number;
  stored: number[][]; probs: number[][]; sums: number[]; H: number[];
  /** The largest weight any masked key gets (causal rows), and that weight rounded to the dtype. */
  leak: number; leakDtype: number;
}

// ---- recompute and draw --------------------------------------------------------------------
interface Results {
  scores: number[]; masked: number[]; tau: number; offset: number; hideKey: number;
  main: SoftmaxRowResult; naive: SoftmaxRowResult; stable: SoftmaxRowResult;
  allMasked: SoftmaxRowResult; allMaskedNaive: SoftmaxRowResult;
  sweep: { probs: Float32Array; dims: [number, number] };
  hideInf: SoftmaxRowResult; hideZero: SoftmaxRowResult;
  shift0: SoftmaxRowResult; shift100: SoftmaxRowResult;
  mainH: number; after: AfterResults; finite: FiniteResults;
}

let generation = 0;
async function recompute(): Promise<void> {
  renderStatic();
  sharpEx.refresh();
  const gen = ++generation;
  const scores = state.scores.slice(), masked = state.masked.slice(), tv = tau(), offset = state.offset, k = state.hideKey;
  try {
    engine ??= await ch.engine();
    // The reader's inputs, varied as each figure says (added, replaced, masked): the
    // engine does the maths.
    const shifted = scores.map((x) => x + offset);
    const all = scores.map(() => 1);
    const hideMask = masked.map((m, j) => (j === k ? 1 : m));
    const zeroScores = scores.map((x, j) => (j === k ? 0 : x));
    const zeroMask = masked.map((m, j) => (j === k ? 0 : m));
    const [main, naive, stable, allMasked, allMaskedNaive, sweep, hideInf, hideZero, shift100] = await Promise.all([
      row(scores, masked, tv, 'stable'),
      row(shifted, masked, tv, 'naive'),
      row(shifted, masked, tv, 'stable'),
      row(scores, all, tv, 'stable'),
      row(scores, all, tv, 'naive'),
      engine.learn('softmaxTemperatures', { scores: Float32Array.from(scores), masked: Uint8Array.from(masked), temperatures: SWEEP }),
      row(scores, hideMask, tv, 'stable'),
      row(zeroScores, zeroMask, tv, 'stable'),
      row(scores.map((x) => x + 100), masked, tv, 'stable'),
    ]);
    const N = scores.length;
    // Masking before the softmax (−∞ through the engine's mask) against the softmax of
    // the whole row with the future keys zeroed afterwards, and that renormalised.
    const befores = await Promise.all(scores.map((_, i) => row(scores, causal(N, i), tv, 'stable')));
    const full = main.probs.length && !masked.some((m) => m) ? main : await row(scores, scores.map(() => 0), tv, 'stable');
    const before = befores.map((r) => Array.from(r.probs));
    const zeroed = scores.map((_, i) => Array.from(full.probs, (p, j) => (j > i ? 0 : p)));
    const zeroedSums = zeroed.map(sum32);
    const renorm = zeroed.map((r, i) => r.map((p) => Math.fround(p / zeroedSums[i]!)));
    let maxDiff = 0, at: [number, number] = [0, 0], diffs = 0;
    renorm.forEach((r, i) => r.forEach((p, j) => {
      const d = Math.abs(p - before[i]![j]!);
      if (d > 0) diffs++;
      if (d > maxDiff) { maxDiff = d; at = [i, j]; }
    }));
    // A finite mask value written into the masked scores (masked_fill), everything held
    // in the chosen dtype; the engine's softmax (float32) of those values, τ = 1.
    const dt = state.dtype, mv = state.maskValue;
    const storedValue = roundToDtype(mv, dt);
    const stored = [...scores.map((_, i) => scores.map((x, j) => (j > i ? storedValue : roundToDtype(x, dt)))), scores.map(() => storedValue)];
    const finRows = await Promise.all(stored.map((r) => row(r, r.map(() => 0), 1, 'stable')));
    const probs = finRows.map((r) => Array.from(r.probs));
    let leak = 0;
    probs.slice(0, N).forEach((r, i) => r.forEach((p, j) => { if (j > i) leak = Math.max(leak, p); }));
    const [mainH, beforeH, zeroedH, renormH, finH] = await Promise.all([
      entropies(engine, [Array.from(main.probs)]).then((h) => h[0]!),
      entropies(engine, before), entropies(engine, zeroed), entropies(engine, renorm), entropies(engine, probs),
    ]);
    if (gen !== generation) return;  // newer inputs are on their way
    const after: AfterResults = {
      before, zeroed, renorm, beforeSums: befores.map((r) => r.sumProbs), zeroedSums, renormSums: renorm.map(sum32),
      beforeH, zeroedH, renormH, maxDiff, at, diffs,
    };
    const finite: FiniteResults = {
      value: mv, dtype: dt, storedValue, stored, probs, sums: finRows.map((r) => r.sumProbs), H: finH,
      leak, leakDtype: roundToDtype(leak, dt),
    };
    last = { scores, masked, tau: tv, offset, hideKey: k, main, naive, stable, allMasked, allMaskedNaive, sweep, hideInf, hideZero, shift0: main, shift100,
             mainH, after, finite };
    draw();
    ch.setStatus(null);
  } catch (e) {
    if (gen === generation) ch.showError(e);
  }
}

function draw(): void {
  const r = last!;
  const N = r.scores.length;
  const cols = { rows: 3, cols: N, colLabels: keyLabels() };
  stepsM.set([...r.main.logits, ...r.main.exps, ...r.main.probs], cols);
  const allMasked = r.masked.every((m) => m === 1);
  sums1.textContent = allMasked ? t('allMaskedNote')
    : `${t('sums', { m: fmt(r.main.shift), sumExps: fmt(r.main.sumExps), sumProbs: fmt(r.main.sumProbs, 7) })} · ${t('entropyOf', { h: fmt(r.mainH), max: fmt(Math.log(r.masked.filter((m) => m === 0).length)) })}`;
  sums1.dataset.sumProbs = String(r.main.sumProbs);
  bars1.update(Array.from(r.main.probs, (p, j) => ({ label: t('key', { n: j + 1 }), value: p })));

  offText.textContent = t('offset');
  naiveSide.m.set([...r.naive.logits, ...r.naive.exps, ...r.naive.probs], cols);
  naiveSide.sums.textContent = t('sumsNaive', { sumExps: fmt(r.naive.sumExps), sumProbs: fmt(r.naive.sumProbs, 7) });
  const overflow = r.naive.sumExps === Infinity, underflow = r.naive.sumExps === 0 && !allMasked;
  naiveSide.note.textContent = overflow ? t('brokeNote') : underflow ? t('underNote') : '';
  naiveSide.box.classList.toggle('broken', overflow || underflow);
  stableSide.m.set([...r.stable.logits, ...r.stable.exps, ...r.stable.probs], cols);
  stableSide.sums.textContent = t('sums', { m: fmt(r.stable.shift), sumExps: fmt(r.stable.sumExps), sumProbs: fmt(r.stable.sumProbs, 7) });

  maskedM.set([...r.allMasked.probs, ...r.allMaskedNaive.probs], { rows: 2, cols: N, colLabels: keyLabels() });
  maskedSums.textContent = t('maskedSums', { engine: fmt(r.allMasked.sumProbs), naive: fmt(r.allMaskedNaive.sumProbs) });

  const withSums = (rows: number[][], sums: number[], H: number[]) => rows.flatMap((v, i) => [...v, sums[i]!, sums[i]! > 0 ? H[i]! : NaN]);
  const a = r.after;
  const sq = { rows: N, cols: N + 2, rowLabels: queryLabels(N), colLabels: sumCols() };
  beforeM.set(withSums(a.before, a.beforeSums, a.beforeH), sq);
  zeroedM.set(withSums(a.zeroed, a.zeroedSums, a.zeroedH), sq);
  renormM.set(withSums(a.renorm, a.renormSums, a.renormH), sq);
  afterNote.textContent = a.diffs === 0 ? t('afterNoteSame', { q: 1, sum: fmt(a.zeroedSums[0]!, 7) }) : t('afterNote', { q: 1, sum: fmt(a.zeroedSums[0]!, 7), diff: a.maxDiff === 0 ? '0' : fmt(a.maxDiff), count: a.diffs,
                                           i: a.at[0] + 1, j: a.at[1] + 1 });
  const f = r.finite;
  const fRows = [...queryLabels(N), () => t('allMaskedRow')];
  storedM.set(f.stored.flat(), { rows: N + 1, cols: N, rowLabels: fRows, colLabels: keyLabels() });
  finiteM.set(withSums(f.probs, f.sums, f.H), { rows: N + 1, cols: N + 2, rowLabels: fRows, colLabels: sumCols() });
  const allRow = f.sums[N]!;
  finiteNote.textContent = [
    t('finiteStored', { v: maskText(f.value), dt: t(`dt_${f.dtype}`), s: fmt(f.storedValue, 6) }),
    f.storedValue === -Infinity ? t('finiteAllInf') : t('finiteAllUniform', { p: fmt(f.probs[N]![0]!), sum: fmt(allRow, 7), h: fmt(f.H[N]!), ln: fmt(Math.log(N)) }),
    t('finiteLeak', { leak: fmt(f.leak), dt: t(`dt_${f.dtype}`), leak16: fmt(f.leakDtype) }),
  ].join(t('sentenceSep'));

  chart.update(r.scores.map((_, j) => ({
    name: keyName(j),
    points: Array.from(SWEEP, (tv, i) => [Number(tv.toPrecision(3)), r.sweep.probs[i * N + j]!] as [number, number]),
  })), r.tau);

  const barsOf = (res: SoftmaxRowResult) => Array.from(res.probs, (p, j) => ({ label: t('key', { n: j + 1 }), value: p }));
  zeroInf.update(barsOf(r.hideInf));
  zeroZero.update(barsOf(r.hideZero));
  zeroNote.textContent = t('mZeroNote', { k: r.hideKey + 1, inf: fmt(r.hideInf.probs[r.hideKey]!), zero: fmt(r.hideZero.probs[r.hideKey]!) });
  shiftX.update(barsOf(r.shift0));
  shiftX100.update(barsOf(r.shift100));

  fig1.refreshTable();
  fig2.refreshTable();
  fig3.refreshTable();
  fig4.refreshTable();
  figA.refreshTable();
  figF.refreshTable();
  ch.debug.state = { ...ch.debug.state, ...plain(r) };
  ch.debug.renders++;
  document.body.dataset.renders = String(ch.debug.renders);
}

/** The results as plain arrays for window.tfpLearn.state (tests compare them with the engine). */
function plain(r: Results): Record<string, unknown> {
  const p = (x: SoftmaxRowResult) => ({
    logits: Array.from(x.logits), exps: Array.from(x.exps), probs: Array.from(x.probs),
    shift: x.shift, sumExps: x.sumExps, sumProbs: x.sumProbs, maxProb: x.maxProb, argmax: x.argmax,
  });
  return {
    scores: r.scores, masked: r.masked, tau: r.tau, offset: r.offset, hideKey: r.hideKey,
    main: p(r.main), naive: p(r.naive), stable: p(r.stable), allMasked: p(r.allMasked), allMaskedNaive: p(r.allMaskedNaive),
    sweep: { taus: Array.from(SWEEP), probs: Array.from(r.sweep.probs) }, hideInf: p(r.hideInf), hideZero: p(r.hideZero),
    shift100: p(r.shift100), mainH: r.mainH, after: r.after, finite: r.finite,
  };
}

// ---- start --------------------------------------------------------------------------------
scoresM.set(state.scores);
buildMasks();
buildHideSelect();
renderStatic();
ch.onLocale(() => {
  renderStatic();
  buildHideSelect();
  if (last) draw();
});
void recompute();
