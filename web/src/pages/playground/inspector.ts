// The attention inspector: one view at a time over the attention maps of the latest
// forward pass — model (layer × head grid), matrix (one head), lines (head view),
// query–key drill-down (drilldown.ts), cross-attention, head statistics, rollout and
// compare. Every number comes from the engine: the maps from the model's forward pass,
// rollout, statistics and the drill-down's steps from src/inspect/ through the engine
// worker (Engine.rollout / headStats, Model.attentionSteps). This file arranges and
// labels them.
//
// Legend: L layers, H heads, Tq queries, Tk keys.
import { AttentionLines } from '../../widgets/attention_lines';
import { t as tr, type MessageKey } from '../../i18n/i18n';
import { ColorLegend } from '../../widgets/color_legend';
import { Heatmap, type HeatmapData } from '../../widgets/heatmap';
import { HeadStatsChart, type HeadStat } from '../../widgets/head_stats_chart';
import { LayerHeadGrid } from '../../widgets/layer_head_grid';
import { matricesSvg, type MatrixPanel } from '../../widgets/matrix_svg';
import { causalMask, localMask } from '../../widgets/attention_masks';
import type { AttentionStepsArgs, AttentionStepsResult } from '../../engine/messages';
import { DrillDown, drillPanels } from '../../widgets/drilldown';
import type { LensData } from './logit_lens';
import { AnalyseView } from './analyse';
import { HeadFindersView, type HeadFindersOptions } from './head_finders';
import type { PatchingSource } from './patching';
import { QkPcaView } from './qk_pca';
import type { HeadFindersResult } from 'transformer-playground';
import type { Engine } from 'transformer-playground';
import type { PlayState, View } from './state';
import type { AttentionFamily, AttnSet } from '../../widgets/attention_families';

export interface InspectorInput {
  families: AttentionFamily[];
}

/** What the current view shows, for tests and for export. */
export interface Shown {
  view: View;
  set: AttnSet | null;
  layer: number;
  head: number;
  /** The numbers drawn, per panel: name → values. */
  panels: Record<string, { dims: number[]; data: Float32Array }>;
  note?: string;
}

export interface InspectorEvents {
  change(patch: Partial<PlayState>): void;
  rendered(shown: Shown): void;
}

/** The mask drawn over layer `l` of `f`: a local layer's window, the causal mask, or none. */
function maskOf(f: AttentionFamily, l: number, Tq: number, Tk: number): Float32Array | null {
  if (!f.causal) return null;
  const W = f.windows?.[l] ?? 0;
  return W > 0 ? localMask(Tq, Tk, W) : causalMask(Tq, Tk);
}

/** Puts `nodes` in `host`, unless they are there already (re-inserting the same nodes
 *  would restyle and relayout them for nothing on every head switch). */
function mount(host: HTMLElement, ...nodes: Node[]): void {
  const kids = host.childNodes;
  if (kids.length === nodes.length && nodes.every((n, i) => kids[i] === n)) return;
  host.replaceChildren(...nodes);
}

/** Views that read self-attention maps (a grid of them, their statistics, their chain,
 * one row's q·k); a model with cross-attention only gets a note instead. */
const NEEDS_SELF_ATTENTION: View[] = ['model', 'stats', 'heads', 'rollout', 'qk', 'pca'];

/** The Q/K view replays at most this many query rows (one engine call each). */
const PCA_QUERIES = 64;

function note(host: HTMLElement, text: string): void {
  const p = document.createElement('p');
  p.className = 'view-note';
  p.textContent = text;
  host.replaceChildren(p);
}

