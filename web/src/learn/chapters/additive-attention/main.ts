// Learn chapter 2, "Additive (Bahdanau) attention": e = vᵀ tanh(W s + U h_j), a softmax
// over the source positions, the context vector. Two live figures: the seed example
// "I love you → 我爱你" with hand-set states and weights (every intermediate from the
// engine's nn::additive_attention), and the shipped numbers-gru on the reader's text (the
// scores and weights of every decoder step, the alignment matrix). Then an exercise on
// numbers-gru and a common-mistake box with a live demonstration.
//
// Every number shown comes from the engine (learn_calls/additive.ts →
// src/api/tfp_learn_additive_api.h); this file arranges inputs and draws what comes back.
// window.tfpLearn.state holds the inputs and the engine's last results (tests read it).
import type { Engine, Model } from 'transformer-playground';
import type { AdditiveResult, GruStepsResult } from '../../../engine/learn_calls/additive';
import type { FloatTensor } from '../../../engine/messages';
import { onLocaleChange, type Label } from '../../../i18n/i18n';
import { Heatmap } from '../../../widgets/heatmap';
import { NumberMatrix, formatNumber } from '../../../widgets/number_matrix';
import { startChapter } from '../../chapter';
import { TEXT } from './text';
import './additive.css';

type Key = keyof typeof TEXT.en;
const ch = startChapter('additive-attention', TEXT);
const t = (k: Key, p?: Record<string, string | number>) => ch.t(k, p);
const lt = (k: Key, p?: Record<string, string | number>): Label => () => t(k, p);

function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
/** Text bound to the locale (re-rendered on a switch). */
function bound<E extends HTMLElement>(e: E, text: () => string): E {
  e.textContent = text();
  onLocaleChange(() => { e.textContent = text(); });
  return e;
}
const fmt = (v: number, digits = 3) => formatNumber(v, digits);
const argmax = (a: ArrayLike<number>, from = 0, n = a.length): number => {
  let best = 0;
  for (let j = 1; j < n; j++) if (a[from + j]! > a[from + best]!) best = j;
  return best;
};
const mat = (data: ArrayLike<number>, rows: number, cols: number): FloatTensor => ({ data: Float32Array.from(data), dims: [rows, cols] });

/** A plain HTML table (the figures' data-table alternative). */
function valuesTable(host: HTMLElement, caption: string, corner: string, cols: string[], rows: { label: string; values: (number | string)[] }[], digits = 4): void {
  const table = el('table');
  table.createCaption().textContent = caption;
  const head = table.createTHead().insertRow();
  for (const c of [corner, ...cols]) {
    const th = el('th', undefined, c);
    th.scope = 'col';
    head.append(th);
  }
  const body = table.createTBody();
  for (const r of rows) {
    const tr = body.insertRow();
    const th = el('th', undefined, r.label);
    th.scope = 'row';
    tr.append(th);
    for (const v of r.values) tr.insertCell().textContent = typeof v === 'number' ? fmt(v, digits) : v;
  }
  host.append(table);
}

const debug = ch.debug.state as Record<string, unknown>;
let engineP: Promise<Engine> | null = null;
const engine = () => (engineP ??= ch.engine());

// =====================================================================================
// Section 1: the idea and the formula
// =====================================================================================
const s1 = ch.section('hIdea');
ch.prose(s1, 'idea');
// Three lines, so that it fits a phone's width.
ch.formula(s1, () => String.raw`\begin{aligned}
\sym{e}{e_{tj}} &= \sym{v}{v}^{\top}\tanh\!\big(\sym{W}{W}\,\sym{s}{s_{t-1}} + \sym{U}{U}\,\sym{h}{h_j}\big) \\
\sym{alpha}{\alpha_{tj}} &= \frac{\exp e_{tj}}{\sum_{k=1}^{S}\exp e_{tk}} \\
\sym{c}{c_t} &= \sum_{j=1}^{S}\alpha_{tj}\,h_j
\end{aligned}`);
ch.prose(s1, 'convention');

