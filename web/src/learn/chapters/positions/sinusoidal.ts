// Section 2: the sinusoidal table (engine.learn('sinusoidal') → tfp_learn_sinusoidal_table
// → nn::sinusoidal_encoding) as two heatmaps, interleaved and halves, with sliders for the
// positions and d_model; PE(p)·PE(q) against q in both layouts (the engine's dot
// products); PE(p + k) as a rotation of PE(p) (tfp_learn_sinusoidal_shift) checked against
// the engine's table row p + k; the mistake "halves = interleaved" with the engine's
// PE(p) in both layouts. Legend: T positions, C = d_model.
import type { SinusoidalResult, SinusoidalShiftResult } from '../../../engine/learn_calls/positions';
import { Heatmap } from '../../../widgets/heatmap';
import { LineChart } from '../../../widgets/line_chart';
import { NumberMatrix } from '../../../widgets/number_matrix';
import { onThemeChange } from '../../../widgets/theme';
import { el } from '../../../widgets/dom';
import { numberTable, textTable } from '../../../widgets/tables';
import { fixed, num } from '../../format';
import { latest } from '../../latest';
import { intInput, slider, type PosChapter } from './dom';

export function sinusoidalSection(ch: PosChapter): { run: () => Promise<void>; runRest: () => Promise<void> } {
  const state = ch.debug.state;
  const sin = { T: 50, C: 64 };
  let inter: SinusoidalResult | null = null, halves: SinusoidalResult | null = null;
  const s = ch.section('hSin');
  // The last pair's period in the prose is the engine's ω for the current d_model.
  const sinWhat = ch.prose(s, 'sinWhat', () => {
    const w = inter?.omegas.at(-1);
    return { C: String(inter?.table.dims[1] ?? sin.C), lastPeriod: w ? num((2 * Math.PI) / w) : '…' };
  });
  const posLabels = (T: number) => Array.from({ length: T }, (_, p) => String(p));
  const dimLabels = (C: number) => Array.from({ length: C }, (_, c) => String(c));

  // ---- figure: the two tables ----
  const fig = ch.figure(s, {
    caption: 'figSinCaption', label: 'figSinLabel',
    table: (host) => {
      if (!inter || !halves) return;
      const [T, C] = inter.table.dims as [number, number];
      host.replaceChildren(numberTable(ch.t('tableInter'), posLabels(T), dimLabels(C), inter.table.data),
                           numberTable(ch.t('tableHalves'), posLabels(T), dimLabels(C), halves.table.data));
    },
  });
  const tSlider = slider(ch, 'posLabel', 'pos-sin-T', { min: 4, max: 100, value: sin.T }, (v) => { sin.T = v; void run(); });
  const cSlider = slider(ch, 'dModelLabel', 'pos-sin-C', { min: 4, max: 128, step: 2, value: sin.C }, (v) => { sin.C = v; void run(); });
  fig.controls.append(tSlider.element, cSlider.element);
  const axes = { rowAxis: () => ch.t('axisPos'), colAxis: () => ch.t('axisDim'), digits: 3, maxCell: 14 };
  const mapI = new Heatmap({ title: ch.t('mapInter'), ...axes });
  const mapH = new Heatmap({ title: ch.t('mapHalves'), ...axes });
  fig.view.append(mapI.element, mapH.element);
  fig.view.classList.add('pos-two');
  ch.formula(fig.view, () => String.raw`\begin{gathered}\omega_i = 10000^{-2i/${sin.C}}\\ PE_{p,2i} = \sin(p\,\omega_i),\ PE_{p,2i+1} = \cos(p\,\omega_i)\end{gathered}`);

  // ---- figure: dot products ----
  ch.prose(s, 'dotsWhat');
  let dotP = 10;
  const dfig = ch.figure(s, {
    caption: 'figDotsCaption', label: 'figDotsLabel',
    table: (host) => {
      if (!inter || !halves) return;
      const T = inter.dots.dims[0]!;
      const rows = Array.from({ length: T }, (_, q) => [q, fixed(inter!.dots.data[dotP * T + q]!, 4), fixed(halves!.dots.data[dotP * T + q]!, 4)]);
      host.replaceChildren(textTable(ch.t('dotsTable'), [ch.t('colQ'), ch.t('colInter'), ch.t('colHalves')], rows));
    },
  });
  const pSlider = slider(ch, 'dotsPLabel', 'pos-dots-p', { min: 0, max: sin.T - 1, value: dotP }, (v) => { dotP = v; renderDots(); });
  dfig.controls.append(pSlider.element);
  const chart = new LineChart({ label: () => ch.t('chartDots'), xLabel: () => ch.t('axisQ'), yLabel: () => ch.t('axisDot') });
  let dotsParams: Record<string, string> = {};
  dfig.view.append(chart.element);
  const dotsLine = ch.prose(dfig.view, 'dotsLine', () => dotsParams);

  function renderDots(): void {
    if (!inter || !halves) return;
    const T = inter.dots.dims[0]!;
    dotP = Math.min(dotP, T - 1);
    const row = (r: SinusoidalResult) => Array.from({ length: T }, (_, q) => [q, r.dots.data[dotP * T + q]!] as [number, number]);
    chart.update([{ name: () => ch.t('seriesInter'), points: row(inter) },
                  { name: () => ch.t('seriesHalves'), points: row(halves), dashed: true }]);
    const at = (d: number) => (dotP + d < T ? inter!.dots.data[dotP * T + dotP + d]! : inter!.dots.data[dotP * T + dotP - d]!);
    let gap = 0;
    for (let i = 0; i < T * T; i++) gap = Math.max(gap, Math.abs(inter.dots.data[i]! - halves.dots.data[i]!));
    dotsParams = { self: fixed(at(0), 3), one: fixed(at(1), 3), five: T > 5 ? fixed(at(5), 3) : '—', gap: gap === 0 ? '0' : gap.toExponential(1) };
    dotsLine.rerender();
    state['dots'] = { p: dotP, inter: Array.from(inter.dots.data.subarray(dotP * T, dotP * T + T)), halves: Array.from(halves.dots.data.subarray(dotP * T, dotP * T + T)) };
    dfig.refreshTable();
  }

  function render(): void {
    if (!inter || !halves) return;
    const [T, C] = inter.table.dims as [number, number];
    mapI.setTitle(ch.t('mapInter'));
    mapH.setTitle(ch.t('mapHalves'));
    mapI.update({ rowLabels: posLabels(T), colLabels: dimLabels(C), values: inter.table.data, domain: [-1, 1] });
    mapH.update({ rowLabels: posLabels(T), colLabels: dimLabels(C), values: halves.table.data, domain: [-1, 1] });
    pSlider.input.max = String(T - 1);
    if (dotP > T - 1) { dotP = T - 1; pSlider.input.value = String(dotP); }
    renderDots();
    renderMistake();
    sinWhat.rerender();
    const w = inter.omegas.at(-1)!;
    state['sin'] = { T, C, inter: inter.table, halves: halves.table, omegas: inter.omegas, lastPeriod: (2 * Math.PI) / w };
    fig.refreshTable();
    ch.debug.renders++;
  }
  ch.onLocale(render);
  onThemeChange(() => { mapI.redraw(); mapH.redraw(); });

  const run = latest(ch, async (isLatest) => {
    const engine = await ch.engine();
    const args = { positions: sin.T, dModel: sin.C };
    const ri = await engine.learn('sinusoidal', { ...args, layout: 'interleaved' });
    const rh = await engine.learn('sinusoidal', { ...args, layout: 'halves' });
    if (!isLatest()) return;
    inter = ri;
    halves = rh;
    render();
  });

  // ---- figure: PE(p + k) as a rotation ----
  ch.prose(s, 'rotWhat');
  const rot = { pair: 1, p: 3, k: 5 };
  let shift: SinusoidalShiftResult | null = null, target: [number, number] = [0, 0];
  const rfig = ch.figure(s, {
    caption: 'figRotCaption', label: 'figRotLabel',
    table: (host) => {
      if (!shift) return;
      const r = shift;
      host.replaceChildren(textTable(ch.t('rotTable'), ['', ''], [
        [ch.t('rotOmega'), fixed(r.omega, 6)], [ch.t('rotAngle'), fixed(r.angle, 6)],
        ['M', `[[${fixed(r.matrix[0]!, 4)}, ${fixed(r.matrix[1]!, 4)}], [${fixed(r.matrix[2]!, 4)}, ${fixed(r.matrix[3]!, 4)}]]`],
        [ch.t('rotPe'), `(${fixed(r.pe[0]!, 6)}, ${fixed(r.pe[1]!, 6)})`],
        [ch.t('rotRot'), `(${fixed(r.rotated[0]!, 6)}, ${fixed(r.rotated[1]!, 6)})`],
        [ch.t('rotTarget'), `(${fixed(target[0], 6)}, ${fixed(target[1], 6)})`]]));
    },
  });
  rfig.controls.append(
    intInput(ch, 'pairLabel', 'pos-rot-pair', { min: 0, max: 31, value: rot.pair }, (v) => { rot.pair = v; void runRot(); }).element,
    intInput(ch, 'pLabel', 'pos-rot-p', { min: 0, max: 200, value: rot.p }, (v) => { rot.p = v; void runRot(); }).element,
    intInput(ch, 'kLabel', 'pos-rot-k', { min: 0, max: 200, value: rot.k }, (v) => { rot.k = v; void runRot(); }).element);
  const rotFormula = ch.formula(rfig.view, () => {
    if (!shift) return '';
    const r = shift, f = (v: number) => fixed(v, 3);
    return String.raw`\underbrace{\begin{pmatrix}${f(r.matrix[0]!)} & ${f(r.matrix[1]!)}\\ ${f(r.matrix[2]!)} & ${f(r.matrix[3]!)}\end{pmatrix}}_{\theta = ${fixed(r.angle, 4)}}
      \underbrace{\begin{pmatrix}${f(r.pe[0]!)}\\ ${f(r.pe[1]!)}\end{pmatrix}}_{PE(${rot.p})_{${2 * rot.pair}, ${2 * rot.pair + 1}}}
      = \begin{pmatrix}${f(r.rotated[0]!)}\\ ${f(r.rotated[1]!)}\end{pmatrix}`;
  });
  let rotParams: Record<string, string> = {};
  const rotLine = ch.prose(rfig.view, 'rotLine', () => rotParams);

  const runRot = latest(ch, async (isLatest) => {
    const C = sin.C;
    const pair = Math.min(rot.pair, C / 2 - 1);
    const engine = await ch.engine();
    const r = await engine.learn('sinusoidalShift', { dModel: C, pair, p: rot.p, k: rot.k });
    const t = await engine.learn('sinusoidal', { positions: rot.p + rot.k + 1, dModel: C, layout: 'interleaved' });
    if (!isLatest()) return;
    shift = r;
    const row = (rot.p + rot.k) * C;
    target = [t.table.data[row + 2 * pair]!, t.table.data[row + 2 * pair + 1]!];
    const diff = Math.max(Math.abs(r.rotated[0]! - target[0]), Math.abs(r.rotated[1]! - target[1]));
    rotParams = { pk: String(rot.p + rot.k), d0: String(2 * pair), d1: String(2 * pair + 1), t0: fixed(target[0], 6), t1: fixed(target[1], 6),
                  r0: fixed(r.rotated[0]!, 6), r1: fixed(r.rotated[1]!, 6), diff: diff.toExponential(1) };
    rotFormula.update();
    rotLine.rerender();
    state['rotation'] = { C, pair, p: rot.p, k: rot.k, shift: r, target };
    rfig.refreshTable();
    ch.debug.renders++;
  });

  // ---- mistake: halves = interleaved ----
  const mRow = new NumberMatrix(2, 1, { label: () => ch.t('mHalvesRow', { p: dotP }), digits: 3, rowLabels: [() => ch.t('rowInter'), () => ch.t('rowHalves')],
                                        heat: { map: 'viridis', domain: [-1, 1] } });
  let mParams: Record<string, string | number> = {};
  const mLine = el('div');
  let mProse: { rerender(): void } | null = null;
  ch.mistake(s, {
    title: 'mHalvesTitle', body: 'mHalvesBody',
    demo: (host) => {
      host.append(mRow.element, mLine);
      mProse = ch.prose(mLine, 'mHalvesLine', () => mParams);
    },
  });
  function renderMistake(): void {
    if (!inter || !halves) return;
    const C = inter.table.dims[1]!;
    const a = inter.table.data.subarray(dotP * C, dotP * C + C), b = halves.table.data.subarray(dotP * C, dotP * C + C);
    const both = new Float32Array(2 * C);
    both.set(a, 0);
    both.set(b, C);
    mRow.set(both, { rows: 2, cols: C, rowLabels: [() => ch.t('rowInter'), () => ch.t('rowHalves')], colLabels: dimLabels(C) });
    let same = 0, diff = 0;
    for (let c = 0; c < C; c++) {
      if (a[c] === b[c]) same++;
      diff = Math.max(diff, Math.abs(a[c]! - b[c]!));
    }
    mParams = { p: dotP, C, same, diff: fixed(diff, 3) };
    mProse?.rerender();
    state['mistake'] = { p: dotP, inter: Array.from(a), halves: Array.from(b), same, diff };
  }
  pSlider.input.addEventListener('input', () => renderMistake());

  return { run, runRest: () => runRot() };
}
