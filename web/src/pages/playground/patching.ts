// The activation-patching view (issue 33), TransformerLens's conventions (patching.py):
// the reader's text is the clean prompt, a second text of the same token length the
// corrupted one; the metric is logit(answer) − logit(foil) (or log p(answer)) at the last
// position, the answer and the foil picked among both runs' most probable next tokens.
// One sweep at a time (residual stream, attention output, MLP output, each head over all
// positions, each head at each position) runs in the engine (Model.activationPatching,
// one layer per request: progress and Cancel), drawn as a heatmap normalised as
// (patched − corrupted) / (clean − corrupted) — 1: this activation alone restores the clean
// behaviour, 0: it changes nothing — or raw. Every number is the engine's; this file lays
// them out.
//
// Legend: L decoder layers, T positions, H heads.
import { t as tr, type MessageKey } from '../../i18n/i18n';
import type { ActivationPatchingResult, GradientAttributionResult, HeadAblationResult, LogitAttributionResult, Model, PatchSweep, PatchSweepResult, TokenChoice } from 'transformer-playground';
import { kvHeads } from 'transformer-playground';
import { ColorLegend } from '../../widgets/color_legend';
import { Heatmap } from '../../widgets/heatmap';
import type { MatrixPanel } from '../../widgets/matrix_svg';
import { focusedIn } from '../../widgets/dom';
import { exportCsv, exportJson } from './export';
import { gradientCsv, gradientRows } from './gradients';
import type { PatchViewKind, PlayState } from './state';

/** What the page gives the view for the text on show (main.ts, per forward pass). */
export interface PatchingSource {
  model: Model;
  text: string;
  clean: Int32Array;
  /** (T) the clean prompt's tokens as the page shows them. */
  tokens: string[];
  /** The clean run's most probable next tokens. */
  next: TokenChoice[];
  /** The page's spelling of a vocabulary token (visible spaces, bytes). */
  show(token: string): string;
  /** (T) head `head` of layer `layer`'s attention row from the last position, or null. */
  attentionRow(layer: number, head: number): Float32Array | null;
}

export type PatchingState = Pick<PlayState, 'patchText' | 'patchMetric' | 'patchRaw' | 'patchAnswer' | 'patchFoil' | 'patchSteps'
  | 'layer' | 'head' | 'ablate'> & { patchSweep: PatchViewKind };

export const SWEEP_LABELS: Record<PatchViewKind, MessageKey> = {
  resid: 'play.patch.sweepResid', attn_out: 'play.patch.sweepAttn', mlp_out: 'play.patch.sweepMlp',
  head_all: 'play.patch.sweepHeadAll', head_pos: 'play.patch.sweepHeadPos', head_q: 'play.patch.sweepHeadQ',
  head_k: 'play.patch.sweepHeadK', head_v: 'play.patch.sweepHeadV', head_pattern: 'play.patch.sweepHeadPattern', dla: 'play.patch.sweepDla',
  ablate_zero: 'play.patch.sweepZero', ablate_mean: 'play.patch.sweepMean', gradients: 'play.patch.sweepGradients',
};
const NEXT_N = 10;

/** What the view shows, for the page's tests (window.tfpPlay.shown). */
export interface PatchingShown {
  note: string;
  panels: Record<string, { dims: number[]; data: Float32Array }>;
}

export class PatchingView {
  readonly element = document.createElement('div');
  private readonly controls = document.createElement('div');
  /** The corrupted prompt's field lives as long as the view: a redraw while the reader
   *  types (a sweep finishing) must not replace it or reset what is typed. */
  private readonly corruptedField = document.createElement('input');
  private cleanText = '';
  private readonly status = document.createElement('p');
  private readonly progress = document.createElement('progress');
  private readonly cancel = document.createElement('button');
  private readonly body = document.createElement('div');
  private readonly legend = new ColorLegend(() => tr('play.patch.legend'), { masked: false });
  private readonly dlaLegend = new ColorLegend(() => tr('play.patch.legendDla'), { masked: false });
  private readonly gradLegend = new ColorLegend(() => tr('play.patch.legendGradients'), { masked: false });
  private readonly map: Heatmap;
  private readonly accMap: Heatmap;
  /** The sweep in the engine now, by its cache key: a render that asks for the same one
   *  waits for it (a click elsewhere must not restart a long sweep); another one stops it. */
  private running: { key: string; stop: AbortController } | null = null;
  private cache = new Map<string, Promise<unknown>>();
  private cacheOf: Model | null = null;
  private rowsOf: { layer: number; head: number | null }[] = [];
  svg: MatrixPanel | null = null;