export class Inspector {
  private input: InspectorInput | null = null;
  private state: PlayState | null = null;
  private generation = 0;
  private readonly grid: LayerHeadGrid;
  // Labels are functions so that they follow the page's language (a switch re-renders).
  private readonly legend = new ColorLegend(() => tr('play.insp.attentionWeight'));
  // Pressing a row label or a cell (Enter on the keyboard cursor) picks that query token,
  // as the token strip does; in the cross view it is a decoder position of the cross set.
  private readonly pickQuery = (r: number) => this.events.change({ token: this.state?.token === r ? null : r });
  private readonly matrix = new Heatmap({ title: '', rowAxis: () => tr('play.insp.axisQuery'), colAxis: () => tr('play.insp.axisKey'), onSelect: this.pickQuery });
  private readonly compareA = new Heatmap({ title: '', rowAxis: () => tr('play.insp.axisQuery'), colAxis: () => tr('play.insp.axisKey'), onSelect: this.pickQuery });
  private readonly compareB = new Heatmap({ title: '', rowAxis: () => tr('play.insp.axisQuery'), colAxis: () => tr('play.insp.axisKey'), onSelect: this.pickQuery });
  private readonly cross = new Heatmap({ title: '', rowAxis: () => tr('play.insp.axisOutput'), colAxis: () => tr('play.insp.axisSource'),
    onSelect: (r) => this.events.change({ set: 'cross', token: this.state?.set === 'cross' && this.state.token === r ? null : r }) });
  private readonly rollout = new Heatmap({ title: '', rowAxis: () => tr('play.insp.axisPosition'), colAxis: () => tr('play.insp.axisInput') });
  private readonly lines: AttentionLines;
  private readonly stats: HeadStatsChart;
  /** The statistics shown are of cross-attention maps (its own title, no distance). */
  private statsCross = false;
  private hiddenHeads = new Set<number>();
  private readonly modelHelp = document.createElement('p');
  private readonly drill: DrillDown;
  /** The engine's drill-down for the text the families came from (set by the page). */
  steps: ((pick: Pick<AttentionStepsArgs, 'set' | 'layer' | 'head' | 'query'>) => Promise<AttentionStepsResult>) | null = null;
  /** SVG of the current view, for export. */
  private svgOf: () => SVGSVGElement | null = () => null;
  shown: Shown | null = null;

  /** The engine's rollout and head statistics (set by the page once the engine runs). */
  maths: Pick<Engine, 'rollout' | 'headStats'> | null = null;
  /** The engine's logit lens of the text (set by the page per model), or the message
   *  that says why this model has none. */
  lens: (() => Promise<LensData | MessageKey>) | null = null;
  /** The engine's head finders of the model (set by the page per model: Model.headFinders),
   *  or the message that says why this model has none. */
  heads: ((o: Partial<HeadFindersOptions>) => Promise<HeadFindersResult | MessageKey>) | null = null;
  private readonly headsView = new HeadFindersView((set, layer, head) => this.events.change({ set, layer, head, view: 'matrix' }),
    (o) => this.events.change({ hfSeed: o.seed, hfRepeat: o.repeat, hfExclude: (o.excludeBos ? 1 : 0) | (o.excludeCurrent ? 2 : 0) }));
  private headsCache: { of: unknown; key: string; result: Promise<HeadFindersResult | MessageKey> } | null = null;
  /** The activation patching of the text on show (set by the page per forward pass), or
   *  the message that says why this model has none. */
  patching: PatchingSource | MessageKey | null = null;
  private readonly analyse = new AnalyseView((p) => this.events.change(p));
  private readonly pcaView = new QkPcaView();
  /** Head ablation controls (ablation.ts): toggles in the model view, a slider in the matrix view. */
  ablation: { controls(view: View, f: AttentionFamily, s: PlayState): HTMLElement | null;
              decorate(grid: HTMLElement, f: AttentionFamily, s: PlayState): void } | null = null;

  constructor(private readonly host: HTMLElement, private readonly events: InspectorEvents) {
    this.grid = new LayerHeadGrid((layer, head) => events.change({ layer, head, view: 'matrix' }));
    this.lines = new AttentionLines(() => tr('play.insp.linesTitle'),
      (token) => events.change({ token }));
    this.drill = new DrillDown((token) => events.change({ token }), () => import('katex/dist/katex.min.css'));
    this.stats = new HeadStatsChart(() => tr(this.statsCross ? 'play.insp.statsTitleCross' : 'play.insp.statsTitle'),
      (layer, head) => events.change({ layer, head }));
  }

  /** The family the state asks for, among `fams` (default: the ones drawn last). */
  family(s: PlayState, fams: AttentionFamily[] = this.input?.families ?? []): AttentionFamily | null {
    return fams.find((f) => f.set === s.set) ?? fams.find((f) => f.set !== 'cross') ?? fams[0] ?? null;
  }

