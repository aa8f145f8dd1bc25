// Figure 1b: RMSNorm beside LayerNorm on one vector the reader edits, with a common offset
// b added to every feature (x + b): LayerNorm subtracts the mean, so b leaves it unchanged;
// RMSNorm only divides by the root mean square, so a large b takes over and every output
// goes to ±1. Both from the engine's nn::layer_norm (engine.learn('layerNorm') →
// tfp_learn_layer_norm), γ = 1, β = 0, ε = 1e-5:
//   LayerNorm   of the rows x + b, one row per offset on the grid OFFSETS;
//   RMSNorm     of the same rows, as LayerNorm of each row joined with its negative,
//               (x + b, −(x + b)) of 2C features: that row's mean is exactly 0 and its
//               variance (÷2C) is the mean square of x + b, so its first C outputs are
//               (x + b)/√(mean square + ε), RMSNorm by definition. (The engine's own
//               RMSNorm path, nn::layer_norm with rms = true, has no Learn call; this
//               identity gets the same numbers from the function every LayerNorm model
//               calls, with no maths in the page.)
// The slider only picks a row of the grid (no engine call); editing x recomputes the grid.
// Two line charts (each output feature against b), a 3-row matrix at the picked b, a
// worked line for feature 1, and the exercise "add 100 to every feature: which changes?".
// Legend: C features, K offsets on the grid.
import type { LayerNormResult } from '../../../engine/learn_calls/encoder';
import { LineChart, type Series } from '../../../widgets/line_chart';
import { NumberMatrix } from '../../../widgets/number_matrix';
import { numberTable } from '../../../widgets/tables';
import { el } from '../../../widgets/dom';
import { fixed } from '../../format';
import type { EncChapter } from './dom';

const C = 4;
const X0 = [1.0, 2.0, 3.0, 6.0];  // token 1 of the LayerNorm figure's X
const OFFSETS = Array.from({ length: 61 }, (_, i) => i - 30);  // b = −30 … 30
const B0 = 20;
const EPS = 1e-5;
const FAR = 100;  // the exercise's offset, beyond the slider

/** The engine's LayerNorm and RMSNorm of K rows of C features. */
interface BothNorms {
  rows: Float32Array;        // (K, C) the inputs
  ln: LayerNormResult;       // LayerNorm of the rows
  rms: Float32Array;         // (K, C) RMSNorm of the rows
  meanSquare: Float32Array;  // (K) each row's mean square, the engine's variance of (row, −row)
}

async function bothNorms(ch: EncChapter, rows: Float32Array, K: number): Promise<BothNorms> {
  const mirrored = new Float32Array(K * 2 * C);
  for (let k = 0; k < K; k++)
    for (let c = 0; c < C; c++) {
      mirrored[k * 2 * C + c] = rows[k * C + c]!;
      mirrored[k * 2 * C + C + c] = -rows[k * C + c]!;
    }
  const engine = await ch.engine();
  const [ln, m] = await Promise.all([
    engine.learn('layerNorm', { x: { data: rows.slice(), dims: [K, C] }, eps: EPS }),
    engine.learn('layerNorm', { x: { data: mirrored, dims: [K, 2 * C] }, eps: EPS }),
  ]);
  const rms = new Float32Array(K * C), meanSquare = new Float32Array(K);
  for (let k = 0; k < K; k++) {
    rms.set(m.y.data.subarray(k * 2 * C, k * 2 * C + C), k * C);
    meanSquare[k] = m.rowIn.data[2 * k + 1]!;
  }
  return { rows, ln, rms, meanSquare };
}

/** The K rows x + b for the offsets bs. */
function offsetRows(x: Float32Array, bs: readonly number[]): Float32Array {
  const rows = new Float32Array(bs.length * C);
  bs.forEach((b, k) => { for (let c = 0; c < C; c++) rows[k * C + c] = x[c]! + b; });
  return rows;
}