// =====================================================================================
// Section 2: I love you → 我爱你, by hand
// =====================================================================================
const SRC = ['I', 'love', 'you'];
const TGT = ['我', '爱', '你'];
const D = 2, A = 2, TK = 3, TQ = 3;
/** The figure's inputs: (3, 2) h, (3, 2) s, (A, D) W and U, (A) v. The defaults give a
 *  diagonal alignment (我 ← I, 爱 ← love, 你 ← you), each step ≈ 0.64 on its word. */
const hand = {
  h: [1, -0.5, 0.5, 0.5, -0.5, 1],
  s: [-1.5, 1.5, 0, 0.5, -1.5, -1.5],
  W: [1, 0.5, -0.5, 1],
  U: [1, 0, 0, 1],
  v: [2, 2],
  step: 0,
};
const handArgs = (over: Partial<Pick<typeof hand, 'h' | 's'>> = {}) => ({
  s: mat(over.s ?? hand.s, TQ, D), h: mat(over.h ?? hand.h, TK, D),
  W: mat(hand.W, A, D), U: mat(hand.U, A, D), v: Float32Array.from(hand.v),
});
let handResult: AdditiveResult | null = null;

const s2 = ch.section('hHand');
ch.prose(s2, 'hand');
const figHand = ch.figure(s2, { caption: 'figHand', label: 'figHandLabel', table: (host) => handTable(host) });
figHand.element.classList.add('additive-hand');

const dimLabels = (n: number, key: Key) => Array.from({ length: n }, (_, i) => lt(key, { n: i + 1 }));
const srcLabels = SRC.map((w) => w);
const stepLabels = TGT.map((w) => lt('stepRow', { word: w }));
const onInput = (key: 'h' | 's' | 'W' | 'U' | 'v') => (values: Float32Array) => {
  hand[key] = Array.from(values);
  void recomputeHand();
};

const mH = new NumberMatrix(TK, D, { label: lt('mH'), sym: 'h', rowLabels: srcLabels, colLabels: dimLabels(D, 'dim'),
  rowAxis: lt('sourceWord'), editable: true, step: 0.1, min: -10, max: 10, onChange: onInput('h') });
const mS = new NumberMatrix(TQ, D, { label: lt('mS'), sym: 's',
  rowLabels: TGT.map((w, i) => lt('sRow', { n: i, word: w })), colLabels: dimLabels(D, 'dim'), rowAxis: lt('outputStep'),
  editable: true, step: 0.1, min: -10, max: 10, onChange: onInput('s') });
const mW = new NumberMatrix(A, D, { label: lt('mW'), sym: 'W', rowLabels: dimLabels(A, 'unit'), colLabels: dimLabels(D, 'dim'),
  editable: true, step: 0.1, min: -10, max: 10, onChange: onInput('W') });
const mU = new NumberMatrix(A, D, { label: lt('mU'), sym: 'U', rowLabels: dimLabels(A, 'unit'), colLabels: dimLabels(D, 'dim'),
  editable: true, step: 0.1, min: -10, max: 10, onChange: onInput('U') });
const mV = new NumberMatrix(1, A, { label: lt('mV'), sym: 'v', rowLabels: ['v'], colLabels: dimLabels(A, 'unit'),
  editable: true, step: 0.1, min: -10, max: 10, onChange: onInput('v') });
mH.set(hand.h);
mS.set(hand.s);
mW.set(hand.W);
mU.set(hand.U);
mV.set(hand.v);
{
  const inputs = el('div', 'additive-inputs');
  inputs.setAttribute('role', 'group');
  const h = el('h3', 'additive-sub');
  bound(h, () => t('inputs'));
  inputs.append(mH.element, mS.element, mW.element, mU.element, mV.element);
  figHand.controls.append(h, inputs);
}

