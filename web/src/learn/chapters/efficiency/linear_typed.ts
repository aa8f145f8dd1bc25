// Section 3b of "Efficiency": linear attention on a Q, K, V the reader types (one head,
// up to 8 tokens), step by step — the running state S_j = S_{j−1} + φ(k_j) v_jᵀ and
// z_j = z_{j−1} + φ(k_j) that token i reads (causal: after key i; otherwise the last),
// its numerator and denominator, the weights linear attention implies beside softmax's,
// and both outputs; then a predict-then-check: with the causal mask, which outputs move
// when only the last key and value change. Every number is the engine's
// (engine.learn('linearAttention') → tfp_learn_linear_attention → nn::linear_attention,
// nn::linear_attention_steps, nn::scaled_dot_product_attention); the page only compares
// two engine results (the exercise's changed rows).
// Legend: T tokens, D key width, Dv value width; tokens are labelled from 1.
import type { LinearAttentionResult } from '../../../engine/learn_calls/efficiency';
import type { FloatTensor } from '../../../engine/messages';
import type { Chapter } from '../../chapter';
import { el } from '../../../widgets/dom';
import { Heatmap } from '../../../widgets/heatmap';
import { NumberMatrix } from '../../../widgets/number_matrix';
import { onThemeChange } from '../../../widgets/theme';
import { numberTable } from '../../../widgets/tables';
import { fixed, subscript } from '../../format';
import { parseMatrix } from './int8_rule.mjs';
import type { Key } from './text';

type EffChapter = Chapter<Key>;

const MAX_T = 8, MAX_D = 4;
/** Three starting inputs: four tokens; the same with sharper queries (softmax sharpens,
 *  linear attention much less); two tokens with the same key (equal weights in both). */
const PRESETS: { key: Key; q: string; k: string; v: string }[] = [
  { key: 'linPresetSmall', q: '1 0\n0 1\n1 1\n-1 0.5', k: '1 0\n0 1\n0.5 0.5\n-1 -1', v: '1 0\n0 1\n1 1\n2 -1' },
  { key: 'linPresetSharp', q: '4 0\n0 4\n4 4\n-4 2', k: '1 0\n0 1\n0.5 0.5\n-1 -1', v: '1 0\n0 1\n1 1\n2 -1' },
  { key: 'linPresetSameKeys', q: '1 0\n0 1\n1 1', k: '1 -1\n1 -1\n0 2', v: '1 0\n0 1\n2 2' },
];
const ERRORS = { empty: 'quantErrEmpty', rows: 'quantErrRows', cols: 'quantErrCols', ragged: 'quantErrRagged', number: 'quantErrNumber' } as const satisfies Record<string, Key>;
const fmt = (v: number) => fixed(v, 3).replace(/-/g, '−');
const row = (t: FloatTensor, i: number, cols: number) => Array.from(t.data.subarray(i * cols, (i + 1) * cols));