  constructor(private readonly change: (p: Partial<PlayState>) => void) {
    this.element.className = 'patching';
    const field = this.corruptedField;
    field.className = 'patch-corrupted';
    field.spellcheck = false;
    field.addEventListener('change', () => this.change({ patchText: field.value === this.cleanText ? '' : field.value }));
    const help = document.createElement('p');
    help.className = 'help';
    help.textContent = tr('play.patch.help');
    this.status.className = 'patch-status';
    this.status.setAttribute('aria-live', 'polite');
    this.progress.className = 'patch-progress';
    this.cancel.type = 'button';
    this.cancel.className = 'patch-cancel';
    this.cancel.textContent = tr('play.patch.cancel');
    this.cancel.addEventListener('click', () => this.running?.stop.abort());
    const bar = document.createElement('div');
    bar.className = 'patch-run';
    bar.append(this.progress, this.cancel);
    this.setRunning(false);
    this.map = new Heatmap({ title: '', colormap: 'rdbu', digits: 3, rowAxis: () => tr('play.patch.rows'), colAxis: () => tr('play.patch.cols'),
                             onSelect: (row, col) => this.select(row, col) });
    this.accMap = new Heatmap({ title: '', colormap: 'rdbu', digits: 3, rowAxis: () => '', colAxis: () => tr('play.patch.rows') });
    this.accMap.element.hidden = true;
    this.body.append(this.legend.element, this.dlaLegend.element, this.gradLegend.element, this.map.element, this.accMap.element);
    this.element.append(help, this.controls, bar, this.status, this.body);
  }

  private showLegend(which: ColorLegend, domain: [number, number]): void {
    for (const l of [this.legend, this.dlaLegend, this.gradLegend]) l.element.hidden = l !== which;
    which.update(domain, 'rdbu');
  }

  redraw(): void {
    this.dlaLegend.redraw();
    this.gradLegend.redraw();
    this.map.redraw();
    this.accMap.redraw();
    this.legend.redraw();
  }

  /** Shows the sweep the state asks for; resolves with what was drawn, or null when a
   *  newer call took over (`current` false). */
  async show(src: PatchingSource, s: PatchingState, current: () => boolean): Promise<PatchingShown | null> {
    this.table = null;
    const shown = await this.compute(src, s, current);
    const m = this.svg, c = this.context;
    if (shown && m && c) {
      // The table as drawn, with what it was computed from: prompts, tokens, metric, answer and foil.
      const cols = m.colLabels.length;
      this.table = {
        view: 'patching', sweep: s.patchSweep, metric: s.patchMetric, raw: s.patchRaw, title: m.title, note: shown.note,
        clean: { text: src.text, ids: Array.from(src.clean), tokens: src.tokens }, corrupted: { text: c.corruptedText },
        answer: c.answer, foil: c.foil, ...(s.patchSweep === 'gradients' ? { steps: s.patchSteps, layer: s.layer + 1, head: s.head + 1 } : {}),
        rows: m.rowLabels, columns: m.colLabels,
        values: m.rowLabels.map((_, i) => Array.from(m.values.subarray(i * cols, (i + 1) * cols))),
        panels: Object.fromEntries(Object.entries(shown.panels).map(([k, v]) => [k, { dims: v.dims, data: Array.from(v.data) }])),
      };
    }
    return shown;
  }

  /** The table on show and its inputs, as "Save as JSON" writes it (null while none is drawn). */
  table: Record<string, unknown> | null = null;
  private context: { corruptedText: string; answer: number; foil: number } | null = null;