  update(input: InspectorInput | null, s: PlayState): void {
    this.input = input;
    this.state = s;
    void this.render();
  }

  redraw(): void {
    [this.matrix, this.compareA, this.compareB, this.cross, this.rollout].forEach((h) => h.redraw());
    this.grid.redraw();
    this.legend.redraw();
    this.analyse.redraw();
  }

  svg(): SVGSVGElement | null {
    return this.svgOf();
  }

  /** The picked query row (and, where the strip picks keys, the picked key column) of `f`,
   *  and the rows' hints, for a heatmap. */
  private picks(f: AttentionFamily, s: PlayState): Pick<HeatmapData, 'selectedRow' | 'selectedCol' | 'rowHints'> {
    const Tq = f.rowTokens.length, Tk = f.colTokens.length;
    return {
      selectedRow: s.token !== null && s.token < Tq ? s.token : null,
      selectedCol: f.decoderRows && f.set === 'cross' && s.key !== null && s.key < Tk ? s.key : null,
      ...(f.rowHints ? { rowHints: f.rowHints } : {}),
    };
  }

  private panel(f: AttentionFamily, layer: number, head: number, title: string): MatrixPanel & { data: Float32Array } {
    const Tq = f.rowTokens.length, Tk = f.colTokens.length;
    const data = f.layers[layer]!.subarray(head * Tq * Tk, (head + 1) * Tq * Tk);
    return { title, rowLabels: f.rowTokens, colLabels: f.colTokens, values: data, data, masked: maskOf(f, layer, Tq, Tk) };
  }

