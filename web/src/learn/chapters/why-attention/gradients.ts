// Chapter 1, section "Gradients through many steps": the engine runs a tanh RNN or a GRU
// (width H = 32, T = 100 seeded inputs, W_hh = gain·Q with Q orthogonal) and passes the
// gradient of L = u·h_T back with its training backward pass
// (tfp_learn_gradient_steps via engine.learn('gradientSteps')), once for the reader's
// cell and once for the same W_hh without the tanh (the g^k reference). The chart plots
// log10 of the engine's lengths (a display transform: the chart's axis is linear in it);
// the only other arithmetic is for reading: a ratio of two engine numbers and the mean of
// the engine's per-step gate factors. Then a predict-then-check exercise at gain 1.2.
//
// Legend: T steps, H state width, k steps back (0 = the last state h_T).
import type { GradientSteps, RecurrentCell } from '../../../engine/learn_calls/gradient';
import { el } from '../../../widgets/dom';
import { LineChart, type LineChartOptions } from '../../../widgets/line_chart';
import { textTable } from '../../../widgets/tables';
import { latest } from '../../latest';
import type { WhyChapter } from './dom';
import type { WhyKey } from './text';

export const GRAD_T = 100;
export const GRAD_H = 32;
export const GRAD_SEED = 1;
/** The exercise: a tanh RNN at this gain, this many steps back. */
export const EX_GAIN = 1.2;
export const EX_K = 60;

const SUP: Record<string, string> = { '-': '⁻', 0: '⁰', 1: '¹', 2: '²', 3: '³', 4: '⁴', 5: '⁵', 6: '⁶', 7: '⁷', 8: '⁸', 9: '⁹' };
const sup = (n: number) => String(n).replace(/./g, (c) => SUP[c] ?? c);

/** A length as the page prints it: 3 significant figures, as a × 10ⁿ outside 0.001 … 10 000. */
export function fmtLen(v: number): string {
  if (v === 0) return '0';
  if (!Number.isFinite(v)) return '—';
  if (v >= 1e-3 && v < 1e4) return String(Number(v.toPrecision(3)));
  const [m, e] = v.toExponential(2).split('e') as [string, string];
  return `${m} × 10${sup(Number(e))}`;
}

/** The mean of the engine's per-step factors (for the prose: a mean, labelled as one). */
const mean = (v: Float64Array) => v.reduce((a, b) => a + b, 0) / v.length;