export function linearTypedSection(ch: EffChapter, host: HTMLElement): void {
  const state = ch.debug.state;
  let causal = true, step = 0;
  let shown: (LinearAttentionResult & { T: number; D: number; Dv: number; causal: boolean; q: FloatTensor; k: FloatTensor; v: FloatTensor }) | null = null;
  ch.prose(host, 'linTypedIntro');
  ch.formula(host, () => String.raw`\begin{aligned} S_j &= S_{j-1} + \phi(k_j)\,v_j^\top, \quad z_j = z_{j-1} + \phi(k_j), \quad S_0 = 0,\ z_0 = 0 \\ \text{out}_i &= \frac{\phi(q_i)^\top S_{i}}{\phi(q_i)^\top z_{i}} \ \ (\text{causal}), \qquad \text{out}_i = \frac{\phi(q_i)^\top S_{T}}{\phi(q_i)^\top z_{T}} \ \ (\text{not}) \end{aligned}`);
  const fig = ch.figure(host, { caption: 'figLinTyped', label: 'figLinTypedLabel', table: (h) => h.replaceChildren(...tables()) });

  const areas = (['linQLabel', 'linKLabel', 'linVLabel'] as const).map((key, n) => {
    const area = el('textarea');
    area.rows = 4;
    area.spellcheck = false;
    area.value = [PRESETS[0]!.q, PRESETS[0]!.k, PRESETS[0]!.v][n]!;
    const field = ch.field(key, area, `eff-lin-${'qkv'[n]}`).element;
    field.classList.add('eff-lin-input');
    return { area, field };
  });
  const inputs = el('div', 'eff-lin-inputs');
  inputs.append(...areas.map((a) => a.field));
  const help = el('p', 'help');
  ch.bind(help, 'linHelp');
  const presets = el('div', 'eff-presets');
  for (const pr of PRESETS) {
    const b = ch.button(pr.key);
    b.addEventListener('click', () => {
      [pr.q, pr.k, pr.v].forEach((text, n) => { areas[n]!.area.value = text; });
      void run();
    });
    presets.append(b);
  }
  const causalBox = el('input');
  causalBox.type = 'checkbox';
  causalBox.checked = causal;
  causalBox.addEventListener('change', () => { causal = causalBox.checked; void run(); });
  const causalField = el('div', 'field eff-check');
  const causalLabel = el('label');
  causalLabel.htmlFor = causalBox.id = 'eff-lin-causal';
  ch.bind(causalLabel, 'linCausal');
  causalField.append(causalBox, causalLabel);
  const stepIn = el('input');
  stepIn.type = 'range';
  stepIn.min = '1';
  stepIn.step = '1';
  stepIn.addEventListener('input', () => { step = Number(stepIn.value) - 1; render(); });
  const stepField = ch.field('linStep', stepIn, 'eff-lin-step').element;
  const stepValue = el('output');
  stepField.append(stepValue);
  fig.controls.append(inputs, help, presets, causalField, stepField);

  const status = el('p', 'eff-status');
  status.setAttribute('role', 'status');
  const axes = { rowAxis: () => ch.t('linAxisQuery'), colAxis: () => ch.t('linAxisKey'), digits: 3 };
  const mapLinear = new Heatmap({ title: ch.t('linMapLinear'), ...axes });
  const mapSoftmax = new Heatmap({ title: ch.t('linMapSoftmax'), ...axes });
  const maps = el('div', 'eff-lin-pair');
  maps.append(mapLinear.element, mapSoftmax.element);
  const dimLabels = (n: number) => Array.from({ length: n }, (_, d) => () => ch.t('linDim', { d: d + 1 }));
  const tokenLabels = (n: number) => Array.from({ length: n }, (_, i) => () => ch.t('linTokenRow', { i: i + 1 }));
  const phiQ = new NumberMatrix(1, 1, { label: () => ch.t('linPhiQ', { isub: subscript(step + 1) }), format: fmt });
  const stateS = new NumberMatrix(1, 1, { label: () => ch.t('linStateS', { i: step + 1 }), format: fmt, colAxis: () => ch.t('linColAxis') });
  const stateZ = new NumberMatrix(1, 1, { label: () => ch.t('linStateZ', { i: step + 1 }), format: fmt });
  const stepBox = el('div', 'eff-lin-state');
  stepBox.append(phiQ.element, stateS.element, stateZ.element);
  const outLinear = new NumberMatrix(1, 1, { label: () => ch.t('linOutLinear'), format: fmt, colAxis: () => ch.t('linColAxis') });
  const outSoftmax = new NumberMatrix(1, 1, { label: () => ch.t('linOutSoftmax'), format: fmt, colAxis: () => ch.t('linColAxis') });
  const outs = el('div', 'eff-lin-pair');
  outs.append(outLinear.element, outSoftmax.element);
  let lineParams: Record<string, string> = {};
  const body = el('div');
  body.append(maps, stepBox);
  fig.view.append(status, body);
  const line = ch.prose(fig.view, 'linStepLine', () => lineParams);
  fig.view.append(outs);
  fig.view.classList.add('eff-lin-view');

  function tables(): HTMLTableElement[] {
    if (!shown) return [];
    const { T, Dv } = shown;
    const toks = Array.from({ length: T }, (_, i) => ch.t('linTokenRow', { i: i + 1 }));
    const dims = Array.from({ length: Dv }, (_, d) => ch.t('linDim', { d: d + 1 }));
    return [numberTable(ch.t('linMapLinear'), toks, toks, shown.weights.data), numberTable(ch.t('linMapSoftmax'), toks, toks, shown.softmaxWeights.data),
            numberTable(ch.t('linOutLinear'), toks, dims, shown.out.data), numberTable(ch.t('linOutSoftmax'), toks, dims, shown.softmaxOut.data)];
  }

  function render(): void {
    if (!shown) return;
    const { T, D, Dv } = shown;
    step = Math.min(step, T - 1);
    stepIn.max = String(T);
    stepIn.value = String(step + 1);
    stepValue.textContent = String(step + 1);
    const toks = Array.from({ length: T }, (_, i) => String(i + 1));
    const masked = shown.causal ? Float32Array.from({ length: T * T }, (_, n) => (n % T > Math.floor(n / T) ? 1 : 0)) : null;
    mapLinear.setTitle(ch.t('linMapLinear'));
    mapSoftmax.setTitle(ch.t('linMapSoftmax'));
    mapLinear.update({ rowLabels: toks, colLabels: toks, values: shown.weights.data, masked, selectedRow: step });
    mapSoftmax.update({ rowLabels: toks, colLabels: toks, values: shown.softmaxWeights.data, masked, selectedRow: step });
    const at = shown.causal ? step : T - 1;  // the state token `step` reads
    phiQ.set(row(shown.phiQ, step, D), { rows: 1, cols: D, colLabels: dimLabels(D) });
    stateS.set(shown.state.data.subarray(at * D * Dv, (at + 1) * D * Dv), { rows: D, cols: Dv, rowLabels: dimLabels(D), colLabels: dimLabels(Dv) });
    stateZ.set(row(shown.norm, at, D), { rows: 1, cols: D, colLabels: dimLabels(D) });
    outLinear.set(shown.out.data, { rows: T, cols: Dv, rowLabels: tokenLabels(T), colLabels: dimLabels(Dv) });
    outSoftmax.set(shown.softmaxOut.data, { rows: T, cols: Dv, rowLabels: tokenLabels(T), colLabels: dimLabels(Dv) });
    outLinear.mark(step);
    outSoftmax.mark(step);
    let diff = 0;
    shown.out.data.forEach((v, n) => { diff = Math.max(diff, Math.abs(v - shown!.softmaxOut.data[n]!)); });
    const list = (xs: number[]) => xs.map(fmt).join(', ');
    lineParams = { i: String(step + 1), isub: subscript(step + 1), last: String(at + 1), terms: String(at + 1), size: String(D * Dv + D), D: String(D), Dv: String(Dv),
                   num: list(row(shown.numerator, step, Dv)), den: fmt(shown.denominator.data[step]!), out: list(row(shown.out, step, Dv)),
                   soft: list(row(shown.softmaxOut, step, Dv)), diff: fmt(diff) };
    line.rerender();
    state['linTyped'] = { ...shown, step, at, diff };
    fig.refreshTable();
    exercise.refresh();
    ch.debug.renders++;
  }
  ch.onLocale(render);
  onThemeChange(() => { mapLinear.redraw(); mapSoftmax.redraw(); });

  /** The typed matrices, or the first problem with them (shown in the status line). */
  function read(): { q: FloatTensor; k: FloatTensor; v: FloatTensor } | string {
    const parsed = areas.map((a) => parseMatrix(a.area.value, MAX_T, MAX_D));
    for (const p of parsed) if (p.error !== undefined) return ch.t(ERRORS[p.error], { rows: MAX_T, cols: MAX_D });
    const [q, k, v] = parsed as { rows: number; cols: number; values: number[] }[];
    if (q!.rows !== k!.rows || q!.cols !== k!.cols || v!.rows !== q!.rows)
      return ch.t('linErrShape', { tq: q!.rows, dq: q!.cols, tk: k!.rows, dk: k!.cols, tv: v!.rows });
    const t = (m: { rows: number; cols: number; values: number[] }): FloatTensor => ({ dims: [m.rows, m.cols], data: Float32Array.from(m.values) });
    return { q: t(q!), k: t(k!), v: t(v!) };
  }

  let runs = 0;
  async function run(): Promise<void> {
    const mine = ++runs;
    const input = read();
    if (typeof input === 'string') {
      status.textContent = input;
      body.hidden = outs.hidden = true;
      return;
    }
    try {
      const engine = await ch.engine();
      const r = await engine.learn('linearAttention', { ...input, causal });
      if (mine !== runs) return;
      status.textContent = '';
      body.hidden = outs.hidden = false;
      const [T, D] = input.q.dims as [number, number];
      shown = { ...r, ...input, T, D, Dv: input.v.dims[1]!, causal };
      render();
    } catch (e) {
      if (mine === runs) ch.showError(e);
    }
  }
  let typing = 0;
  for (const a of areas) a.area.addEventListener('input', () => { window.clearTimeout(typing); typing = window.setTimeout(() => void run(), 200); });

  // Predict, then the engine: the same input with the last key and value changed, with the
  // causal mask and without; the outputs that moved.
  const exercise = ch.exercise(host, {
    id: 'linear-causal-last',
    question: 'linExQuestion',
    questionParams: () => ({ T: shown?.T ?? '…' }),
    choices: () => (['linExOnlyLast', 'linExAll', 'linExNone', 'linExFirst'] as const).map((k) => ch.t(k)),
    answer: async () => {
      if (!shown) throw new Error('linear attention: no input yet');
      const { T, Dv, q, k, v } = shown;
      const bump = (t: FloatTensor): FloatTensor => {
        const data = t.data.slice();
        const cols = t.dims[1]!;
        for (let c = 0; c < cols; c++) data[(T - 1) * cols + c] = -2 * data[(T - 1) * cols + c]! + 1.5;  // another key and value
        return { dims: t.dims, data };
      };
      const engine = await ch.engine();
      const changedRows = async (on: boolean) => {
        const [a, b] = await Promise.all([engine.learn('linearAttention', { q, k, v, causal: on }),
                                          engine.learn('linearAttention', { q, k: bump(k), v: bump(v), causal: on })]);
        const rows: number[] = [];
        let diff = 0;
        for (let i = 0; i < T; i++) {
          let d = 0;
          for (let c = 0; c < Dv; c++) d = Math.max(d, Math.abs(a.out.data[i * Dv + c]! - b.out.data[i * Dv + c]!));
          if (d > 1e-6) rows.push(i);
          diff = Math.max(diff, d);
        }
        return { rows, diff };
      };
      const withMask = await changedRows(true), without = await changedRows(false);
      const only = (i: number) => withMask.rows.length === 1 && withMask.rows[0] === i;
      const correct = only(T - 1) ? 0 : withMask.rows.length === T ? 1 : withMask.rows.length === 0 ? 2 : only(0) ? 3 : 0;
      state['linExercise'] = { changed: withMask.rows, changedWithout: without.rows };
      return {
        correct,
        explanation: ch.t('linExExplain', { T, changed: withMask.rows.length, which: withMask.rows.map((i) => i + 1).join(', ') || '—',
                                            diff: fmt(withMask.diff), before: T - 1, all: without.rows.length }),
      };
    },
  });
  void run();
}