  private async compute(src: PatchingSource, s: PatchingState, current: () => boolean): Promise<PatchingShown | null> {
    this.svg = null;
    this.context = null;
    this.body.hidden = true;
    const corruptedText = s.patchText || src.text;
    const { model } = src;
    const enc = await model.tokenize(corruptedText);
    const corrupted = enc.ids.slice(0, src.clean.length + 1);
    const pass = await model.forward(corrupted, { logits: 'none', next: { topN: NEXT_N } });
    if (!current()) return null;
    const choices = mergeChoices(src.next, pass.next ?? []);
    const answer = s.patchAnswer >= 0 ? s.patchAnswer : src.next[0]?.id ?? 0;
    const foil = s.patchFoil >= 0 ? s.patchFoil
      : (pass.next ?? []).find((c) => c.id !== answer)?.id ?? src.next.find((c) => c.id !== answer)?.id ?? answer;
    this.drawControls(src, s, corruptedText, choices, answer, foil);
    this.context = { corruptedText, answer, foil };
    if (s.patchSweep === 'ablate_zero' || s.patchSweep === 'ablate_mean') {
      this.stopOther(null);
      const mode = s.patchSweep === 'ablate_zero' ? 'zero' : 'mean';
      this.status.textContent = tr('play.patch.ablating');
      const r = await model.headAblation(src.clean, { answer, foil, mode });
      return current() ? this.drawAblation(src, s, r, mode, answer, foil, choices) : null;
    }
    if (s.patchSweep === 'gradients') {
      const metric = s.patchMetric === 'diff' ? 'logit_diff' : 'logprob';
      const key = JSON.stringify(['gradients', Array.from(src.clean), answer, foil, metric, s.patchSteps, s.ablate]);
      const g = await this.settle(model, key, current, (signal, progress) =>
        model.gradientAttribution(src.clean, { answer, foil, metric, steps: s.patchSteps, signal,
                                               onProgress: (p) => progress(p.done, p.total, tr('play.patch.gradRunning', { done: p.done, steps: p.total })) }),
        tr('play.patch.gradRunning', { done: 0, steps: s.patchSteps }));
      if (!('value' in g)) return g.shown;
      return this.drawGradients(src, s, g.value, answer, foil, choices);
    }
    if (s.patchSweep === 'dla') {
      this.stopOther(null);
      const d = await model.logitAttribution(src.clean, { answer, foil });
      return current() ? this.drawAttribution(src, d, answer, foil, choices) : null;
    }
    if (enc.ids.length !== src.clean.length) {
      this.stopOther(null);
      this.status.textContent = tr('play.patch.lengths', { clean: src.clean.length, corrupted: enc.ids.length });
      return { note: 'lengths differ', panels: {} };
    }
    const sweep = s.patchSweep as PatchSweep;
    const key = JSON.stringify([Array.from(src.clean), Array.from(corrupted), answer, foil, sweep, s.ablate]);  // under the head mask
    const r = await this.settle(model, key, current, (signal, progress) =>
      model.activationPatching(src.clean, corrupted, {
        answer, foil, sweeps: [sweep], signal,
        onProgress: (p) => progress(p.done, p.total, tr('play.patch.running', { done: p.done, total: p.total })),
      }), tr('play.patch.running', { done: 0, total: '…' }));
    if (!('value' in r)) return r.shown;
    return this.draw(src, s, r.value, sweep, answer, foil, choices);
  }

