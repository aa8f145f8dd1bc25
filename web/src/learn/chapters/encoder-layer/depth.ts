// Figure 2: post-LN against pre-LN through depth (engine.learn('encoderDepth') →
// tfp_learn_encoder_depth: a seeded random stack of the engine's own encoder layers, the
// same weights for both placements): the rms of the residual stream and its cosine with
// the input after every layer, as two line charts and a table. The reader picks the
// depth (2…48) and the seed.
import type { EncoderDepthResult } from '../../../engine/learn_calls/encoder';
import { LineChart, type Series } from '../../../widgets/line_chart';
import type { EncChapter } from './dom';
import { el } from '../../../widgets/dom';
import { fixed } from '../../format';
import { numberTable } from '../../../widgets/tables';

export const DEPTH_SHAPE = { dModel: 64, heads: 4, dFF: 256, tokens: 16, activation: 1 } as const;

export function depthSection(ch: EncChapter): { run: () => Promise<void> } {
  const state = ch.debug.state;
  const s = ch.section('hDepth');
  ch.prose(s, 'depthWhat');
  const cfg = { layers: 24, seed: 1 };
  let view: { layers: number; pre: EncoderDepthResult; post: EncoderDepthResult } | null = null;

  const fig = ch.figure(s, {
    caption: 'figDepthCaption', label: 'figDepthLabel',
    table: (host) => {
      const v = view;
      if (!v) return;
      const rows = Array.from({ length: v.layers + 1 }, (_, l) => String(l));
      const vals = new Float64Array((v.layers + 1) * 6);
      for (let l = 0; l <= v.layers; l++)
        vals.set([v.pre.streamRms[l]!, v.post.streamRms[l]!, v.pre.updateRms[l]!, v.post.updateRms[l]!, v.pre.inputCos[l]!, v.post.inputCos[l]!], l * 6);
      host.replaceChildren(numberTable(ch.t('depthTableCaption'), rows,
        (['tableRmsPre', 'tableRmsPost', 'tableDeltaPre', 'tableDeltaPost', 'tableCosPre', 'tableCosPost'] as const).map((k) => ch.t(k)), vals, 3));
    },
  });
  const layers = el('input');
  layers.type = 'range';
  layers.min = '2';
  layers.max = '48';
  layers.step = '1';
  layers.value = String(cfg.layers);
  const lf = ch.field('layersLabel', layers, 'enc-layers', { params: () => ({ n: cfg.layers }) });
  layers.addEventListener('input', () => { cfg.layers = Number(layers.value); lf.relabel(); schedule(); });
  const seed = el('input');
  seed.type = 'number';
  seed.min = '0';
  seed.max = '9999';
  seed.value = String(cfg.seed);
  seed.addEventListener('input', () => {
    const v = Number(seed.value);
    if (Number.isInteger(v) && v >= 0) { cfg.seed = v; schedule(); }
  });
  fig.controls.append(lf.element, ch.field('seedLabel', seed, 'enc-seed').element);
  fig.controls.classList.add('enc-depth-controls');

  const rmsChart = new LineChart({ label: () => ch.t('chartRms'), xLabel: () => ch.t('axisLayer'), yLabel: () => ch.t('axisRms') });
  const cosChart = new LineChart({ label: () => ch.t('chartCos'), xLabel: () => ch.t('axisLayer'), yLabel: () => ch.t('axisCos') });
  const title = (key: 'chartRms' | 'chartCos') => { const h = el('h3', 'enc-sub'); ch.bind(h, key); return h; };
  const summary = el('p', 'enc-summary');
  const charts = el('div', 'enc-charts');
  const a = el('div'), b = el('div');
  a.append(title('chartRms'), rmsChart.element);
  b.append(title('chartCos'), cosChart.element);
  charts.append(a, b);
  fig.view.append(summary, charts);
  ch.prose(s, 'depthWhy');

  function render(): void {
    const v = view;
    if (!v) return;
    const pts = (arr: Float64Array): [number, number][] => Array.from(arr, (y, l) => [l, y]);
    const series = (pre: Float64Array, post: Float64Array): Series[] => [
      { name: () => ch.t('seriesPre'), points: pts(pre) },
      { name: () => ch.t('seriesPost'), points: pts(post), dashed: true },
    ];
    rmsChart.update(series(v.pre.streamRms, v.post.streamRms));
    cosChart.update(series(v.pre.inputCos, v.post.inputCos));
    const L = v.layers;
    summary.textContent = ch.t('depthSummary', { n: L, pre: fixed(v.pre.streamRms[L]!, 2), post: fixed(v.post.streamRms[L]!, 2),
                                                 preCos: fixed(v.pre.inputCos[L]!, 2), postCos: fixed(v.post.inputCos[L]!, 2) });
    fig.refreshTable();
    ch.debug.renders++;
  }
  ch.onLocale(render);

  let timer = 0, runId = 0;
  function schedule(): void {
    window.clearTimeout(timer);
    timer = window.setTimeout(() => void run(), 120);
  }
  async function run(): Promise<void> {
    const mine = ++runId;
    try {
      const engine = await ch.engine();
      const args = { ...DEPTH_SHAPE, layers: cfg.layers, seed: cfg.seed };
      const pre = await engine.learn('encoderDepth', { ...args, normFirst: true });
      const post = await engine.learn('encoderDepth', { ...args, normFirst: false });
      if (mine !== runId) return;
      view = { layers: cfg.layers, pre, post };
      state['depth'] = { ...args, pre, post };
      render();
    } catch (e) {
      if (mine === runId) ch.showError(e);
    }
  }
  return { run };
}
