// Section 6: ALiBi (engine.learn('alibi') → tfp_learn_alibi → nn::alibi_slopes,
// nn::alibi_bias): the reader's head count (any, not only powers of two), each head's
// slope and its (T, T) bias map, causal. Legend: H heads, T positions.
import type { AlibiResult } from '../../../engine/learn_calls/positions';
import { Heatmap } from '../../../widgets/heatmap';
import { onThemeChange } from '../../../widgets/theme';
import { el } from '../../../widgets/dom';
import { textTable } from '../../../widgets/tables';
import { fixed, listSep } from '../../format';
import { latest } from '../../latest';
import { slider, type PosChapter } from './dom';

const T = 8;

export function alibiSection(ch: PosChapter): { run: () => Promise<void> } {
  const state = ch.debug.state;
  let H = 6;
  let result: AlibiResult | null = null;
  const s = ch.section('hAlibi');
  ch.prose(s, 'alibiWhat');
  const labels = Array.from({ length: T }, (_, p) => String(p));
  const slope = (v: number) => (v >= 0.001 ? fixed(v, 4) : v.toExponential(2));
  const fig = ch.figure(s, {
    caption: 'figAlibiCaption', label: 'figAlibiLabel',
    table: (host) => {
      if (!result) return;
      const r = result;
      const rows = Array.from(r.slopes, (v, h) => [h, slope(v), fixed(r.bias.data[(h * T + 1) * T]!, 4), fixed(r.bias.data[(h * T + 7) * T]!, 4)]);
      host.replaceChildren(textTable(ch.t('alibiTable'), [ch.t('colHead'), ch.t('colSlope'), ch.t('colBias1'), ch.t('colBias7')], rows));
    },
  });
  fig.controls.append(slider(ch, 'headsLabel', 'pos-alibi-H', { min: 1, max: 16, value: H }, (v) => { H = v; void run(); }).element);
  let params: Record<string, string> = {};
  const line = ch.prose(fig.view, 'alibiSlopes', () => params);
  const grid = el('div', 'pos-alibi-grid');
  fig.view.append(grid);
  fig.view.classList.add('pos-alibi-view');
  let maps: Heatmap[] = [];
  const masked = Float32Array.from({ length: T * T }, (_, i) => (i % T > Math.floor(i / T) ? 1 : 0));

  function render(): void {
    if (!result) return;
    const r = result, n = r.slopes.length;
    while (maps.length > n) maps.pop()!.destroy();
    while (maps.length < n) {
      const m = new Heatmap({ title: '', rowAxis: () => ch.t('axisQuery'), colAxis: () => ch.t('axisKey'), digits: 3, maxCell: 22 });
      maps.push(m);
      grid.append(m.element);
    }
    let lo = 0;
    for (const v of r.bias.data) lo = Math.min(lo, v);
    maps.forEach((m, h) => {
      m.setTitle(ch.t('alibiHead', { h: h + 1, s: slope(r.slopes[h]!) }));
      m.update({ rowLabels: labels, colLabels: labels, values: r.bias.data.subarray(h * T * T, (h + 1) * T * T), masked, domain: [lo || -1, 0] });
    });
    params = { list: Array.from(r.slopes, (v, h) => `${h + 1}: ${slope(v)}`).join(listSep()) };
    line.rerender();
    state['alibi'] = { H: n, T, slopes: r.slopes, bias: r.bias };
    fig.refreshTable();
    ex.refresh();
    ch.debug.renders++;
  }
  // Exercise: which head has the steepest slope? The candidates: the first head, the first
  // head of the interleaved slopes when H is not a power of two (index n), the last head.
  // Indices are 0-based here; every label shows head index + 1 (the shell's conventions).
  const candidates = () => {
    let n = 1;
    while (n * 2 <= H) n *= 2;
    return [...new Set([0, n, H - 1])].filter((h) => h < H);
  };
  const ex = ch.exercise(s, {
    id: 'alibi-steepest',
    question: 'exAlibiQuestion',
    questionParams: () => ({ H }),
    choices: () => candidates().map((h) => ch.t('exAlibiChoice', { h: h + 1 })),
    answer: async () => {
      const engine = await ch.engine();
      const r = await engine.learn('alibi', { heads: H, positions: T });
      let top = 0;
      r.slopes.forEach((v, h) => { if (v > r.slopes[top]!) top = h; });
      const c = candidates();
      state['alibiExercise'] = { H, steepest: top, slopes: r.slopes };
      return { correct: c.indexOf(top), explanation: ch.t('exAlibiExplain', { h: top + 1, s: slope(r.slopes[top]!), H,
        list: Array.from(r.slopes, (v, h) => `${h + 1}: ${slope(v)}`).join(listSep()) }) };
    },
  });
  ch.onLocale(render);
  onThemeChange(() => maps.forEach((m) => m.redraw()));

  const run = latest(ch, async (isLatest) => {
    const engine = await ch.engine();
    const r = await engine.learn('alibi', { heads: H, positions: T });
    if (!isLatest()) return;
    result = r;
    render();
  });
  return { run };
}
