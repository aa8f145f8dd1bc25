// Section 2b: tensor2tensor's timing signal (get_timing_signal_1d, also fairseq's) as its
// own layout: the halves order (sines, then cosines) with its own frequencies
// ω_i = 10000^(−i/(n−1)), n = d/2, from 1 down to exactly 1/10000 — not the paper's
// 10000^(−2i/d) rearranged. Its table beside the halves table of the same size, both
// layouts' ω_i on a log axis, and what differs, all from the engine
// (engine.learn('sinusoidal', { layout: 'tensor2tensor' | 'halves' }) → nn::sinusoidal_encoding,
// nn::timing_signal_frequency). Legend: T positions, C = d_model, n = C/2 pairs.
import type { SinusoidalResult } from '../../../engine/learn_calls/positions';
import { Heatmap } from '../../../widgets/heatmap';
import { LineChart } from '../../../widgets/line_chart';
import { onThemeChange } from '../../../widgets/theme';
import { numberTable, textTable } from '../../../widgets/tables';
import { fixed, num } from '../../format';
import { latest } from '../../latest';
import { slider, type PosChapter } from './dom';

/** One turn of pair i takes 2π/ω_i positions. */
const period = (omega: number): number => (2 * Math.PI) / omega;

export function t2tSection(ch: PosChapter): { run: () => Promise<void> } {
  const state = ch.debug.state;
  const size = { T: 50, C: 64 };
  let t2t: SinusoidalResult | null = null, halves: SinusoidalResult | null = null, paperOmegas: number[] = [];
  const s = ch.section('hT2t');
  ch.prose(s, 't2tWhat');
  const labels = (n: number) => Array.from({ length: n }, (_, i) => String(i));

  const fig = ch.figure(s, {
    caption: 'figT2tCaption', label: 'figT2tLabel',
    table: (host) => {
      if (!t2t || !halves) return;
      const [T, C] = t2t.table.dims as [number, number];
      host.replaceChildren(
        numberTable(ch.t('tableT2t'), labels(T), labels(C), t2t.table.data),
        textTable(ch.t('t2tOmegaTable'), [ch.t('colPair'), ch.t('colPaperOmega'), ch.t('colT2tOmega')],
          t2t.omegas.map((w, i) => [i, paperOmegas[i]!.toExponential(4), w.toExponential(4)])));
    },
  });
  const tSlider = slider(ch, 'posLabel', 'pos-t2t-T', { min: 4, max: 100, value: size.T }, (v) => { size.T = v; void run(); });
  const cSlider = slider(ch, 'dModelLabel', 'pos-t2t-C', { min: 4, max: 128, step: 2, value: size.C }, (v) => { size.C = v; void run(); });
  fig.controls.append(tSlider.element, cSlider.element);
  const axes = { rowAxis: () => ch.t('axisPos'), colAxis: () => ch.t('axisDim'), digits: 3, maxCell: 14 };
  const mapT = new Heatmap({ title: ch.t('mapT2t'), ...axes });
  const mapH = new Heatmap({ title: ch.t('mapHalves'), ...axes });
  fig.view.append(mapT.element, mapH.element);
  fig.view.classList.add('pos-two');
  ch.formula(fig.view, () => String.raw`\begin{gathered}n = d_\text{model}/2 = ${size.C / 2},\quad \omega^\text{t2t}_i = 10000^{-i/(n-1)} = e^{-i\,\ln(10000)/(n-1)}\\ PE_{p,\,i} = \sin(p\,\omega^\text{t2t}_i),\ PE_{p,\,n+i} = \cos(p\,\omega^\text{t2t}_i)\quad (0 \le i < n)\end{gathered}`);
  const chart = new LineChart({ label: () => ch.t('chartOmega'), xLabel: () => ch.t('axisPair'), yLabel: () => ch.t('axisOmega'),
                                yLog: true, xIntegers: true });
  fig.view.append(chart.element);
  let params: Record<string, string> = {};
  const line = ch.prose(fig.view, 't2tLine', () => params);

  function render(): void {
    if (!t2t || !halves) return;
    const [T, C] = t2t.table.dims as [number, number];
    const n = C / 2;
    mapT.setTitle(ch.t('mapT2t'));
    mapH.setTitle(ch.t('mapHalves'));
    mapT.update({ rowLabels: labels(T), colLabels: labels(C), values: t2t.table.data, domain: [-1, 1] });
    mapH.update({ rowLabels: labels(T), colLabels: labels(C), values: halves.table.data, domain: [-1, 1] });
    chart.update([{ name: () => ch.t('seriesPaper'), points: paperOmegas.map((w, i) => [i, w] as [number, number]), markers: true },
                  { name: () => ch.t('seriesT2t'), points: t2t.omegas.map((w, i) => [i, w] as [number, number]), dashed: true, markers: true }]);
    // Which pairs share a frequency (pair 0: ω = 1 in both), and how far the tables differ.
    let samePairs = 0, worst = 0, worstRatio = 1;
    for (let i = 0; i < n; i++) {
      const ratio = t2t.omegas[i]! / paperOmegas[i]!;
      if (Math.abs(ratio - 1) < 1e-12) samePairs++;
      if (Math.abs(Math.log(ratio)) > Math.abs(Math.log(worstRatio))) { worst = i; worstRatio = ratio; }
    }
    let differ = 0, diff = 0;
    for (let k = 0; k < T * C; k++) {
      const d = Math.abs(t2t.table.data[k]! - halves.table.data[k]!);
      if (d > 1e-3) differ++;
      diff = Math.max(diff, d);
    }
    params = { C: String(C), n: String(n), same: String(samePairs), worst: String(worst),
               paperW: paperOmegas[worst]!.toExponential(2), t2tW: t2t.omegas[worst]!.toExponential(2), ratio: fixed(1 / worstRatio, 2),
               paperSlow: num(period(paperOmegas[n - 1]!)), t2tSlow: num(period(t2t.omegas[n - 1]!)),
               differ: num(differ), cells: num(T * C), diff: fixed(diff, 3) };
    line.rerender();
    state['t2t'] = { T, C, table: t2t.table, halves: halves.table, omegas: t2t.omegas, paperOmegas, samePairs, worst, differ, diff };
    fig.refreshTable();
    ch.debug.renders++;
  }
  ch.onLocale(render);
  onThemeChange(() => { mapT.redraw(); mapH.redraw(); });

  const run = latest(ch, async (isLatest) => {
    const engine = await ch.engine();
    const args = { positions: size.T, dModel: size.C };
    const rt = await engine.learn('sinusoidal', { ...args, layout: 'tensor2tensor' });
    const rh = await engine.learn('sinusoidal', { ...args, layout: 'halves' });
    if (!isLatest()) return;
    t2t = rt;
    halves = rh;
    paperOmegas = rh.omegas;  // the halves layout keeps the paper's ω_i
    render();
  });
  return { run };
}
