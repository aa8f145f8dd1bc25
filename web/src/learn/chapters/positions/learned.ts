// Section 3: brown-gpt's learned position table (models/brown-gpt, embed.position = GPT-2's
// wpe) as cosine similarities between positions (engine.learn('positionSimilarity') →
// tfp_learn_position_similarity → inspect::cosine). Legend: P positions shown, C = d_model.
import type { PositionSimilarityResult } from '../../../engine/learn_calls/positions';
import { Heatmap } from '../../../widgets/heatmap';
import { onThemeChange } from '../../../widgets/theme';
import { numberTable } from '../../../widgets/tables';
import { fixed } from '../../format';
import { latest } from '../../latest';
import { slider, type PosChapter } from './dom';

export function learnedSection(ch: PosChapter): { run: () => Promise<void> } {
  const state = ch.debug.state;
  let P = 48;
  let result: PositionSimilarityResult | null = null;
  const s = ch.section('hLearned');
  ch.prose(s, 'learnedWhat');
  const labels = (n: number) => Array.from({ length: n }, (_, p) => String(p));
  const fig = ch.figure(s, {
    caption: 'figLearnedCaption', label: 'figLearnedLabel',
    table: (host) => {
      if (!result) return;
      const n = result.cos.dims[0]!;
      host.replaceChildren(numberTable(ch.t('learnedTable'), labels(n), labels(n), result.cos.data, 3));
    },
  });
  fig.controls.append(slider(ch, 'learnedPLabel', 'pos-learned-P', { min: 8, max: 128, step: 8, value: P }, (v) => { P = v; void run(); }).element);
  const map = new Heatmap({ title: ch.t('learnedMap'), rowAxis: () => ch.t('axisPos'), colAxis: () => ch.t('axisPos'), digits: 3, maxCell: 12 });
  fig.view.append(map.element);
  let params: Record<string, string> = {};
  const line = ch.prose(fig.view, 'learnedLine', () => params);

  function render(): void {
    if (!result) return;
    const n = result.cos.dims[0]!;
    map.setTitle(ch.t('learnedMap'));
    map.update({ rowLabels: labels(n), colLabels: labels(n), values: result.cos.data, domain: [-1, 1] });
    const far = n - 1;
    const at = (q: number) => (q < n ? fixed(result!.cos.data[10 * n + q]!, 3) : '—');
    params = { near: at(11), mid: at(20), far: String(far), farv: at(far) };
    line.rerender();
    state['learned'] = { P: n, cos: result.cos };
    fig.refreshTable();
    ch.debug.renders++;
  }
  ch.onLocale(render);
  onThemeChange(() => map.redraw());

  const run = latest(ch, async (isLatest) => {
    const model = await ch.model('brown-gpt');
    const engine = await ch.engine();
    const r = await engine.learn('positionSimilarity', { model: model.id, positions: Math.min(P, model.info.max_positions), dModel: model.info.d_model });
    if (!isLatest()) return;
    result = r;
    render();
  });
  return { run };
}
