// The section "How sharp can the weights get?" of the chapter on additive attention:
// tanh's bound. Every additive score is vᵀ tanh(·), so |e| ≤ ‖v‖₁ and two weights of one
// row differ by at most a factor exp(2‖v‖₁), however large the states are; a dot-product
// score grows with them. The reader scales the hand figure's states s and h together
// (×1 … ×100); for every scale the engine (tfp_learn_additive_attention on the scaled
// states) returns the weights and each row's entropy of the additive, dot and general
// scores. The page takes the largest weight of the picked row (a choice, not maths) and
// the span max e − min e of its scores (one subtraction, labelled; the test redoes it).
// Then a predict-then-check exercise: ×10, which gets sharper?
import type { AdditiveArgs, AdditiveResult } from '../../../engine/learn_calls/additive';
import { onLocaleChange } from '../../../i18n/i18n';
import { LineChart, type Series } from '../../../widgets/line_chart';
import { NumberMatrix } from '../../../widgets/number_matrix';
import { A, bound, ch, D, debug, el, engine, fmt, lt, mat, row, SRC, t, TGT, TK, TQ, valuesTable, type Key } from './shared';

/** The scales the figure offers (the slider's stops). */
export const SCALES = [1, 1.5, 2, 3, 5, 7, 10, 15, 20, 30, 50, 70, 100];
const KINDS = [['kindAdditive', ''], ['kindDot', 'dot'], ['kindGeneral', 'general']] as const satisfies readonly (readonly [Key, string])[];
type Hand = { h: number[]; s: number[]; W: number[]; U: number[]; v: number[] };

/** The engine's call on the hand figure's numbers with s and h multiplied by k. */
const scaledArgs = (x: Hand, k: number): AdditiveArgs => ({
  s: mat(x.s.map((q) => q * k), TQ, D), h: mat(x.h.map((q) => q * k), TK, D),
  W: mat(x.W, A, D), U: mat(x.U, A, D), v: Float32Array.from(x.v),
});
const part = (r: AdditiveResult, kind: string) => (kind === '' ? r : kind === 'dot' ? r.dot! : r.general);
const maxOf = (a: ArrayLike<number>) => Math.max(...Array.from(a));
const minOf = (a: ArrayLike<number>) => Math.min(...Array.from(a));