export function rmsSection(ch: EncChapter): { run: () => Promise<void> } {
  const state = ch.debug.state;
  const s = ch.section('hRms');
  ch.prose(s, 'rmsWhat');
  let x: Float32Array = Float32Array.from(X0);
  let b = B0;
  let grid: BothNorms | null = null;
  const colLabels = Array.from({ length: C }, (_, c) => () => ch.t('colFeature', { c: c + 1 }));

  const fig = ch.figure(s, {
    caption: 'figRmsCaption', label: 'figRmsLabel',
    table: (host) => {
      const g = grid;
      if (!g) return;
      const vals = new Float32Array(OFFSETS.length * 2 * C);
      OFFSETS.forEach((_, k) => {
        vals.set(g.ln.y.data.subarray(k * C, (k + 1) * C), k * 2 * C);
        vals.set(g.rms.subarray(k * C, (k + 1) * C), k * 2 * C + C);
      });
      const cols = [...colLabels.map((f) => `LN ${f()}`), ...colLabels.map((f) => `RMS ${f()}`)];
      host.replaceChildren(numberTable(ch.t('rmsTableCaption'), OFFSETS.map((v) => `b = ${v}`), cols, vals, 4));
    },
  });
  const xM = new NumberMatrix(1, C, { label: () => ch.t('matRmsX'), sym: 'xv', colLabels, rowLabels: [() => 'x'], digits: 2, editable: true,
    step: 0.1, min: -1e3, max: 1e3, onChange: (v) => { x = v; void run(); } });
  xM.set(x);
  const slider = el('input');
  slider.type = 'range';
  slider.min = String(OFFSETS[0]);
  slider.max = String(OFFSETS[OFFSETS.length - 1]);
  slider.step = '1';
  slider.value = String(b);
  const bField = ch.field('rmsOffset', slider, 'enc-rms-offset', { params: () => ({ b }) });
  slider.addEventListener('input', () => {
    b = Number(slider.value);
    bField.relabel();
    render();
  });
  fig.controls.append(xM.element, bField.element);
  fig.controls.classList.add('enc-norm-controls', 'enc-rms-controls');

  const formulaBox = el('div', 'enc-formula enc-rms-formulas');
  ch.formula(formulaBox, () => String.raw`\mathrm{LN}(\sym{xv}{x})_c = \frac{\sym{xv}{x}_c - \mu}{\sqrt{\sigma^2 + \varepsilon}}`);
  ch.formula(formulaBox, () => String.raw`\mathrm{RMSNorm}(\sym{xv}{x})_c = \frac{\sym{xv}{x}_c}{\sqrt{\tfrac1C\sum_{c'} \sym{xv}{x}_{c'}^2 + \varepsilon}}`);
  const rowLabels = [() => 'x + b', () => 'LayerNorm', () => 'RMSNorm'];
  // Columns numbered under the axis name "feature": four full labels do not fit 390 px.
  const shownM = new NumberMatrix(3, C, { label: () => ch.t('matRmsBoth'), colLabels: Array.from({ length: C }, (_, c) => () => String(c + 1)), rowLabels, colAxis: () => ch.t('colAxis'), digits: 3 });
  const summary = el('p', 'enc-rms-summary');
  summary.setAttribute('aria-live', 'polite');
  const lnChart = new LineChart({ label: () => ch.t('chartRmsLn'), xLabel: () => ch.t('axisOffset'), yLabel: () => ch.t('axisNormOut'), yDomain: [-2, 2] });
  const rmsChart = new LineChart({ label: () => ch.t('chartRmsRms'), xLabel: () => ch.t('axisOffset'), yLabel: () => ch.t('axisNormOut'), yDomain: [-2, 2] });
  const title = (key: 'chartRmsLn' | 'chartRmsRms') => { const h = el('h3', 'enc-sub'); ch.bind(h, key); return h; };
  const charts = el('div', 'enc-rms-charts');
  const left = el('div'), right = el('div');
  left.append(title('chartRmsLn'), lnChart.element);
  right.append(title('chartRmsRms'), rmsChart.element);
  charts.append(left, right);
  fig.view.append(formulaBox, shownM.element);
  let workedParams: Record<string, string> = {};
  const worked = ch.prose(fig.view, 'rmsWorked', () => workedParams);
  worked.classList.add('enc-rms-worked');
  fig.view.append(summary, charts);
  fig.view.classList.add('enc-norm-view');

  function render(): void {
    const g = grid;
    if (!g) return;
    const k = OFFSETS.indexOf(b);
    const row = (a: Float32Array) => a.subarray(k * C, (k + 1) * C);
    const input = row(g.rows), ln = row(g.ln.y.data), rms = row(g.rms);
    shownM.set([...input, ...ln, ...rms]);
    workedParams = { b: String(b), x: fixed(input[0]!, 2), mean: fixed(g.ln.rowIn.data[2 * k]!, 4), var: fixed(g.ln.rowIn.data[2 * k + 1]!, 4),
                     ln: fixed(ln[0]!, 4), ms: fixed(g.meanSquare[k]!, 4), rms: fixed(rms[0]!, 4) };
    worked.rerender();
    summary.textContent = ch.t('rmsSummary', { b, lnLo: fixed(Math.min(...ln), 3), lnHi: fixed(Math.max(...ln), 3),
                                               rmsLo: fixed(Math.min(...rms), 3), rmsHi: fixed(Math.max(...rms), 3) });
    const series = (a: Float32Array): Series[] => Array.from({ length: C }, (_, c) => ({
      name: colLabels[c]!, markers: false, points: OFFSETS.map((v, j) => [v, a[j * C + c]!] as [number, number]),
    }));
    lnChart.update(series(g.ln.y.data), b);
    rmsChart.update(series(g.rms), b);
    state['rms'] = { ...(state['rms'] as object), b, k };
    fig.refreshTable();
    ch.debug.renders++;
  }
  ch.onLocale(render);

  let runId = 0;
  async function run(): Promise<void> {
    const mine = ++runId;
    try {
      const r = await bothNorms(ch, offsetRows(x, OFFSETS), OFFSETS.length);
      if (mine !== runId) return;
      grid = r;
      state['rms'] = { x: Array.from(x), offsets: OFFSETS, eps: EPS, rows: r.rows, ln: r.ln.y.data, lnRowIn: r.ln.rowIn.data,
                       rms: r.rms, meanSquare: r.meanSquare };
      render();
      ex.refresh();
    } catch (e) {
      if (mine === runId) ch.showError(e);
    }
  }

  const ex = ch.exercise(s, {
    id: 'rms-offset',
    question: 'exRmsQuestion',
    questionParams: () => ({ far: FAR }),
    choices: () => [ch.t('exRmsChoice0'), ch.t('exRmsChoice1'), ch.t('exRmsChoice2'), ch.t('exRmsChoice3')],
    answer: async () => {
      const r = await bothNorms(ch, offsetRows(x, [0, FAR]), 2);
      const vec = (a: Float32Array, k: number) => Array.from(a.subarray(k * C, (k + 1) * C), (v) => fixed(v, 3)).join(', ');
      // Changed = some output moved by more than 1e-3 (float32 rounding of x + 100 moves
      // LayerNorm's outputs by about 1e-5).
      const moved = (a: Float32Array) => Array.from({ length: C }, (_, c) => Math.abs(a[C + c]! - a[c]!)).some((d) => d > 1e-3);
      const lnChanged = moved(r.ln.y.data), rmsChanged = moved(r.rms);
      const correct = rmsChanged && !lnChanged ? 0 : lnChanged && !rmsChanged ? 1 : lnChanged ? 2 : 3;
      state['exerciseRms'] = { x: Array.from(x), ln: r.ln.y.data, rms: r.rms, lnChanged, rmsChanged, correct };
      return { correct, explanation: ch.t('exRmsExplain', { far: FAR, ln0: vec(r.ln.y.data, 0), ln1: vec(r.ln.y.data, 1),
                                                            rms0: vec(r.rms, 0), rms1: vec(r.rms, 1) }) };
    },
  });
  ch.prose(s, 'rmsOffsetWhy');
  return { run };
}