  /** A long run (a sweep, integrated gradients) by its key, with progress and Cancel: a
   *  render that asks for the same one waits for it and a finished one is reused (a click
   *  elsewhere must not restart it); any other key stops it. Resolves with its value, or
   *  with what to show instead (cancelled, refused, or null when a newer call took over). */
  private async settle<T>(model: Model, key: string, current: () => boolean,
                          start: (signal: AbortSignal, progress: (done: number, total: number, text: string) => void) => Promise<T>,
                          startText: string): Promise<{ value: T } | { shown: PatchingShown | null }> {
    if (this.cacheOf !== model) this.cache.clear();
    this.cacheOf = model;
    this.stopOther(key);
    let job = this.cache.get(key) as Promise<T> | undefined;
    if (!job) {
      const stop = new AbortController();
      this.running = { key, stop };
      this.setRunning(true);
      this.status.textContent = startText;
      job = start(stop.signal, (done, total, text) => {
        if (this.running?.key !== key) return;
        this.progress.max = total;
        this.progress.value = done;
        this.status.textContent = text;
      });
      this.cache.set(key, job);
      const done = () => {
        if (this.running?.key !== key) return;
        this.running = null;
        this.setRunning(false);
      };
      job.then(done, () => {
        this.cache.delete(key);
        done();
      });
    } else if (this.running?.key === key) {
      this.setRunning(true);  // still running: its progress goes on showing
    }
    try {
      const value = await job;
      return current() ? { value } : { shown: null };
    } catch (e) {
      if (!current()) return { shown: null };
      const cancelled = e instanceof Error && e.name === 'AbortError';
      this.status.textContent = cancelled ? tr('play.patch.cancelled')
        : tr('play.patch.refused', { message: e instanceof Error ? e.message : String(e) });
      return { shown: { note: cancelled ? 'cancelled' : 'error', panels: {} } };
    }
  }

  /** Stops the sweep in the engine unless it is the one with this key. */
  private stopOther(key: string | null): void {
    if (!this.running || this.running.key === key) return;
    this.running.stop.abort();
    this.running = null;
    this.setRunning(false);
  }

  private setRunning(on: boolean): void {
    this.progress.hidden = !on;
    this.cancel.hidden = !on;
    if (!on) this.progress.removeAttribute('value');
  }

  /** Head ablation: layers × heads, the metric's change when that head is ablated (or the
   *  ablated metric itself, raw). */
  private drawAblation(src: PatchingSource, s: PatchingState, r: HeadAblationResult, mode: 'zero' | 'mean', answer: number,
                       foil: number, choices: TokenChoice[]): PatchingShown {
    const diff = s.patchMetric === 'diff';
    const t = diff ? r.ablatedLogitDiff : r.ablatedLogprob;
    const base = diff ? r.logitDiff : r.logprob;
    const [L, H] = t.dims as [number, number];
    const values = s.patchRaw ? t.data : Float32Array.from(t.data, (v) => v - base);
    const rows = Array.from({ length: L }, (_, l) => `L${l + 1}`);
    const cols = Array.from({ length: H }, (_, h) => `H${h + 1}`);
    this.rowsOf = rows.map((_, l) => ({ layer: l, head: null }));
    this.headColumns = true;
    this.headCount = H;
    const centre = s.patchRaw ? base : 0;
    let m = 0;
    for (const v of values) m = Math.max(m, Math.abs(v - centre));
    m ||= 1;
    const domain: [number, number] = [centre - m, centre + m];
    const name = (id: number) => src.show(choices.find((c) => c.id === id)?.token ?? String(id));
    const metric = diff ? tr('play.patch.metricDiffOf', { answer: name(answer), foil: name(foil) })
      : tr('play.patch.metricLogprobOf', { answer: name(answer) });
    const title = tr(s.patchRaw ? 'play.patch.titleAblationRaw' : 'play.patch.titleAblation',
                     { how: tr(mode === 'zero' ? 'play.patch.sweepZero' : 'play.patch.sweepMean'), metric });
    this.map.setTitle(title);
    this.map.update({ rowLabels: rows, colLabels: cols, values, domain });
    this.accMap.element.hidden = true;
    this.showLegend(this.legend, domain);
    this.body.hidden = false;
    this.status.textContent = tr('play.patch.ablationSummary', { base: base.toFixed(3), passes: L * H });
    this.svg = { title, rowLabels: rows, colLabels: cols, values, domain };
    this.csv = () => [['row', ...cols].join(','), ...rows.map((label, i) =>
      [label, ...Array.from(values.subarray(i * H, (i + 1) * H), String)].join(','))].join('\n');
    return {
      note: `ablate_${mode} ${s.patchMetric} ${s.patchRaw ? 'raw' : 'change'} answer ${answer} foil ${foil}`,
      panels: { [`ablate.${mode}`]: { dims: [L, H], data: values }, 'ablate.metric': { dims: [2], data: Float32Array.of(r.logitDiff, r.logprob) } },
    };
  }

