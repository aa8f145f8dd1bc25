// Section 4: a relative-position bias (engine.learn('relativeBias') →
// tfp_learn_relative_bias → nn::RelativePositionBias): the bucket of each (query, key) and
// the bias added to its score, for clip (Shaw) or T5 log buckets, bidirectional or causal.
// The table is seeded (no shipped model has a trained one). Then T5's bucket rule spelled
// out, with the engine's buckets at T5's own sizes (32 buckets, max distance 128) for a
// list of offsets, both directions. Legend: T positions, NB buckets.
import type { RelativeBiasResult } from '../../../engine/learn_calls/positions';
import { Heatmap } from '../../../widgets/heatmap';
import { onThemeChange } from '../../../widgets/theme';
import { numberTable, textTable } from '../../../widgets/tables';
import { fixed, listSep } from '../../format';
import { latest } from '../../latest';
import type { PosChapter } from './dom';

const T = 12;
// T5's sizes (t5-small … t5-11b, Flan-T5): relative_attention_num_buckets 32, max_distance 128.
const T5_BUCKETS = 32, T5_MAX = 128;
// Offsets up to ±63: the Learn call draws at most 64 positions.
export const T5_OFFSETS = [-63, -48, -32, -16, -12, -9, -8, -7, -4, -1, 0, 1, 4, 7, 8, 9, 12, 16, 24, 32, 48, 63];

export function relativeSection(ch: PosChapter): { run: () => Promise<void> } {
  const state = ch.debug.state;
  const rel = { bucketing: 'clip' as 'clip' | 't5', bidirectional: true };
  let result: RelativeBiasResult | null = null;
  const s = ch.section('hRelative');
  ch.prose(s, 'relativeWhat');
  const labels = Array.from({ length: T }, (_, p) => String(p));
  const fig = ch.figure(s, {
    caption: 'figRelCaption', label: 'figRelLabel',
    table: (host) => {
      if (!result) return;
      host.replaceChildren(numberTable(ch.t('relTableBuckets'), labels, labels, result.buckets.data, 0),
                           numberTable(ch.t('relTableBias'), labels, labels, result.bias.data, 3));
    },
  });
  fig.controls.append(
    ch.segmented('bucketingLabel', 'pos-rel-bucketing', ['clip', 't5'] as const, rel.bucketing, (v) => { rel.bucketing = v; void run(); },
                 (v) => ch.t(v === 'clip' ? 'bucketClip' : 'bucketT5')),
    ch.segmented('directionLabel', 'pos-rel-dir', ['bi', 'causal'] as const, 'bi', (v) => { rel.bidirectional = v === 'bi'; void run(); },
                 (v) => ch.t(v === 'bi' ? 'dirBi' : 'dirCausal')));
  const axes = { rowAxis: () => ch.t('axisQuery'), colAxis: () => ch.t('axisKey'), maxCell: 28 };
  const mapB = new Heatmap({ title: ch.t('mapBuckets'), ...axes, digits: 0 });
  const mapV = new Heatmap({ title: ch.t('mapBias'), ...axes, digits: 3 });
  fig.view.append(mapB.element, mapV.element);
  fig.view.classList.add('pos-two');
  let params: Record<string, string> = {};
  const line = ch.prose(fig.view, 'relLine', () => params);

  // T5's rule at its own sizes: the engine's bucket of each offset j − i, both directions.
  ch.prose(s, 'relT5Rule');
  const t5Box = document.createElement('div');
  t5Box.className = 'table-scroll';
  s.append(t5Box);
  let t5: { bi: number[]; causal: number[] } | null = null;
  function renderT5(): void {
    if (!t5) return;
    t5Box.replaceChildren(textTable(ch.t('relT5Caption', { nb: T5_BUCKETS, max: T5_MAX }), [ch.t('relT5Offset'), ch.t('dirBi'), ch.t('dirCausal')],
      T5_OFFSETS.map((d, i) => [d, t5!.bi[i]!, t5!.causal[i]!])));
  }
  ch.onLocale(renderT5);
  async function runT5(): Promise<void> {
    const engine = await ch.engine();
    const n = 64;  // offsets −63 … 63: row 0 gives j − i ≥ 0, the last row j − i ≤ 0
    const of = async (bidirectional: boolean) => {
      const r = await engine.learn('relativeBias', { bucketing: 't5', bidirectional, numBuckets: T5_BUCKETS, maxDistance: T5_MAX, positions: n, seed: 1 });
      return T5_OFFSETS.map((d) => r.buckets.data[d >= 0 ? d : (n - 1) * n + (n - 1 + d)]!);
    };
    t5 = { bi: await of(true), causal: await of(false) };
    state['t5Buckets'] = { offsets: T5_OFFSETS, ...t5 };
    renderT5();
  }

  function render(): void {
    if (!result) return;
    const nb = result.table.length;
    mapB.setTitle(ch.t('mapBuckets'));
    mapV.setTitle(ch.t('mapBias'));
    mapB.update({ rowLabels: labels, colLabels: labels, values: result.buckets.data, domain: [0, nb - 1] });
    mapV.update({ rowLabels: labels, colLabels: labels, values: result.bias.data, domain: [-1, 1] });
    params = { nb: String(nb), table: Array.from(result.table, (v, b) => `${b}: ${fixed(v, 3)}`).join(listSep()) };
    line.rerender();
    state['relative'] = { ...rel, T, table: result.table, buckets: result.buckets, bias: result.bias };
    fig.refreshTable();
    ch.debug.renders++;
  }
  ch.onLocale(render);
  onThemeChange(() => { mapB.redraw(); mapV.redraw(); });

  const run = latest(ch, async (isLatest) => {
    const engine = await ch.engine();
    // Clip with k = 3: 2k+1 buckets, k+1 causal. T5: 8 buckets, max distance 16.
    const k = 3;
    const numBuckets = rel.bucketing === 'clip' ? (rel.bidirectional ? 2 * k + 1 : k + 1) : 8;
    const maxDistance = rel.bucketing === 'clip' ? k : 16;
    const r = await engine.learn('relativeBias', { bucketing: rel.bucketing, bidirectional: rel.bidirectional, numBuckets, maxDistance, positions: T, seed: 1 });
    if (!isLatest()) return;
    result = r;
    render();
    if (!t5) await runT5();
  });
  return { run };
}