// The step picker: which output step's intermediates to show.
const stepPick = el('fieldset', 'additive-step-pick');
{
  const legend = el('legend');
  bound(legend, () => t('stepPick'));
  stepPick.append(legend);
  TGT.forEach((w, i) => {
    const label = el('label');
    const r = el('input');
    r.type = 'radio';
    r.name = 'additive-hand-step';
    r.value = String(i);
    r.checked = i === hand.step;
    r.addEventListener('change', () => {
      hand.step = i;
      renderHand();
    });
    label.append(r, bound(el('span'), () => t('stepOption', { t: i + 1, word: w })));
    stepPick.append(label);
  });
}
const stepsTitle = bound(el('h3', 'additive-sub'), () => t('engineSteps', { t: hand.step + 1, word: TGT[hand.step]! }));
const mWs = new NumberMatrix(1, A, { label: lt('mWs'), sym: 'Ws', rowLabels: [() => `s${hand.step}`], colLabels: dimLabels(A, 'unit'), digits: 3 });
const mUh = new NumberMatrix(TK, A, { label: lt('mUh'), sym: 'Uh', rowLabels: srcLabels, colLabels: dimLabels(A, 'unit'), digits: 3 });
const mSum = new NumberMatrix(TK, A, { label: lt('mSum'), sym: 'sum', rowLabels: srcLabels, colLabels: dimLabels(A, 'unit'), digits: 3 });
const mTanh = new NumberMatrix(TK, A, { label: lt('mTanh'), sym: 'tanh', rowLabels: srcLabels, colLabels: dimLabels(A, 'unit'), digits: 3 });
const mE = new NumberMatrix(1, TK, { label: lt('mE'), sym: 'e', rowLabels: ['e'], colLabels: srcLabels, colAxis: lt('sourceWord'), digits: 3 });
const mAlpha = new NumberMatrix(1, TK, { label: lt('mAlpha'), sym: 'alpha', rowLabels: ['α'], colLabels: srcLabels, colAxis: lt('sourceWord'),
  digits: 3, heat: { domain: [0, 1] } });
const mC = new NumberMatrix(1, D, { label: lt('mC'), sym: 'c', rowLabels: ['c'], colLabels: dimLabels(D, 'dim'), digits: 3 });
const mAlign = new NumberMatrix(TQ, TK, { label: lt('mAlign'), sym: 'alpha', rowLabels: stepLabels, colLabels: srcLabels,
  rowAxis: lt('outputStep'), colAxis: lt('sourceWord'), digits: 3, heat: { domain: [0, 1] } });
mAlign.element.classList.add('additive-align');
const workedHost = el('div', 'additive-worked');
const workedLead = el('p', 'additive-worked-lead');
workedHost.append(workedLead);
/** e_tj for the step's largest weight, written out with the engine's tanh values and score. */
const worked = ch.formula(workedHost, () => {
  if (!handResult) return '';
  const s = hand.step, j = argmax(handResult.weights.data, s * TK, TK);
  const tanh = Array.from({ length: A }, (_, a) => handResult!.tanh.data[(s * TK + j) * A + a]!);
  const term = (v: number, x: number) => `${fmt(v, 2)}\\cdot ${x < 0 ? `(${fmt(x)})` : fmt(x)}`;
  const terms = tanh.map((x, a) => term(hand.v[a]!, x)).join(' + ');
  return String.raw`\begin{aligned}\sym{e}{e_{${s + 1},\text{${SRC[j]}}}} &= \sym{v}{v}^{\top}\sym{tanh}{\tanh(\cdot)} \\ &= ${terms} \\
&= ${fmt(handResult.scores.data[s * TK + j]!)}\end{aligned}`.replace(/−/g, '-');
});
{
  const row = (...els: HTMLElement[]) => {
    const d = el('div', 'additive-row');
    d.append(...els);
    return d;
  };
  figHand.view.append(stepPick, stepsTitle);
  ch.formula(figHand.view, () => String.raw`\begin{aligned}&\sym{sum}{\sym{Ws}{\sym{W}{W}\,\sym{s}{s}} + \sym{Uh}{\sym{U}{U}\,\sym{h}{h_j}}}
\;\xrightarrow{\tanh}\; \sym{tanh}{\cdot} \;\xrightarrow{\sym{v}{v}^{\top}\cdot}\; \sym{e}{e_j} \\
&\;\xrightarrow{\text{softmax over } j}\; \sym{alpha}{\alpha_j} \;\xrightarrow{\sum_j \alpha_j h_j}\; \sym{c}{c}\end{aligned}`);
  figHand.view.append(row(mWs.element, mUh.element), row(mSum.element, mTanh.element), row(mE.element, mAlpha.element, mC.element),
    workedHost, mAlign.element);
}