  /** Direct logit attribution: layers × (heads, bias, MLP), and the accumulated residual. */
  private drawAttribution(src: PatchingSource, d: LogitAttributionResult, answer: number, foil: number,
                          choices: TokenChoice[]): PatchingShown {
    const [L, H] = d.heads.dims as [number, number];
    const cols = [...Array.from({ length: H }, (_, h) => `H${h + 1}`), tr('play.patch.colBias'), tr('play.patch.colMlp')];
    const values = new Float32Array(L * (H + 2));
    for (let l = 0; l < L; l++) {
      values.set(d.heads.data.subarray(l * H, (l + 1) * H), l * (H + 2));
      values[l * (H + 2) + H] = d.attnBias[l]!;
      values[l * (H + 2) + H + 1] = d.mlp[l]!;
    }
    const rows = Array.from({ length: L }, (_, l) => `L${l + 1}`);
    this.rowsOf = rows.map((_, l) => ({ layer: l, head: null }));
    this.headColumns = true;
    this.headCount = H;
    let m = 0;
    for (const v of [...values, d.embed, d.posEmbed ?? 0, d.normBias]) m = Math.max(m, Math.abs(v));
    for (const v of d.accumulated) m = Math.max(m, Math.abs(v));
    m ||= 1;
    const domain: [number, number] = [-m, m];
    const name = (id: number) => src.show(choices.find((c) => c.id === id)?.token ?? String(id));
    const title = tr('play.patch.titleDla', { metric: tr('play.patch.metricDiffOf', { answer: name(answer), foil: name(foil) }) });
    this.map.setTitle(title);
    this.map.update({ rowLabels: rows, colLabels: cols, values, domain });
    const accCols = [tr('play.patch.embeddings'), ...rows];
    this.accMap.setTitle(tr('play.patch.accumulated'));
    this.accMap.update({ rowLabels: [tr('play.patch.accRow')], colLabels: accCols, values: d.accumulated, domain });
    this.accMap.element.hidden = false;
    this.showLegend(this.dlaLegend, domain);
    this.body.hidden = false;
    const f3 = (v: number) => v.toFixed(3);
    this.status.textContent = tr('play.patch.dlaSummary', {
      embed: f3(d.embed), pos: d.posEmbed === null ? tr('play.patch.none') : f3(d.posEmbed), bias: f3(d.normBias),
      sum: f3(d.sum), metric: f3(d.metric), residual: d.residual.toExponential(1) });
    this.svg = { title, rowLabels: rows, colLabels: cols, values, domain };
    this.csv = () => [['row', ...cols].join(','), ...rows.map((label, i) =>
      [label, ...Array.from(values.subarray(i * cols.length, (i + 1) * cols.length), String)].join(',')),
      `embed,${d.embed}`, `pos_embed,${d.posEmbed ?? ''}`, `norm_bias,${d.normBias}`, `metric,${d.metric}`,
      ['accumulated', ...Array.from(d.accumulated, String)].join(',')].join('\n');
    return {
      note: `dla answer ${answer} foil ${foil}`,
      panels: {
        'dla.heads': d.heads, 'dla.layers': { dims: [L, H + 2], data: values },
        'dla.accumulated': { dims: [L + 1], data: d.accumulated },
        'dla.terms': { dims: [6], data: Float32Array.of(d.metric, d.sum, d.residual, d.embed, d.posEmbed ?? NaN, d.normBias) },
      },
    };
  }