export function gradientSection(ch: WhyChapter): { run: () => Promise<void> } {
  const state = {
    cell: 'tanh' as RecurrentCell,
    gain: 1.0,
    bias: 0,
    /** The engine's last results, for the inputs they were computed with. */
    shown: null as null | { cell: RecurrentCell; gain: number; bias: number; norms: Float64Array; gates: Float64Array; linear: Float64Array },
    runs: 0,
    exercise: null as null | { norms: Float64Array; gates: Float64Array; linear: Float64Array; correct: number },
  };
  ch.debug.state['grad'] = state;

  const s = ch.section('hGrad');
  ch.prose(s, 'gradIntro');
  const fig = ch.figure(s, { caption: 'figGrad', label: 'figGradLabel', table: (host) => table(host) });

  // ---- controls ----
  const slider = (id: string, key: WhyKey, min: number, max: number, step: number, value: number, digits: number,
                  onInput: (v: number) => void, help?: HTMLElement) => {
    const input = el('input');
    input.type = 'range';
    input.min = String(min);
    input.max = String(max);
    input.step = String(step);
    input.value = String(value);
    const f = ch.field(key, input, id, { params: () => ({ n: Number(input.value).toFixed(digits) }), help });
    input.addEventListener('input', () => {
      f.relabel();
      onInput(Number(input.value));
    });
    return { element: f.element, input };
  };
  const gain = slider('wa-gain', 'gainLabel', 0.5, 2.5, 0.05, state.gain, 2, (v) => { state.gain = v; void run(); });
  const biasHelp = el('p', 'help');
  ch.bind(biasHelp, 'biasHelp');
  const bias = slider('wa-bias', 'biasLabel', 0, 5, 0.5, state.bias, 1, (v) => { state.bias = v; void run(); }, biasHelp);
  const cellPick = ch.segmented('cellLabel', 'wa-cell', ['tanh', 'gru'] as const, 'tanh', (v) => {
    state.cell = v;
    bias.input.disabled = v !== 'gru';
    void run();
  }, (v) => ch.t(v === 'gru' ? 'cellGru' : 'cellTanh'));
  bias.input.disabled = true;
  fig.controls.append(cellPick, gain.element, bias.element);

  // ---- the chart: log10 of the engine's lengths on a linear axis, labelled as powers of 10 ----
  // The chart reads its options at every draw: draw() sets yDomain to whole powers of 10.
  const chartOptions: LineChartOptions = {
    label: () => ch.t('chartGrad'), xLabel: () => ch.t('axisK'), yLabel: () => ch.t('axisNorm'),
    xDomain: [0, GRAD_T - 1], xIntegers: true, yDomain: [-4, 0],
    yFormat: (v) => (Number.isInteger(v) ? (v === 0 ? '1' : `10${sup(v)}`) : ''),
  };
  const chart = new LineChart(chartOptions);
  fig.view.append(chart.element);
  const line = ch.prose(fig.view, 'gradLine', () => lineParams());
  line.classList.add('wa-grad-line');
  line.setAttribute('aria-live', 'polite');
  line.hidden = true;
  ch.prose(s, 'gradWhy');
  ch.prose(s, 'gradAttn');

  const cellName = (c: RecurrentCell) => ch.t(c === 'gru' ? 'cellGru' : 'cellTanh');
  const biasText = (key: 'biasPart' | 'tableBias') => (state.shown?.cell === 'gru' ? ch.t(key, { b: state.shown.bias.toFixed(1) }) : '');

  function lineParams(): Record<string, string> {
    const r = state.shown;
    if (!r) return {};
    const n = r.norms, ratio = n[GRAD_T - 1]! / n[0]!;
    const verdict = ratio < 0.01 ? ch.t('verdictVanish', { ratio: fmtLen(1 / ratio) })
      : ratio > 100 ? ch.t('verdictExplode', { ratio: fmtLen(ratio) }) : ch.t('verdictKept');
    return {
      cell: cellName(r.cell), g: r.gain.toFixed(2), bias: biasText('biasPart'),
      k1: fmtLen(n[1]!), k10: fmtLen(n[10]!), k99: fmtLen(n[GRAD_T - 1]!), verdict,
      factor: ch.t(r.cell === 'gru' ? 'factorGru' : 'factorTanh'), gate: mean(r.gates).toFixed(3),
    };
  }

  function table(host: HTMLElement): void {
    const r = state.shown;
    if (!r) return;
    host.replaceChildren(textTable(ch.t('tableGrad', { cell: cellName(r.cell), g: r.gain.toFixed(2), bias: biasText('tableBias') }),
      [ch.t('thK'), ch.t('thPos'), ch.t('thNorm'), ch.t('thRef'), ch.t(r.cell === 'gru' ? 'thGateGru' : 'thGateTanh')],
      Array.from(r.norms, (v, k) => [String(k), String(GRAD_T - k), fmtLen(v), fmtLen(r.linear[k]!), r.gates[k]!.toFixed(3)])));
  }

  /** Paints the last results; `fresh`: they are new (a language switch repaints the same). */
  function draw(fresh = false): void {
    const r = state.shown;
    if (!r) return;
    const logs = (v: Float64Array) => Array.from(v, (x, k) => [k, Math.log10(x)] as [number, number]);
    const a = logs(r.norms), b = logs(r.linear);
    const ys = [...a, ...b].map((p) => p[1]).filter(Number.isFinite);
    // Whole powers of 10 around the data (1e-9 of slack: g^k at g = 1 is 1 up to rounding),
    // at least four of them, so every tick is a whole power.
    let lo = Math.floor(Math.min(...ys) + 1e-9), hi = Math.ceil(Math.max(...ys) - 1e-9);
    if (hi - lo < 4) lo = hi - 4;
    chartOptions.yDomain = [lo, hi];
    chart.update([
      { name: () => cellName(r.cell), points: a, markers: false },
      { name: () => ch.t('seriesLinear'), points: b, markers: false, dashed: true },
    ]);
    line.hidden = false;
    line.rerender();
    fig.refreshTable();
    if (fresh) ch.debug.renders++;
  }
  ch.onLocale(() => draw());

  const run = latest(ch, async (isLatest) => {
    const engine = await ch.engine();
    const cell = state.cell, g = state.gain, b = cell === 'gru' ? state.bias : 0;
    const common = { H: GRAD_H, T: GRAD_T, gain: g, seed: GRAD_SEED };
    const [r, lin]: GradientSteps[] = await Promise.all([
      engine.learn('gradientSteps', { ...common, cell, updateBias: b }),
      engine.learn('gradientSteps', { ...common, cell: 'linear', updateBias: 0 }),
    ]);
    if (!isLatest()) return;
    state.shown = { cell, gain: g, bias: b, norms: r!.norms, gates: r!.gates, linear: lin!.norms };
    state.runs++;
    draw(true);
  });

  // ---- the exercise: a tanh RNN at gain 1.2, 60 steps back ----
  const choices = ['exBigMore', 'exBigLess', 'exSmallLess', 'exSmallMore'] as const;
  ch.exercise(s, {
    id: 'gradient60',
    question: 'exGradQuestion',
    choices: () => choices.map((k) => ch.t(k)),
    answer: async () => {
      const engine = await ch.engine();
      const common = { H: GRAD_H, T: GRAD_T, gain: EX_GAIN, seed: GRAD_SEED, updateBias: 0 };
      const [r, lin] = await Promise.all([
        engine.learn('gradientSteps', { ...common, cell: 'tanh' }),
        engine.learn('gradientSteps', { ...common, cell: 'linear' }),
      ]);
      const ratio = r.norms[EX_K]! / r.norms[0]!;  // the length there against the last state's
      const correct = ratio >= 100 ? 0 : ratio >= 1 ? 1 : ratio > 0.01 ? 2 : 3;
      state.exercise = { norms: r.norms, gates: r.gates, linear: lin.norms, correct };
      const longer = ratio >= 1;
      return {
        correct,
        explanation: ch.t('exGradExplain', {
          n60: fmtLen(r.norms[EX_K]!), dir: ch.t(longer ? 'dirLonger' : 'dirShorter'), ratio: fmtLen(longer ? ratio : 1 / ratio),
          lin60: fmtLen(lin.norms[EX_K]!), gate: mean(r.gates).toFixed(3),
        }) + ch.t(longer ? 'exGradLonger' : 'exGradShorter'),
      };
    },
  });

  return { run };
}