  private async render(): Promise<void> {
    const gen = ++this.generation;
    const s = this.state!;
    const f = this.family(s);
    this.legend.update([0, 1]);
    const shown: Shown = { view: s.view, set: f?.set ?? null, layer: s.layer, head: s.head, panels: {} };
    this.svgOf = () => null;
    if (!f) {
      note(this.host, tr('play.insp.noMaps'));
      this.finish(shown, gen);
      return;
    }
    if (NEEDS_SELF_ATTENTION.includes(s.view) && !this.input!.families.some((x) => x.set !== 'cross')) {
      this.noSelfAttention(s.view);
      shown.note = 'no self-attention';
      this.finish(shown, gen);
      return;
    }
    const Tq = f.rowTokens.length, Tk = f.colTokens.length;
    // The legend's "masked" swatch only where the maps drawn have masked cells.
    this.legend.showMasked(s.view === 'cross' ? false : f.causal);
    const title = (l: number, h: number) => tr('play.insp.mapTitle', { family: f.label, layer: l + 1, head: h + 1 }) +
      ((f.windows?.[l] ?? 0) > 0 ? ` (${tr('play.arch.local', { window: f.windows![l]! })})` : '');
    switch (s.view) {
      case 'model': {
        const help = this.modelHelp;
        help.className = 'help';
        const text = tr('play.insp.gridHelp', { layers: tr('play.layers', { count: f.layers.length }),
                                                heads: tr('play.heads', { count: f.heads }), family: f.label.toLowerCase() });
        if (help.textContent !== text) help.textContent = text;
        // In the page first: the grid sizes its tiles to the width and reads the theme.
        const abl = this.ablation?.controls('model', f, s);
        mount(this.host, this.legend.element, help, this.grid.element, ...(abl ? [abl] : []));
        this.grid.update({ layers: f.layers, heads: f.heads, rows: Tq, cols: Tk,
                           masked: f.causal ? causalMask(Tq, Tk) : null, selected: { layer: s.layer, head: s.head },
                           ...(f.kvHeads ? { kvHeads: f.kvHeads } : {}),
                           ...(f.windows ? { layerMasked: f.layers.map((_, l) => maskOf(f, l, Tq, Tk)) } : {}),
                           ...(f.windows ? { layerNotes: f.layers.map((_, l) => ((f.windows![l] ?? 0) > 0
                             ? { text: tr('play.arch.local', { window: f.windows![l]! }),
                                 title: tr('play.arch.localLayer', { layer: l + 1, window: f.windows![l]! }) } : null)) } : {}) });
        this.ablation?.decorate(this.grid.element, f, s);
        f.layers.forEach((l, i) => (shown.panels[f.names[i]!] = { dims: [f.heads, Tq, Tk], data: l }));
        this.svgOf = () => matricesSvg(f.layers.flatMap((_, l) => Array.from({ length: f.heads }, (_, h) =>
          this.panel(f, l, h, `L${l + 1} H${h + 1}`))), f.heads, { cell: 6, labels: false });
        break;
      }
      case 'matrix': {
        const p = this.panel(f, s.layer, s.head, title(s.layer, s.head));
        this.matrix.setTitle(p.title);
        const abl = this.ablation?.controls('matrix', f, s);
        mount(this.host, this.legend.element, this.matrix.element, ...(abl ? [abl] : []));
        this.matrix.update({ rowLabels: p.rowLabels, colLabels: p.colLabels, values: p.values, masked: p.masked ?? null, ...this.picks(f, s) });
        shown.panels[p.title] = { dims: [Tq, Tk], data: p.data };
        this.svgOf = () => matricesSvg([p], 1, { cell: 22, labels: true });
        break;
      }
      case 'lines': {
        const heads = Array.from({ length: f.heads }, (_, h) => h).filter((h) => !this.hiddenHeads.has(h));
        const probs = new Float32Array(heads.length * Tq * Tk);
        heads.forEach((h, k) => probs.set(f.layers[s.layer]!.subarray(h * Tq * Tk, (h + 1) * Tq * Tk), k * Tq * Tk));
        const token = s.token !== null && s.token < Tq ? s.token : null;
        this.lines.update({ queries: f.rowTokens, keys: f.colTokens, probs, heads, selected: token });
        const toggles = document.createElement('fieldset');
        toggles.className = 'head-toggles';
        const legend = document.createElement('legend');
        legend.textContent = tr('play.insp.headsOfLayer', { layer: s.layer + 1 });
        toggles.append(legend);
        for (let h = 0; h < f.heads; h++) {
          const label = document.createElement('label');
          const box = document.createElement('input');
          box.type = 'checkbox';
          box.checked = !this.hiddenHeads.has(h);
          box.addEventListener('change', () => {
            if (box.checked) this.hiddenHeads.delete(h);
            else this.hiddenHeads.add(h);
            void this.render();
          });
          const swatch = document.createElement('span');
          swatch.className = `swatch head-${h % 8}`;
          label.append(box, swatch, document.createTextNode(` H${h + 1}`));
          toggles.append(label);
        }
        const help = document.createElement('p');
        help.className = 'help';
        help.textContent = token === null ? tr('play.insp.linesHelp') : tr('play.insp.linesOne', { query: token + 1 });
        this.host.replaceChildren(toggles, help, this.lines.element);
        shown.panels['lines'] = { dims: [heads.length, Tq, Tk], data: probs };
        shown.note = `heads ${heads.map((h) => h + 1).join(',')}; lines ${this.lines.drawn}`;
        this.svgOf = () => this.lines.svg;
        break;
      }
      case 'qk': {
        // One row of one head, replayed by the engine from the q, k, v and mask of the
        // forward pass; the query is the selected token (default: the last one).
        const layer = Math.min(s.layer, f.layers.length - 1), head = Math.min(s.head, f.heads - 1);
        const query = s.token !== null && s.token < Tq ? s.token : Math.min(f.defaultRow ?? Tq - 1, Tq - 1);
        const replayed = await this.replayRows(f.set, layer, head, [query], gen, shown);
        if (replayed === 'stale') return;
        if (replayed === 'shown') break;
        const r = replayed[0]!;
        this.drill.update({ family: f, layer, head, query, steps: r, key: f.decoderRows ? s.key : null });
        if (this.host.firstChild !== this.drill.element || this.host.childNodes.length !== 1) this.host.replaceChildren(this.drill.element);
        Object.assign(shown.panels, drillPanels(r));
        shown.layer = layer;
        shown.head = head;
        shown.note = `query ${query}`;
        this.svgOf = () => this.drill.svg();
        break;
      }
      case 'pca': {
        // One head's queries and keys, each row replayed by the engine (the drill-down's
        // q and k), projected to 2-D in the page (qk_pca.ts); at most PCA_QUERIES queries.
        const layer = Math.min(s.layer, f.layers.length - 1), head = Math.min(s.head, f.heads - 1);
        note(this.host, tr('play.pca.computing'));
        const n = Math.min(Tq, PCA_QUERIES);
        const rows = await this.replayRows(f.set, layer, head, Array.from({ length: n }, (_, i) => i), gen, shown);
        if (rows === 'stale') return;
        if (rows === 'shown') break;
        const query = s.token !== null && s.token < n ? s.token : n - 1;
        const [Tkeys, D] = rows[0]!.k.dims as [number, number];
        const keys = Array.from({ length: Tkeys }, (_, j) => rows[0]!.k.data.subarray(j * D, (j + 1) * D));
        const p = this.pcaView.update({ queries: f.rowTokens.slice(0, n), keys: f.colTokens.slice(0, Tkeys), q: rows.map((r) => r.q.data), k: keys,
                                        row: rows[query]!.probs.data, selected: query,
                                        title: tr('play.pca.title', { layer: layer + 1, head: head + 1 }) });
        mount(this.host, this.pcaView.element);
        shown.panels['pca.coords'] = { dims: [n + Tkeys, 2], data: Float32Array.from(p.coords) };
        shown.panels['pca.explained'] = { dims: [2], data: Float32Array.from(p.explained) };
        shown.layer = layer;
        shown.head = head;
        shown.note = `queries ${n} keys ${Tkeys} query ${query}`;
        this.svgOf = () => this.pcaView.svg;
        break;
      }
      case 'cross': {
        const cf = this.input?.families.find((x) => x.set === 'cross');
        if (!cf) {
          note(this.host, tr('play.insp.noCross'));
          shown.note = 'no cross-attention';
          break;
        }
        const layer = Math.min(s.layer, cf.layers.length - 1), head = Math.min(s.head, cf.heads - 1);
        const p = this.panel(cf, layer, head, tr('play.insp.crossTitle', { layer: layer + 1, head: head + 1 }));
        this.cross.setTitle(p.title);
        this.cross.update({ rowLabels: p.rowLabels, colLabels: p.colLabels, values: p.values, masked: null,
                            ...this.picks(cf, s.set === 'cross' ? s : { ...s, token: null }) });
        this.host.replaceChildren(this.legend.element, this.cross.element);
        shown.set = 'cross';
        shown.panels[p.title] = { dims: [cf.rowTokens.length, cf.colTokens.length], data: p.data };
        this.svgOf = () => matricesSvg([p], 1, { cell: 22, labels: true });
        break;
      }
      case 'stats': {
        if (!this.maths) break;
        note(this.host, tr('play.insp.computingStats'));
        // Causal maps: row 0 (one key, no choice) is left out by the engine.
        const all = await this.maths.headStats(f.layers.map((data) => ({ data, dims: [f.heads, Tq, Tk] })), { causal: f.causal });
        if (gen !== this.generation) return;
        const stats: HeadStat[] = [];
        all.forEach(({ data: a }, l) => {
          for (let h = 0; h < f.heads; h++)
            stats.push({ layer: l, head: h, entropy: a[h * 4]!, distance: a[h * 4 + 1]!, first: a[h * 4 + 2]!, previous: a[h * 4 + 3]! });
          shown.panels[`${f.names[l]}:stats`] = { dims: [f.heads, 4], data: a };
        });
        // Cross-attention: queries are output steps, keys source positions — no distance.
        const cross = (this.statsCross = f.set === 'cross');
        this.stats.update(stats, Math.log(Math.max(2, Tk)), Math.max(1, Tk - 1), { layer: s.layer, head: s.head }, { cross });
        const help = document.createElement('p');
        help.className = 'help';
        help.textContent = tr(cross ? 'play.insp.statsHelpCross' : 'play.insp.statsHelp');
        if (cross) shown.note = 'cross: distance not applicable';
        this.host.replaceChildren(help, this.stats.element);
        this.svgOf = () => this.stats.svg;
        break;
      }
      case 'rollout': {
        if (Tq !== Tk) {
          note(this.host, tr('play.insp.rolloutNeedsSelf'));
          break;
        }
        if (!this.maths) break;
        note(this.host, tr('play.insp.computingRollout'));
        const r = (await this.maths.rollout(f.layers.map((data) => ({ data, dims: [f.heads, Tq, Tq] })), { residual: 0.5 })).data;
        if (gen !== this.generation) return;
        const layer = Math.min(s.layer, f.layers.length - 1);
        const data = r.subarray(layer * Tq * Tq, (layer + 1) * Tq * Tq);
        const t = tr('play.insp.rolloutTitle', { layer: layer + 1, family: f.label.toLowerCase() });
        this.rollout.setTitle(t);
        // Causal maps chain into causal rollouts: the same cells are structurally zero.
        this.rollout.update({ rowLabels: f.rowTokens, colLabels: f.colTokens, values: data, masked: f.causal ? causalMask(Tq, Tq) : null });
        const help = document.createElement('p');
        help.className = 'help';
        help.textContent = tr('play.insp.rolloutHelp');
        this.host.replaceChildren(this.legend.element, help, this.rollout.element);
        shown.panels['rollout'] = { dims: [f.layers.length, Tq, Tq], data: r };
        this.svgOf = () => matricesSvg([{ title: t, rowLabels: f.rowTokens, colLabels: f.colTokens, values: data }], 1, { cell: 22, labels: true });
        break;
      }
      case 'compare': {
        const l2 = Math.min(s.layer2, f.layers.length - 1), h2 = Math.min(s.head2, f.heads - 1);
        const a = this.panel(f, s.layer, s.head, title(s.layer, s.head));
        const b = this.panel(f, l2, h2, title(l2, h2));
        this.compareA.setTitle(a.title);
        this.compareA.update({ rowLabels: a.rowLabels, colLabels: a.colLabels, values: a.values, masked: a.masked ?? null, ...this.picks(f, s) });
        this.compareB.setTitle(b.title);
        this.compareB.update({ rowLabels: b.rowLabels, colLabels: b.colLabels, values: b.values, masked: b.masked ?? null, ...this.picks(f, s) });
        const pick = document.createElement('div');
        pick.className = 'compare-pick';
        pick.append(this.selector(tr('play.insp.secondLayer'), f.layers.length, l2, (v) => this.events.change({ layer2: v })),
                    this.selector(tr('play.insp.secondHead'), f.heads, h2, (v) => this.events.change({ head2: v })));
        const pair = document.createElement('div');
        pair.className = 'compare-pair';
        pair.append(this.compareA.element, this.compareB.element);
        this.host.replaceChildren(this.legend.element, pick, pair);
        shown.panels['A'] = { dims: [Tq, Tk], data: a.data };
        shown.panels['B'] = { dims: [Tq, Tk], data: b.data };
        shown.note = `B = layer ${l2 + 1} head ${h2 + 1}`;
        this.svgOf = () => matricesSvg([a, b], 2, { cell: 18, labels: true });
        break;
      }
      case 'heads': {
        // The head finders: the model's own pass on a repeated random sequence (head_finders.ts).
        if (!this.heads) break;
        note(this.host, tr('play.hf.computing'));
        // The seed and R from the URL (hfseed, hfr; R 0 = the model's default).
        const o: HeadFindersOptions = { seed: s.hfSeed, repeat: s.hfRepeat, excludeBos: (s.hfExclude & 1) !== 0,
                                        excludeCurrent: (s.hfExclude & 2) !== 0 };
        const key = JSON.stringify(o);
        if (!this.headsCache || this.headsCache.of !== this.heads || this.headsCache.key !== key)
          this.headsCache = { of: this.heads, key, result: this.heads({ ...o, ...(o.repeat > 0 ? {} : { repeat: undefined }) }) };
        let r: HeadFindersResult | MessageKey;
        try {
          r = await this.headsCache.result;
        } catch (e) {
          this.headsCache = null;
          if (gen !== this.generation) return;
          note(this.host, tr('play.hf.refused', { message: e instanceof Error ? e.message : String(e) }));
          this.host.append(this.headsView.controls(o));  // so that R can be changed back
          shown.note = 'error';
          break;
        }
        if (gen !== this.generation) return;
        if (typeof r === 'string') {
          note(this.host, tr(r));
          shown.note = 'no head finders';
          break;
        }
        this.headsView.update(r, o, { layer: s.layer, head: s.head }, (id) => String(id));
        mount(this.host, this.headsView.element);
        shown.panels['heads.ids'] = { dims: [r.ids.length], data: Float32Array.from(r.ids) };
        for (const l of r.layers) {
          shown.panels[`${l.name}:heads`] = l.scores;
          shown.panels[`${l.name}:stats`] = l.stats;
          shown.panels[l.name] = l.probs;
        }
        shown.note = `seed ${r.seed} repeat ${r.repeat} prefix ${r.prefixId}` + (s.hfExclude ? ` exclude ${s.hfExclude}` : '');
        // PNG/SVG: the small multiples, one panel per head, as the model view draws its grid.
        const labels = Array.from(r.ids, String), T = r.ids.length;
        this.svgOf = () => matricesSvg(r.layers.flatMap((l) => Array.from({ length: l.probs.dims[0]! }, (_, h) => ({
          title: `${r.layers.some((x) => x.set !== l.set) ? `${l.set} ` : ''}L${l.layer + 1} H${h + 1}`, rowLabels: labels, colLabels: labels,
          values: l.probs.data.subarray(h * T * T, (h + 1) * T * T), masked: l.set === 'dec' ? causalMask(T, T) : null }))),
          r.layers[0]?.probs.dims[0] ?? 1, { cell: 4, labels: false });
        break;
      }
      case 'analyse': {
        // The logit lens and activation patching, DLA, ablation and gradients (analyse.ts).
        mount(this.host, this.analyse.element);
        const r = await this.analyse.show(s, this.lens, this.patching, () => gen === this.generation);
        if (!r) return;
        Object.assign(shown.panels, r.panels);
        if (r.note !== undefined) shown.note = r.note;
        this.svgOf = r.svg;
        break;
      }
    }
    this.finish(shown, gen);
  }