  /** Attention beside gradient attribution: one row per measure over the positions. */
  private drawGradients(src: PatchingSource, s: PatchingState, g: GradientAttributionResult, answer: number, foil: number,
                        choices: TokenChoice[]): PatchingShown {
    const attention = src.attentionRow(s.layer, s.head);
    const rows = gradientRows(g, attention, s.layer, s.head);
    const positions = src.tokens.map((x, i) => `${i + 1} ${x}`);
    this.rowsOf = rows.labels.map(() => ({ layer: s.layer, head: null }));
    this.headColumns = false;
    const name = (id: number) => src.show(choices.find((c) => c.id === id)?.token ?? String(id));
    const metric = s.patchMetric === 'diff' ? tr('play.patch.metricDiffOf', { answer: name(answer), foil: name(foil) })
      : tr('play.patch.metricLogprobOf', { answer: name(answer) });
    const title = tr('play.patch.titleGradients', { metric });
    const domain: [number, number] = [-1, 1];
    this.map.setTitle(title);
    this.map.update({ rowLabels: rows.labels, colLabels: positions, values: rows.scaled, domain,
                      rowHints: rows.hints });
    this.accMap.element.hidden = true;
    this.showLegend(this.gradLegend, domain);
    this.body.hidden = false;
    const change = g.metric - g.baseline, gap = g.completenessGap ?? 0;
    const percent = change !== 0 ? `${((100 * Math.abs(gap)) / Math.abs(change)).toFixed(1)} %` : '—';
    this.status.textContent = tr('play.patch.gradSummary', {
      value: g.metric.toFixed(4), baseline: g.baseline.toFixed(4), steps: g.steps, sum: (g.integratedSum ?? 0).toFixed(4),
      gap: gap.toExponential(2), percent, layer: s.layer + 1, head: s.head + 1 })
      + (change !== 0 && Math.abs(gap) > 0.05 * Math.abs(change) ? ' ' + tr('play.patch.gradGapNote') : '');
    this.svg = { title, rowLabels: rows.labels, colLabels: positions, values: rows.scaled, domain };
    this.csv = () => gradientCsv(rows, positions, g);
    const panel = (x: Float32Array) => ({ dims: [x.length], data: x });
    return {
      note: `gradients ${s.patchMetric} steps ${g.steps} answer ${answer} foil ${foil}`,
      panels: {
        'grad.x_input': panel(g.gradXInput), 'grad.norm': panel(g.gradNorm), ...(g.integrated ? { 'grad.integrated': panel(g.integrated) } : {}),
        'grad.metric': { dims: [4], data: Float32Array.of(g.metric, g.baseline, g.integratedSum ?? NaN, g.completenessGap ?? NaN) },
        ...(attention ? { 'grad.attention': panel(attention) } : {}),
      },
    };
  }

  private draw(src: PatchingSource, s: PatchingState, r: ActivationPatchingResult, sweep: PatchSweep, answer: number,
               foil: number, choices: TokenChoice[]): PatchingShown {
    const t = r.sweeps[sweep]!;
    const diff = s.patchMetric === 'diff';
    const norm = diff ? t.logitDiffNorm : t.logprobNorm;
    const raw = diff ? t.logitDiff : t.logprob;
    const useRaw = s.patchRaw || norm === null;
    const { values, rows, cols, rowsOf } = layout(t, sweep, useRaw ? raw : norm!, src.tokens, src.model.info.n_heads);
    this.rowsOf = rowsOf;
    const base = useRaw ? (diff ? r.corrupted.logitDiff : r.corrupted.logprob) : 0;
    let m = useRaw ? 0 : 1;
    for (const v of values) m = Math.max(m, Math.abs(v - base));
    const domain: [number, number] = [base - m, base + m];
    const name = (id: number) => src.show(choices.find((c) => c.id === id)?.token ?? String(id));
    const metric = diff ? tr('play.patch.metricDiffOf', { answer: name(answer), foil: name(foil) })
      : tr('play.patch.metricLogprobOf', { answer: name(answer) });
    const title = tr(useRaw ? 'play.patch.titleRaw' : 'play.patch.titleNorm', { sweep: tr(SWEEP_LABELS[sweep]), metric });
    this.map.setTitle(title);
    this.map.update({ rowLabels: rows, colLabels: cols, values, domain });
    this.accMap.element.hidden = true;
    this.showLegend(this.legend, domain);
    this.body.hidden = false;
    const clean = diff ? r.clean.logitDiff : r.clean.logprob, corr = diff ? r.corrupted.logitDiff : r.corrupted.logprob;
    this.status.textContent = tr('play.patch.summary', { clean: clean.toFixed(3), corrupted: corr.toFixed(3), passes: r.passes })
      + (norm === null && !s.patchRaw ? ' ' + tr('play.patch.sameMetric') : '');
    this.svg = { title, rowLabels: rows, colLabels: cols, values, domain };
    this.csv = () => [['row', ...cols].join(','), ...rows.map((label, i) =>
      [JSON.stringify(label), ...Array.from(values.subarray(i * cols.length, (i + 1) * cols.length), String)].join(','))].join('\n');
    return {
      note: `${sweep} ${s.patchMetric} ${useRaw ? 'raw' : 'norm'} answer ${answer} foil ${foil}`,
      panels: {
        [`patch.${sweep}`]: { dims: [rows.length, cols.length], data: values },
        'patch.metric': { dims: [4], data: Float32Array.of(r.clean.logitDiff, r.corrupted.logitDiff, r.clean.logprob, r.corrupted.logprob) },
      },
    };
  }

