// Section 4: a relative-position bias (engine.learn('relativeBias') →
// tfp_learn_relative_bias → nn::RelativePositionBias): the bucket of each (query, key) and
// the bias added to its score, for clip (Shaw) or T5 log buckets, bidirectional or causal.
// The table is seeded (no shipped model has a trained one). Legend: T positions, NB buckets.
import type { RelativeBiasResult } from '../../../engine/learn_calls/positions';
import { Heatmap } from '../../../widgets/heatmap';
import { onThemeChange } from '../../../widgets/theme';
import { numberTable } from '../../../widgets/tables';
import { fixed, listSep } from '../../format';
import { latest, type PosChapter } from './dom';

const T = 12;

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
  });
  return { run };
}