export function saturationSection(inputs: () => Hand): { refresh: () => void } {
  const sec = ch.section('hSaturation');
  ch.prose(sec, 'saturation');
  ch.formula(sec, () => String.raw`|\sym{e}{e_{tj}}| = \Big|\sum_{a=1}^{A} \sym{v}{v_a}\tanh(\cdot)_a\Big| \le \sum_{a=1}^{A}|\sym{v}{v_a}| = \lVert \sym{v}{v}\rVert_1
\;\Rightarrow\; \frac{\sym{alpha}{\alpha_{tj}}}{\sym{alpha}{\alpha_{tk}}} = e^{e_{tj}-e_{tk}} \le e^{2\lVert v\rVert_1}`);
  const st = { step: 1, scale: 10, sweep: [] as AdditiveResult[], inputs: null as Hand | null };
  const fig = ch.figure(sec, { caption: 'figSaturation', label: 'figSaturationLabel', table: (host) => table(host) });
  fig.element.classList.add('additive-saturation');

  const pick = el('fieldset', 'additive-step-pick');
  pick.append(bound(el('legend'), () => t('stepPick')));
  TGT.forEach((w, i) => {
    const label = el('label');
    const r = el('input');
    r.type = 'radio';
    r.name = 'additive-saturation-step';
    r.checked = i === st.step;
    r.addEventListener('change', () => {
      st.step = i;
      render();
    });
    label.append(r, bound(el('span'), () => t('stepOption', { t: i + 1, word: w })));
    pick.append(label);
  });
  const sliderLabel = el('label', 'field additive-scale');
  const slider = el('input');
  slider.type = 'range';
  slider.min = '0';
  slider.max = String(SCALES.length - 1);
  slider.step = '1';
  slider.value = String(SCALES.indexOf(st.scale));
  const sliderText = el('span');
  sliderLabel.append(sliderText, slider);
  const sliderWords = () => {
    sliderText.textContent = t('scaleLabel', { k: st.scale });
    slider.setAttribute('aria-valuetext', `×${st.scale}`);
  };
  sliderWords();
  onLocaleChange(sliderWords);
  slider.addEventListener('input', () => {
    st.scale = SCALES[Number(slider.value)]!;
    sliderWords();
    render();
  });
  fig.controls.append(pick, sliderLabel);

  const kindLabels = KINDS.map(([k]) => lt(k));
  const mA = new NumberMatrix(3, TK, { label: () => t('satWeights', { k: st.scale }), sym: 'alpha', rowLabels: kindLabels, colLabels: SRC.slice(),
    colAxis: lt('sourceWord'), digits: 3, heat: { domain: [0, 1] } });
  const mE = new NumberMatrix(3, TK, { label: () => t('satScores', { k: st.scale }), sym: 'e', rowLabels: kindLabels, colLabels: SRC.slice(),
    colAxis: lt('sourceWord'), digits: 2 });
  const note = el('p', 'additive-note');
  note.setAttribute('aria-live', 'polite');
  const xFormat = (v: number) => `×${v}`;
  const topChart = new LineChart({ label: lt('chartTop'), xLabel: lt('axisScale'), yLabel: lt('axisTop'), xLog: true, xFormat, yDomain: [0, 1] });
  const entChart = new LineChart({ label: lt('chartEntropy'), xLabel: lt('axisScale'), yLabel: lt('axisEntropy'), xLog: true, xFormat });
  const charts = el('div', 'additive-charts');
  charts.append(topChart.element, entChart.element);
  fig.view.append(mA.element, mE.element, note, charts);

  let seq = 0;
  async function sweep(): Promise<void> {
    const my = ++seq;
    const x = inputs();
    const snapshot: Hand = { h: x.h.slice(), s: x.s.slice(), W: x.W.slice(), U: x.U.slice(), v: x.v.slice() };
    try {
      const e = await engine();
      const out: AdditiveResult[] = [];
      for (const k of SCALES) out.push(await e.learn('additiveAttention', scaledArgs(snapshot, k)));
      if (my !== seq) return;
      st.sweep = out;
      st.inputs = snapshot;
      render();
      exercise.refresh();
    } catch (err) {
      if (my === seq) note.textContent = ch.errorText(err);
    }
  }

  /** Largest weight and entropy of the picked row for every scale, per kind. */
  const curves = () => KINDS.map(([, kind]) => ({
    top: st.sweep.map((r) => maxOf(row(part(r, kind).weights, st.step))),
    entropy: st.sweep.map((r) => part(r, kind).entropy.data[st.step]!),
  }));

  function render(): void {
    if (st.sweep.length !== SCALES.length) return;
    const i = SCALES.indexOf(st.scale), r = st.sweep[i]!, s = st.step;
    const cat = (f: (kind: string) => Float32Array) => Float32Array.from(KINDS.flatMap(([, kind]) => Array.from(f(kind))));
    mA.set(cat((kind) => row(part(r, kind).weights, s)));
    mE.set(cat((kind) => row(part(r, kind).scores, s)));
    const b = r.bound.data[0]!;
    const span = (kind: string) => maxOf(row(part(r, kind).scores, s)) - minOf(row(part(r, kind).scores, s));
    note.textContent = t('satNote', { k: st.scale, b: fmt(b, 2), b2: fmt(2 * b, 2), spanA: fmt(span(''), 2), spanD: fmt(span('dot'), 2), ratio: fmt(Math.exp(2 * b), 0) });
    const cs = curves();
    const series = (what: 'top' | 'entropy'): Series[] => KINDS.map(([k], q) => ({
      name: lt(k), dashed: q > 0, points: SCALES.map((x, j) => [x, cs[q]![what][j]!] as [number, number]),
    }));
    topChart.update(series('top'), st.scale);
    entChart.update(series('entropy'), st.scale);
    fig.refreshTable();
    debug.saturation = {
      step: s, scale: st.scale, scales: SCALES.slice(), inputs: st.inputs, bound: b, spanAdditive: span(''), spanDot: span('dot'),
      ...Object.fromEntries(KINDS.map(([k], q) => [k, { top: cs[q]!.top, entropy: cs[q]!.entropy,
        weights: Array.from(row(part(r, KINDS[q]![1]).weights, s)), scores: Array.from(row(part(r, KINDS[q]![1]).scores, s)) }])),
      renders: ((debug.saturation as { renders?: number } | undefined)?.renders ?? 0) + 1,
    };
    ch.debug.renders++;
  }
  onLocaleChange(() => render());

  function table(host: HTMLElement): void {
    if (st.sweep.length !== SCALES.length) return;
    const cs = curves();
    const cols = KINDS.flatMap(([k]) => [`${t(k)}: ${t('axisTop')}`, `${t(k)}: ${t('axisEntropy')}`]);
    valuesTable(host, t('satTable', { t: st.step + 1, word: TGT[st.step]! }), t('axisScale'), cols,
      SCALES.map((x, j) => ({ label: `×${x}`, values: cs.flatMap((c) => [c.top[j]!, c.entropy[j]!]) })));
  }

  // ---- the exercise: ×1 → ×10, which weights get sharper? ----------------------------
  const EX_STEP = 1;  // 0-based: step 2 (→ 爱)
  const exercise = ch.exercise(sec, {
    id: 'scale-sharpen',
    question: 'satQuestion',
    questionParams: () => ({ step: EX_STEP + 1, word: TGT[EX_STEP]! }),
    choices: () => [t('choiceAdditive'), t('choiceDot'), t('choiceSame')],
    answer: async () => {
      const x = inputs();
      const e = await engine();
      const [r1, r10] = [await e.learn('additiveAttention', scaledArgs(x, 1)), await e.learn('additiveAttention', scaledArgs(x, 10))];
      const top = (r: AdditiveResult, kind: string) => maxOf(row(part(r, kind).weights, EX_STEP));
      const a1 = top(r1, ''), a10 = top(r10, ''), d1 = top(r1, 'dot'), d10 = top(r10, 'dot');
      const riseA = a10 - a1, riseD = d10 - d1;
      const correct = Math.abs(riseA - riseD) < 0.02 ? 2 : riseA > riseD ? 0 : 1;
      debug.satExercise = { a1, a10, d1, d10, correct, bound: r1.bound.data[0] };
      return { correct, explanation: t('satExplain', { a1: fmt(a1), a10: fmt(a10), d1: fmt(d1), d10: fmt(d10), b: fmt(r1.bound.data[0]!, 2) }) };
    },
  });

  return { refresh: () => void sweep() };
}