  private csv: () => string = () => '';

  /** Pressing a head's cell (or its row) opens that head in the matrix view. */
  private select(row: number, col: number | null): void {
    const r = this.rowsOf[row];
    const head = r?.head ?? (this.headColumns && col !== null && col < this.headCount ? col : null);
    if (r && head !== null) this.change({ layer: r.layer, head, view: 'matrix' });
  }
  private headColumns = false;
  private headCount = 0;

  private drawControls(src: PatchingSource, s: PatchingState, corruptedText: string, choices: TokenChoice[],
                       answer: number, foil: number): void {
    // Columns are query heads (a click opens the head); key/value heads only when they are one per head.
    this.headColumns = QUERY_HEAD_SWEEPS.includes(s.patchSweep)
      || ((s.patchSweep === 'head_k' || s.patchSweep === 'head_v') && kvHeads(src.model.info) === src.model.info.n_heads);
    this.headCount = Number.POSITIVE_INFINITY;
    const field = (labelKey: MessageKey, input: HTMLElement) => {
      const l = document.createElement('label');
      l.append(tr(labelKey), ' ', input);
      return l;
    };
    const text = this.corruptedField;
    this.cleanText = src.text;
    if (focusedIn(text) !== text) text.value = corruptedText;
    const select = (cls: string, options: [string, string][], value: string, on: (v: string) => void) => {
      const el = document.createElement('select');
      el.className = cls;
      for (const [v, label] of options) el.append(new Option(label, v, false, v === value));
      el.addEventListener('change', () => on(el.value));
      return el;
    };
    const tokens: [string, string][] = choices.map((c) => [String(c.id), `${src.show(c.token)} (${c.id})`]);
    if (!choices.some((c) => c.id === answer)) tokens.push([String(answer), String(answer)]);
    if (!choices.some((c) => c.id === foil)) tokens.push([String(foil), String(foil)]);
    const raw = document.createElement('input');
    raw.type = 'checkbox';
    raw.className = 'patch-raw';
    raw.checked = s.patchRaw;
    raw.disabled = s.patchSweep === 'dla';  // DLA splits the logit difference itself
    raw.addEventListener('change', () => this.change({ patchRaw: raw.checked }));
    const csv = document.createElement('button');
    csv.type = 'button';
    csv.className = 'patch-csv';
    csv.textContent = tr('play.patch.csv');
    csv.addEventListener('click', () => exportCsv(this.csv(), `patching_${s.patchSweep}`));
    const json = document.createElement('button');
    json.type = 'button';
    json.className = 'patch-json';
    json.textContent = tr('play.patch.json');
    json.addEventListener('click', () => { if (this.table) exportJson(this.table, `patching_${s.patchSweep}`); });
    const metricSelect = select('patch-metric', [['diff', tr('play.patch.metricDiff')], ['logprob', tr('play.patch.metricLogprob')]],
      s.patchMetric, (v) => this.change({ patchMetric: v as 'diff' | 'logprob' }));
    metricSelect.disabled = s.patchSweep === 'dla';
    raw.disabled ||= s.patchSweep === 'gradients';  // each row is drawn on its own scale
    const steps = document.createElement('input');
    steps.type = 'number';
    steps.className = 'patch-steps';
    steps.min = '1';
    steps.max = '1024';
    steps.value = String(s.patchSteps);
    steps.addEventListener('change', () => {
      const n = Math.round(Number(steps.value));
      if (Number.isFinite(n) && n >= 1 && n <= 1024) this.change({ patchSteps: n });
      else steps.value = String(s.patchSteps);
    });
    this.controls.className = 'patch-controls';
    this.controls.replaceChildren(
      field('play.patch.corrupted', text),
      field('play.patch.metric', metricSelect),
      field('play.patch.answer', select('patch-answer', tokens, String(answer), (v) => this.change({ patchAnswer: Number(v) }))),
      field('play.patch.foil', select('patch-foil', tokens, String(foil), (v) => this.change({ patchFoil: Number(v) }))),
      field('play.patch.raw', raw),
      ...(s.patchSweep === 'gradients' ? [field('play.patch.steps', steps)] : []),
      csv, json,
    );
  }
}