  /** The engine's drill-down rows of one head for `queries`, or what stopped them: 'stale'
   *  (a newer render took over) or 'shown' (a note says why: no drill-down, or the engine
   *  refused; the render finishes with it). */
  private async replayRows(set: AttnSet, layer: number, head: number, queries: number[], gen: number,
                           shown: Shown): Promise<AttentionStepsResult[] | 'stale' | 'shown'> {
    if (!this.steps) {
      note(this.host, tr('play.insp.drillNeeds'));
      return 'shown';
    }
    const rows: AttentionStepsResult[] = [];
    try {
      for (const query of queries) rows.push(await this.steps({ set, layer, head, query }));
    } catch (e) {
      if (gen !== this.generation) return 'stale';
      note(this.host, tr('play.insp.drillRefused', { message: e instanceof Error ? e.message : String(e) }));
      shown.note = 'error';
      return 'shown';
    }
    return gen !== this.generation ? 'stale' : rows;
  }

  /** A model whose only attention is cross-attention — a recurrent encoder–decoder
   * such as numbers-gru (GRU encoder and decoder, additive attention) — has no
   * self-attention maps for this view: say so and offer the cross view. */
  private noSelfAttention(view: View): void {
    const what: Partial<Record<View, MessageKey>> = {
      model: 'play.insp.whatModel', stats: 'play.insp.whatStats', heads: 'play.hf.what', rollout: 'play.insp.whatRollout', qk: 'play.insp.whatQk',
      pca: 'play.insp.whatQk',
    };
    const p = document.createElement('p');
    p.className = 'view-note';
    p.textContent = tr('play.insp.noSelf', { what: tr(what[view] ?? 'play.insp.whatView') });
    const open = document.createElement('button');
    open.type = 'button';
    open.textContent = tr('play.insp.openCross');
    open.addEventListener('click', () => this.events.change({ view: 'cross' }));
    p.append(open);
    this.host.replaceChildren(p);
  }

  private selector(label: string, n: number, value: number, onChange: (v: number) => void): HTMLElement {
    const wrap = document.createElement('label');
    wrap.className = 'inline-field';
    wrap.textContent = `${label} `;
    const sel = document.createElement('select');
    for (let i = 0; i < n; i++) sel.add(new Option(String(i + 1), String(i), false, i === value));
    sel.addEventListener('change', () => onChange(Number(sel.value)));
    wrap.append(sel);
    return wrap;
  }

  private finish(shown: Shown, gen: number): void {
    if (gen !== this.generation) return;
    this.shown = shown;
    this.events.rendered(shown);
  }
}