let handSeq = 0;
async function recomputeHand(): Promise<void> {
  const seq = ++handSeq;
  try {
    const e = await engine();
    const r = await e.learn('additiveAttention', handArgs());
    if (seq !== handSeq) return;
    handResult = r;
    renderHand();
  } catch (err) {
    ch.showError(err);
  }
}

function renderHand(): void {
  const r = handResult;
  if (!r) return;
  const s = hand.step;
  mWs.set(r.ws.data.subarray(s * A, (s + 1) * A));
  mUh.set(r.uh.data);
  mSum.set(r.sum.data.subarray(s * TK * A, (s + 1) * TK * A));
  mTanh.set(r.tanh.data.subarray(s * TK * A, (s + 1) * TK * A));
  mE.set(r.scores.data.subarray(s * TK, (s + 1) * TK));
  mAlpha.set(r.weights.data.subarray(s * TK, (s + 1) * TK));
  mC.set(r.context.data.subarray(s * D, (s + 1) * D));
  mAlign.set(r.weights.data);
  mAlign.mark(s);
  stepsTitle.textContent = t('engineSteps', { t: s + 1, word: TGT[s]! });
  const j = argmax(r.weights.data, s * TK, TK);
  workedLead.textContent = t('worked', { word: SRC[j]! });
  worked.update();
  figHand.refreshTable();
  debug.hand = {
    inputs: { h: hand.h.slice(), s: hand.s.slice(), W: hand.W.slice(), U: hand.U.slice(), v: hand.v.slice() },
    step: s,
    result: Object.fromEntries(Object.entries(r).map(([k, v]) => [k, { dims: v.dims, data: Array.from(v.data) }])),
    renders: ((debug.hand as { renders?: number } | undefined)?.renders ?? 0) + 1,
  };
  ch.debug.renders++;
  demoRefresh?.();
}
onLocaleChange(() => renderHand());

