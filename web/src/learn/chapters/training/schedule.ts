// Section 3 of "Training a transformer": the learning-rate schedule. Two charts side by
// side for the reader's warm-up W:
//   this trainer's   tfp_learn_lr_schedule (train/lr_schedule.h, the function every
//                    training step calls): linear warm-up from peak/W, then cosine, linear
//                    or no decay to a floor (a tenth of the peak) at step S;
//   the original's   Vaswani et al. (2017, eq. 3), lr_n = d_model^-0.5 · min(n^-0.5, n · W^-1.5)
//                    at the paper's step n = s + 1, for the reader's d_model. The engine's
//                    trainer has no such schedule, so this one formula is evaluated here in
//                    the page (originalSchedule); the prose says so.
// window.tfpLearn.state.schedule: warmup, decay, total, peak, lr (the engine's) and
// original { dModel, lr } (the tests read them back).
import { el } from '../../../widgets/dom';
import { LineChart } from '../../../widgets/line_chart';
import { numberTable } from '../../../widgets/tables';
import type { Chapter } from '../../chapter';
import type { Key } from './text';

/** The original Transformer's learning rate at steps s = 0..S−1 (the paper's n = s + 1):
 *  d_model^-0.5 · min(n^-0.5, n · W^-1.5); W = 0 leaves out the warm-up term. */
export function originalSchedule(dModel: number, warmup: number, S: number): Float64Array {
  const out = new Float64Array(S);
  for (let s = 0; s < S; s++) {
    const n = s + 1;
    out[s] = dModel ** -0.5 * (warmup > 0 ? Math.min(n ** -0.5, n * warmup ** -1.5) : n ** -0.5);
  }
  return out;
}

const D_MODELS = [32, 128, 512] as const;

export function scheduleSection(ch: Chapter<Key>, state: Record<string, unknown>, publish: () => void): { run: () => Promise<void> } {
  const t = (k: Key, p?: Record<string, string | number>) => ch.t(k, p);
  const sSchedule = ch.section('hSchedule');
  ch.prose(sSchedule, 'schedule');
  ch.prose(sSchedule, 'scheduleOriginal');
  const sched = { warmup: 50, decay: 0 as 0 | 1 | 2, total: 400, peak: 0.003, dModel: 32 as number,
                  lr: new Float64Array(0) as Float64Array<ArrayBufferLike>, original: new Float64Array(0) as Float64Array<ArrayBufferLike> };
  const schedFig = ch.figure(sSchedule, {
    caption: 'figSchedule',
    table: (host) => {
      const steps = Array.from({ length: Math.ceil(sched.total / 25) + 1 }, (_, i) => Math.min(i * 25, sched.total - 1));
      host.append(numberTable(t('chartLr'), steps.map(String), [t('colLr'), t('colLrOriginal', { d: sched.dModel })],
        steps.flatMap((s) => [sched.lr[s]!, sched.original[s]!]), 6));
    },
  });
  const wInput = el('input');
  wInput.type = 'range';
  wInput.min = '0';
  wInput.max = '200';
  wInput.step = '10';
  wInput.value = String(sched.warmup);
  const wField = ch.field('schWarmup', wInput, 'training-warmup', { params: () => ({ w: sched.warmup }) });
  const DECAYS = ['cosine', 'linear', 'constant'] as const;
  schedFig.controls.append(wField.element,
    ch.segmented('schDecay', 'training-decay', DECAYS, 'cosine', (v) => { sched.decay = DECAYS.indexOf(v) as 0 | 1 | 2; void run(); },
      (v) => t(v === 'cosine' ? 'decCosine' : v === 'linear' ? 'decLinear' : 'decConstant')),
    ch.segmented('schDModel', 'training-dmodel', D_MODELS, 32, (v) => { sched.dModel = v; drawOriginal(); publish(); }));
  // Ticks in thousandths (3, not 0.003): short enough to leave the axis title room.
  const yFormat = (v: number) => String(+(v * 1e3).toPrecision(3));
  const lrChart = new LineChart({ label: () => t('chartLr'), xLabel: () => t('axisStep'), yLabel: () => t('axisLrMilli'), yFormat });
  const origChart = new LineChart({ label: () => t('chartLrOriginal', { d: sched.dModel }), xLabel: () => t('axisStep'), yLabel: () => t('axisLrMilli'), yFormat });
  const schedReadout = el('p', 'training-readout');
  const origReadout = el('p', 'training-readout');
  const charts = el('div', 'training-charts');
  const panel = (title: HTMLElement, chart: LineChart, readout: HTMLElement) => {
    const d = el('div');
    d.append(title, chart.element, readout);
    return d;
  };
  const lrTitle = el('h3', 'training-sub'), origTitle = el('h3', 'training-sub');
  ch.bind(lrTitle, 'chartLrTrainer', () => ({ peak: sched.peak }));
  const renderOrigTitle = ch.bind(origTitle, 'chartLrOriginal', () => ({ d: sched.dModel }));
  charts.append(panel(lrTitle, lrChart, schedReadout), panel(origTitle, origChart, origReadout));
  schedFig.view.append(charts);
  const renderSchedReadout = ch.bind(schedReadout, 'schReadout', (): Record<string, string | number> => (sched.lr.length ? {
    first: sched.lr[0]!.toExponential(2), peak: sched.peak, w: Math.max(0, sched.warmup - 1), last: sched.lr[sched.total - 1]!.toExponential(2),
  } : {}));
  schedReadout.textContent = '';
  const renderOrigReadout = () => {
    const o = sched.original, W = sched.warmup;
    if (!o.length) return;
    origReadout.textContent = t(W > 0 ? 'schOrigReadout' : 'schOrigReadoutNoWarm', {
      w: W, wm1: W - 1, first: o[0]!.toExponential(2), peak: o[Math.max(0, W - 1)]!.toExponential(2), last: o[sched.total - 1]!.toExponential(2) });
  };
  ch.onLocale(renderOrigReadout);
  ch.bind(schedFig.element.querySelector('figcaption')!, 'figSchedule', () => ({ total: sched.total, peak: sched.peak }), { html: true });
  const marker = () => (sched.warmup > 0 ? sched.warmup - 1 : null);

  function drawOriginal(): void {
    sched.original = originalSchedule(sched.dModel, sched.warmup, sched.total);
    origChart.update([{ name: () => t('seriesOriginal', { d: sched.dModel }), points: Array.from(sched.original, (v, s) => [s, v] as [number, number]), markers: false }], marker());
    renderOrigTitle();
    renderOrigReadout();
    schedFig.refreshTable();
    state.schedule = { ...(state.schedule as object), original: { dModel: sched.dModel, warmup: sched.warmup, lr: sched.original } };
  }

  async function run(): Promise<void> {
    const engine = await ch.engine();
    try {
      const lr = await engine.learn('trainingSchedule', { peak: sched.peak, floor: sched.peak / 10, warmup: sched.warmup, total: sched.total, decay: sched.decay, n: sched.total });
      sched.lr = lr;
      lrChart.update([{ name: () => t('seriesTrainer'), points: Array.from(lr, (v, s) => [s, v] as [number, number]), markers: false }], marker());
      renderSchedReadout();
      state.schedule = { warmup: sched.warmup, decay: sched.decay, total: sched.total, peak: sched.peak, lr };
      drawOriginal();
      publish();
    } catch (e) {
      ch.showError(e);
    }
  }
  wInput.addEventListener('input', () => {
    sched.warmup = Number(wInput.value);
    wField.relabel();
    void run();
  });
  return { run };
}
