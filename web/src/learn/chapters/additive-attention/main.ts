// Learn chapter 2, "Additive (Bahdanau) attention": e = vᵀ tanh(W s + U h_j), a softmax
// over the source positions, the context vector. This file: the idea, the seed example
// "I love you → 我爱你" with hand-set states and weights (every intermediate from the
// engine's nn::additive_attention), and the order of the sections, each in its own module:
// compare.ts (Luong's dot and general scores on the same states), saturation.ts (tanh's
// bound: scaling the states), model.ts (numbers-gru on the reader's text, an exercise),
// mistake.ts (the common-mistake box), step.ts (how c_t feeds the next decoder step),
// paper.ts (numbers-gru: the paper's parts and ours).
//
// Every number shown comes from the engine (learn_calls/additive.ts →
// src/api/tfp_learn_additive_api.h); this file arranges inputs and draws what comes back.
// window.tfpLearn.state holds the inputs and the engine's last results (tests read it).
import type { AdditiveResult } from '../../../engine/learn_calls/additive';
import { onLocaleChange } from '../../../i18n/i18n';
import { NumberMatrix } from '../../../widgets/number_matrix';
import { compareSection } from './compare';
import { mistakeBox } from './mistake';
import { modelSection, type ModelRun } from './model';
import { paperSection } from './paper';
import { saturationSection } from './saturation';
import { A, argmax, bound, ch, D, debug, el, engine, flexRow, fmt, lt, mat, SRC, t, TGT, TK, TQ, valuesTable, type Key } from './shared';
import { stepSection } from './step';
import './additive.css';

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
  figHand.view.append(stepPick, stepsTitle);
  ch.formula(figHand.view, () => String.raw`\begin{aligned}&\sym{sum}{\sym{Ws}{\sym{W}{W}\,\sym{s}{s}} + \sym{Uh}{\sym{U}{U}\,\sym{h}{h_j}}}
\;\xrightarrow{\tanh}\; \sym{tanh}{\cdot} \;\xrightarrow{\sym{v}{v}^{\top}\cdot}\; \sym{e}{e_j} \\
&\;\xrightarrow{\text{softmax over } j}\; \sym{alpha}{\alpha_j} \;\xrightarrow{\sum_j \alpha_j h_j}\; \sym{c}{c}\end{aligned}`);
  figHand.view.append(flexRow(mWs.element, mUh.element), flexRow(mSum.element, mTanh.element), flexRow(mE.element, mAlpha.element, mC.element),
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
    result: flatResult(r),
    renders: ((debug.hand as { renders?: number } | undefined)?.renders ?? 0) + 1,
  };
  ch.debug.renders++;
  compare.render(r);
  saturation.refresh();
  demoRefresh();
}
onLocaleChange(() => renderHand());

/** The engine's result under the C call's tensor names ("general_scores", …), as arrays. */
function flatResult(r: AdditiveResult): Record<string, { dims: number[]; data: number[] }> {
  const out: Record<string, { dims: number[]; data: number[] }> = {};
  const put = (k: string, v: { dims: number[]; data: Float32Array }) => { out[k] = { dims: v.dims.slice(), data: Array.from(v.data) }; };
  const { general, dot, ...plain } = r;
  for (const [k, v] of Object.entries(plain)) put(k, v);
  for (const [p, d] of [['general', general], ['dot', dot]] as const) if (d) for (const [k, v] of Object.entries(d)) put(`${p}_${k}`, v);
  return out;
}

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
// Luong's dot product beside it; how sharp the weights can get (both on the hand states)
// =====================================================================================
const handInputs = () => ({ h: hand.h, s: hand.s, W: hand.W, U: hand.U, v: hand.v });
const compare = compareSection();
const saturation = saturationSection(handInputs);

// =====================================================================================
// numbers-gru: the trained model, the mistake box, how c_t feeds the next step, ours vs the paper's
// =====================================================================================
let renderStep: (run: ModelRun) => void = () => {};
const modelPart = modelSection((run) => renderStep(run));
const demoRefresh = mistakeBox(modelPart.host, { inputs: () => hand, args: handArgs, result: () => handResult });
renderStep = stepSection().render;
const paper = paperSection();

// =====================================================================================
// Section 4: towards dot-product attention
// =====================================================================================
const s4 = ch.section('hNext');
ch.prose(s4, 'next');

// ---- start: the hand figure first (module only), then the model --------------------
void recomputeHand().then(() => modelPart.start()).then(() => paper.start()).catch((err: unknown) => ch.showError(err));