function handTable(host: HTMLElement): void {
  const r = handResult;
  if (!r) return;
  const dims = (n: number, key: Key) => Array.from({ length: n }, (_, i) => t(key, { n: i + 1 }));
  valuesTable(host, t('mH'), t('sourceWord'), dims(D, 'dim'), SRC.map((w, j) => ({ label: w, values: hand.h.slice(j * D, (j + 1) * D) })));
  valuesTable(host, t('mS'), t('outputStep'), dims(D, 'dim'),
    TGT.map((w, i) => ({ label: t('sRow', { n: i, word: w }), values: hand.s.slice(i * D, (i + 1) * D) })));
  valuesTable(host, `${t('mW')} · ${t('mU')}`, '', [...dims(D, 'dim')],
    [...Array.from({ length: A }, (_, a) => ({ label: `W, ${t('unit', { n: a + 1 })}`, values: hand.W.slice(a * D, (a + 1) * D) })),
     ...Array.from({ length: A }, (_, a) => ({ label: `U, ${t('unit', { n: a + 1 })}`, values: hand.U.slice(a * D, (a + 1) * D) }))]);
  valuesTable(host, t('mV'), '', dims(A, 'unit'), [{ label: 'v', values: hand.v }]);
  valuesTable(host, t('mUh'), t('sourceWord'), dims(A, 'unit'), SRC.map((w, j) => ({ label: w, values: Array.from(r.uh.data.subarray(j * A, (j + 1) * A)) })));
  const cols = [...dims(A, 'unit').map((u) => `W s, ${u}`), ...SRC.map((w) => `e, ${w}`), ...SRC.map((w) => `α, ${w}`), ...dims(D, 'dim').map((d) => `c, ${d}`)];
  valuesTable(host, t('tableSteps'), t('tableStep'), cols, TGT.map((w, i) => ({
    label: t('stepOption', { t: i + 1, word: w }),
    values: [...r.ws.data.subarray(i * A, (i + 1) * A), ...r.scores.data.subarray(i * TK, (i + 1) * TK),
             ...r.weights.data.subarray(i * TK, (i + 1) * TK), ...r.context.data.subarray(i * D, (i + 1) * D)],
  })));
  const inner = [...dims(A, 'unit').map((u) => `W s + U h, ${u}`), ...dims(A, 'unit').map((u) => `tanh, ${u}`)];
  valuesTable(host, t('tableInner'), t('tableStep'), inner, TGT.flatMap((w, i) => SRC.map((src, j) => ({
    label: `${t('stepRow', { word: w })} · ${src}`,
    values: [...r.sum.data.subarray((i * TK + j) * A, (i * TK + j + 1) * A), ...r.tanh.data.subarray((i * TK + j) * A, (i * TK + j + 1) * A)],
  }))));
}

// =====================================================================================
// Section 3: numbers-gru, step by step
// =====================================================================================
const MODEL_ID = 'numbers-gru';
const DEFAULT_TEXT = 'forty-two thousand five';
const s3 = ch.section('hModel');
ch.prose(s3, 'model');
const figModel = ch.figure(s3, { caption: 'figModel', label: 'figModelLabel', table: (host) => modelTable(host) });
figModel.element.classList.add('additive-model');

interface ModelRun {
  text: string;
  srcIds: Int32Array;
  srcTokens: string[];
  /** (S, 2) UTF-16 [begin, end) of each source token in text. */
  offsets: Int32Array;
  out: GruStepsResult;
}
const model = { text: new URLSearchParams(location.search).get('text') ?? DEFAULT_TEXT, step: 0 };
let modelRun: ModelRun | null = null;
let gru: Model | null = null;

const textField = el('label', 'field additive-text');
const textInput = el('input');
textInput.type = 'text';
textInput.value = model.text;
textInput.spellcheck = false;
textInput.autocomplete = 'off';
textField.append(bound(el('span'), () => t('sourceText')), textInput);
figModel.controls.append(textField);
const modelNote = el('p', 'additive-note');
modelNote.setAttribute('role', 'status');
const outStrip = el('div', 'additive-out');
outStrip.setAttribute('role', 'group');
const outLead = bound(el('span', 'additive-out-lead'), () => t('output'));
const charLabel = (c: string) => (c === ' ' ? '␣' : c);
const outLabel = (tok: string, id: number) => (gru && id === gru.info.eos_token_id ? t('endToken') : tok);

const alignMap = new Heatmap({ title: t('alignTitle'), rowAxis: lt('outputStep'), colAxis: lt('sourceChar'), digits: 3, maxCell: 30,
  onSelect: (row) => selectStep(row) });
const scoreMap = new Heatmap({ title: t('scoresTitle'), rowAxis: lt('outputStep'), colAxis: lt('sourceChar'), digits: 3, maxCell: 30,
  colormap: 'cividis', onSelect: (row) => selectStep(row) });
alignMap.element.dataset.sym = 'alpha';
scoreMap.element.dataset.sym = 'e';
const detail = new NumberMatrix(1, 2, { label: () => detailLabel(), rowLabels: [], colLabels: [lt('colScore'), lt('colWeight')],
  rowAxis: lt('sourceChar'), digits: 3 });