/** Both runs' candidates, the clean run's first, each id once. */
function mergeChoices(a: TokenChoice[], b: TokenChoice[]): TokenChoice[] {
  const seen = new Set<number>();
  return [...a, ...b].filter((c) => !seen.has(c.id) && (seen.add(c.id), true));
}

/** Sweeps whose columns are query heads. */
const QUERY_HEAD_SWEEPS: readonly string[] = ['head_all', 'head_q', 'head_pattern'];

/** The sweep's table as heatmap rows × columns, with what each row is: resid (L+1, T)
 * rows "before layer l" and "after the last", attn_out / mlp_out (L, T), head_all, head_q
 * and head_pattern (L, H) columns heads, head_k and head_v (L, Hkv) columns key/value heads
 * (KV1… where they are fewer than the heads), head_pos (L, T, H) drawn as (L·H) rows × T. */
export function layout(t: PatchSweepResult, sweep: PatchSweep, data: Float32Array, tokens: string[], headsOf = 0):
    { values: Float32Array; rows: string[]; cols: string[]; rowsOf: { layer: number; head: number | null }[] } {
  const [L, B, C] = t.dims as [number, number, number | undefined];
  const positions = tokens.map((x, i) => `${i + 1} ${x}`);
  if (sweep === 'head_pos') {
    const T = B, H = C!;
    const values = new Float32Array(L * H * T);
    const rows: string[] = [], rowsOf: { layer: number; head: number | null }[] = [];
    for (let l = 0; l < L; l++)
      for (let h = 0; h < H; h++) {
        rows.push(`L${l + 1} H${h + 1}`);
        rowsOf.push({ layer: l, head: h });
        for (let p = 0; p < T; p++) values[(l * H + h) * T + p] = data[(l * T + p) * H + h]!;
      }
    return { values, rows, cols: positions, rowsOf };
  }
  const rowsOf = Array.from({ length: L }, (_, l) => ({ layer: l, head: null }));
  const rows = Array.from({ length: L }, (_, l) => sweep !== 'resid' ? `L${l + 1}`
    : l < L - 1 ? tr('play.patch.residPre', { layer: l + 1 }) : tr('play.patch.residPost', { layer: l }));
  const kv = (sweep === 'head_k' || sweep === 'head_v') && B !== headsOf;
  const cols = QUERY_HEAD_SWEEPS.includes(sweep) || sweep === 'head_k' || sweep === 'head_v'
    ? Array.from({ length: B }, (_, h) => `${kv ? 'KV' : 'H'}${h + 1}`) : positions;
  return { values: data, rows, cols, rowsOf };
}