detail.element.classList.add('additive-detail');
const maps = el('div', 'additive-maps');
maps.append(alignMap.element, scoreMap.element);
const modelRow = el('div', 'additive-model-row');
modelRow.append(maps, detail.element);
figModel.view.append(modelNote, outStrip, modelRow);
onLocaleChange(() => {
  alignMap.setTitle(t('alignTitle'));
  scoreMap.setTitle(t('scoresTitle'));
  renderModel();
});
const playLink = ch.playgroundLink(s3, 'openPlayground', () => ({ model: MODEL_ID, text: model.text, set: 'cross', view: 'cross' }));

function detailLabel(): string {
  if (!modelRun) return t('detail', { t: 1, tok: '' });
  const s = model.step, out = modelRun.out;
  return t('detail', { t: s + 1, tok: outLabel(out.tokens[s] ?? '', out.ids[s] ?? -1) });
}

function selectStep(s: number): void {
  if (!modelRun || s < 0 || s >= modelRun.out.ids.length) return;
  model.step = s;
  renderModel();
}

/** Runs numbers-gru on `text` through the engine: tokenize, then every decoder step. */
async function runGru(text: string): Promise<ModelRun> {
  const m = gru ?? (gru = await ch.model(MODEL_ID));
  const e = await engine();
  const enc = await m.tokenize(text);
  const max = m.info.max_positions;
  if (enc.ids.length > max) throw new Error(t('tooLong', { max, n: enc.ids.length }));
  const out = await e.learn('additiveGruSteps', { model: m.id, ids: enc.ids });
  return { text, srcIds: enc.ids, srcTokens: enc.tokens, offsets: enc.offsets, out };
}

let modelSeq = 0;
async function recomputeModel(): Promise<void> {
  const seq = ++modelSeq;
  const text = textInput.value;
  model.text = text;
  (playLink as HTMLAnchorElement & { update?: () => void }).update?.();
  // The text in the URL (a reload or a shared link shows the same figure).
  const url = new URL(location.href);
  url.searchParams.set('text', text);
  history.replaceState(history.state, '', url);
  if (text.trim() === '') {
    modelNote.textContent = t('empty');
    return;
  }
  try {
    const run = await runGru(text);
    if (seq !== modelSeq) return;
    modelRun = run;
    model.step = Math.min(model.step, run.out.ids.length - 1);
    modelNote.textContent = '';
    renderModel();
  } catch (err) {
    if (seq !== modelSeq) return;
    modelNote.textContent = ch.errorText(err);
  }
}
let typing = 0;
textInput.addEventListener('input', () => {
  clearTimeout(typing);
  typing = window.setTimeout(() => void recomputeModel(), 150);
});

function renderModel(): void {
  const run = modelRun;
  if (!run) return;
  const { out } = run;
  const T = out.ids.length, S = run.srcIds.length, st = model.step;
  const rowLabels = Array.from(out.ids, (id, i) => t('stepButton', { t: i + 1, tok: outLabel(out.tokens[i]!, id) }));
  const colLabels = run.srcTokens.map(charLabel);
  alignMap.update({ rowLabels, colLabels, values: out.weights.data, domain: [0, 1], selectedRow: st });
  let lo = Infinity, hi = -Infinity;
  for (const v of out.scores.data) if (Number.isFinite(v)) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
  scoreMap.update({ rowLabels, colLabels, values: out.scores.data, domain: lo < hi ? [lo, hi] : [lo - 1, lo + 1], selectedRow: st });
  // The outputs as step buttons.
  const buttons = Array.from(out.ids, (id, i) => {
    const b = el('button', 'additive-step');
    b.type = 'button';
    b.textContent = outLabel(out.tokens[i]!, id);
    b.setAttribute('aria-pressed', String(i === st));
    b.setAttribute('aria-label', t('stepOption', { t: i + 1, word: b.textContent }));
    b.addEventListener('click', () => selectStep(i));
    return b;
  });
  outStrip.replaceChildren(outLead, ...buttons);
  // The picked step: its scores and weights over every source character.
  const values = new Float32Array(S * 2);
  for (let j = 0; j < S; j++) {
    values[2 * j] = out.scores.data[st * S + j]!;
    values[2 * j + 1] = out.weights.data[st * S + j]!;
  }
  detail.set(values, { rows: S, cols: 2, rowLabels: run.srcTokens.map((c, j) => t('charRow', { n: j + 1, char: charLabel(c) })) });
  detail.mark(argmax(out.weights.data, st * S, S));
  const caption = detail.element.querySelector('caption');
  if (caption) caption.textContent = detailLabel();  // its binding re-reads detailLabel() on a language switch
  figModel.refreshTable();
  debug.model = {
    text: run.text, step: st, srcIds: Array.from(run.srcIds), srcTokens: run.srcTokens.slice(),
    outIds: Array.from(out.ids), outTokens: out.tokens.slice(),
    scores: { dims: out.scores.dims, data: Array.from(out.scores.data) },
    weights: { dims: out.weights.dims, data: Array.from(out.weights.data) },
    renders: ((debug.model as { renders?: number } | undefined)?.renders ?? 0) + 1,
  };
  ch.debug.renders++;
}

function modelTable(host: HTMLElement): void {
  const run = modelRun;
  if (!run) return;
  const { out } = run;
  const S = run.srcIds.length;
  const cols = run.srcTokens.map((c, j) => t('charRow', { n: j + 1, char: charLabel(c) }));
  const rows = (m: FloatTensor) => Array.from(out.ids, (id, i) => ({
    label: t('stepButton', { t: i + 1, tok: outLabel(out.tokens[i]!, id) }),
    values: Array.from(m.data.subarray(i * S, (i + 1) * S)),
  }));
  valuesTable(host, t('tableAlign'), t('outputStep'), cols, rows(out.weights));
  valuesTable(host, t('tableScores'), t('outputStep'), cols, rows(out.scores));
}

// ---- the exercise: numbers-gru on a fixed text ----------------------------------------
const EX_TEXT = 'forty-two thousand five';
const EX_STEP = 2;  // 0-based: the third output token, the first zero of 42005
let exRun: ModelRun | null = null;
const exGet = async (): Promise<ModelRun> => (exRun ??= await runGru(EX_TEXT));
/** The words of the exercise's text with their UTF-16 ranges. */
const EX_WORDS = [...EX_TEXT.matchAll(/[A-Za-z]+/g)].map((m) => ({ word: m[0], begin: m.index!, end: m.index! + m[0].length }));
const exDigits = () => (exRun ? exRun.out.ids.filter((id) => id !== gru?.info.eos_token_id).length : 0);
const exercise = ch.exercise(s3, {
  id: 'attend-most',
  question: 'exQuestion',
  questionParams: () => ({
    text: EX_TEXT,
    digits: exRun ? exRun.out.tokens.slice(0, exDigits()).join('') : '…',
    step: EX_STEP + 1,
    digit: exRun?.out.tokens[EX_STEP] ?? '…',
  }),
  choices: () => EX_WORDS.map((w) => w.word),
  answer: async () => {
    const run = await exGet();
    const S = run.srcIds.length;
    const j = argmax(run.out.weights.data, EX_STEP * S, S);
    const at = run.offsets[2 * j]!;
    // The word holding the character; a separator counts for the word after it.
    let k = EX_WORDS.findIndex((w) => at >= w.begin && at < w.end);
    if (k < 0) k = Math.max(0, EX_WORDS.findIndex((w) => w.begin > at));
    const w = EX_WORDS[k]!;
    debug.exercise = { step: EX_STEP, argmaxChar: j, word: w.word, correct: k, weight: run.out.weights.data[EX_STEP * S + j] };
    return {
      correct: k,
      explanation: t('exExplain', {
        step: EX_STEP + 1, weight: fmt(run.out.weights.data[EX_STEP * S + j]!), pos: j + 1,
        char: charLabel(run.srcTokens[j]!), word: w.word, text: EX_TEXT,
      }),
    };
  },
});

// =====================================================================================
// The common mistake: one set of weights per sentence; query and keys swapped
// =====================================================================================
let demoRefresh: (() => void) | null = null;
ch.mistake(s3, {
  title: 'mistakeTitle',
  body: 'mistakeBody',
  demo: (host) => {
    const buttons = el('div', 'additive-demo-buttons');
    const nudgeS = bound(el('button', 'additive-demo-button'), () => t('nudgeS'));
    const nudgeH = bound(el('button', 'additive-demo-button'), () => t('nudgeH'));
    nudgeS.type = nudgeH.type = 'button';
    buttons.append(nudgeS, nudgeH);
    // No axis names in the corner (they would not fit 390 px twice): the figure's alignment says them.
    const opts = { rowLabels: stepLabels, colLabels: srcLabels, digits: 3, heat: { domain: [0, 1] as [number, number] } };
    let what: Key | null = null;
    const before = new NumberMatrix(TQ, TK, { ...opts, label: lt('before') });
    const after = new NumberMatrix(TQ, TK, { ...opts, label: () => (what ? t('after', { what: t(what) }) : t('afterNone')) });
    const note = el('p', 'additive-note');
    note.setAttribute('aria-live', 'polite');
    const mats = el('div', 'additive-row');
    mats.append(before.element, after.element);
    host.append(buttons, mats, note);
    let last: { what: Key; weights: Float32Array } | null = null;
    const afterCaption = after.element.querySelector('caption');
    const show = () => {
      if (!handResult) return;
      if (afterCaption) afterCaption.textContent = what ? t('after', { what: t(what) }) : t('afterNone');
      before.set(handResult.weights.data);
      if (!last) {
        after.set(handResult.weights.data);
        note.textContent = '';
        return;
      }
      after.set(last.weights);
      const changed: string[] = [], same: string[] = [];
      for (let i = 0; i < TQ; i++) {
        let moved = false;
        for (let j = 0; j < TK; j++) if (Math.abs(last.weights[i * TK + j]! - handResult.weights.data[i * TK + j]!) > 1e-6) moved = true;
        (moved ? changed : same).push(`→ ${TGT[i]}`);
      }
      note.textContent = t('changed', { rows: changed.join(', ') || t('none'), same: same.join(', ') || t('none') });
      debug.demo = { what: last.what, before: Array.from(handResult.weights.data), after: Array.from(last.weights), changed, same };
    };
    const run = async (key: 'whatS' | 'whatH') => {
      const s = hand.s.slice(), h = hand.h.slice();
      if (key === 'whatS') { s[1 * D] += 1; s[1 * D + 1] += 1; } else { h[1 * D] += 1; h[1 * D + 1] += 1; }
      try {
        const r = await (await engine()).learn('additiveAttention', handArgs({ s, h }));
        what = key;
        last = { what: key, weights: r.weights.data };
        show();
      } catch (err) {
        note.textContent = ch.errorText(err);
      }
    };
    nudgeS.addEventListener('click', () => void run('whatS'));
    nudgeH.addEventListener('click', () => void run('whatH'));
    // The figure's numbers changed: the nudge is redone on them.
    demoRefresh = () => { if (last) void run(last.what as 'whatS' | 'whatH'); else show(); };
    onLocaleChange(() => show());
  },
});

// =====================================================================================
// Section 4: towards dot-product attention
// =====================================================================================
const s4 = ch.section('hNext');
ch.prose(s4, 'next');

// ---- start: the hand figure first (module only), then the model --------------------
void recomputeHand().then(() => recomputeModel()).then(async () => {
  await exGet();
  exercise.refresh();
}).catch((err: unknown) => ch.showError(err));
