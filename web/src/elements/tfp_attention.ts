// <tfp-attention text="…" view="matrix|grid|lines" layer="1" head="1" set="…" query="…">:
// the attention of one head as a matrix (rows are queries, columns keys), every layer × head
// at once (grid), or one layer's heads as lines from each query to its keys (lines).
// Layers, heads, tokens and queries are numbered from 1. set: "enc" (an encoder's
// self-attention), "dec" (a decoder's), "cross" (an encoder–decoder's cross-attention over
// its own translation of the text); default: the model's self-attention.
// Events: 'tfp-head-select' { layer, head } (a grid tile pressed: the view moves to it),
// 'tfp-query-select' { query } (a row or a line's query pressed; null: none).
import type { Model } from '../engine/engine';
import { AttentionLines } from '../widgets/attention_lines';
import { causalMask, localMask, machinery } from '../widgets/attention_masks';
import { Heatmap } from '../widgets/heatmap';
import { LayerHeadGrid } from '../widgets/layer_head_grid';
import { setMaps } from './attention_sets';
import { passOf } from './page_engine';
import { TfpView } from './tfp_view';

const VIEWS = ['matrix', 'grid', 'lines'] as const;
type View = (typeof VIEWS)[number];

export class TfpAttentionElement extends TfpView {
  static observedAttributes = [...TfpView.shared, 'view', 'layer', 'head', 'set', 'query'];
  #matrix = new Heatmap({ title: '', rowAxis: () => this.tr('play.insp.axisQuery'), colAxis: () => this.tr('play.insp.axisKey'),
                          onSelect: (row) => this.#pickQuery(row) });
  #grid = new LayerHeadGrid((layer, head) => {
    this.setAttribute('layer', String(layer + 1));
    this.setAttribute('head', String(head + 1));
    this.dispatchEvent(new CustomEvent('tfp-head-select', { detail: { layer: layer + 1, head: head + 1 } }));
  });
  #lines = new AttentionLines(() => this.tr('play.insp.linesTitle'), (query) => this.#pickQuery(query));
  #note = document.createElement('p');

  constructor() {
    super();
    this.#note.className = 'note';
  }

  #pickQuery(row: number | null): void {
    const same = row !== null && this.intAttribute('query', 0) === row + 1;
    if (row === null || same) this.removeAttribute('query');
    else this.setAttribute('query', String(row + 1));
    this.dispatchEvent(new CustomEvent('tfp-query-select', { detail: { query: row === null || same ? null : row + 1 } }));
  }

  protected async draw(model: Model, current: () => boolean): Promise<void> {
    if (!this.text) return this.say(this.tr('el.noText'));
    const pass = await passOf(model, this.text);
    if (!current()) return;
    const info = model.info;
    const found = setMaps(pass, info, this.getAttribute('set'));
    if (!found) return this.say(this.tr('el.noSelf'));
    const { set, maps, H, Tq, Tk, rows: rowLabels, cols: colLabels } = found;
    const layer = this.intAttribute('layer', 1), head = this.intAttribute('head', 1);
    if (layer < 1 || layer > maps.length) return this.say(this.tr('el.layerOutOfRange', { layer, count: maps.length }), true);
    if (head < 1 || head > H) return this.say(this.tr('el.headOutOfRange', { head, count: H }), true);
    const view: View = VIEWS.find((v) => v === this.getAttribute('view')) ?? 'matrix';
    const query = this.intAttribute('query', 0) - 1;
    const selected = query >= 0 && query < Tq ? query : null;
    // The masks the engine applied: causal self-attention, a local layer's window.
    const mach = machinery(info);
    const windowed = set === 'dec' || (set === 'enc' && info.architecture === 'encoder_only');
    const maskOf = (l: number) => (set !== 'dec' ? null
      : windowed && (mach.windows?.[l] ?? 0) > 0 ? localMask(Tq, Tk, mach.windows![l]!) : causalMask(Tq, Tk));
    const L = layer - 1, h = head - 1;
    const family = this.tr(set === 'enc' ? 'play.setEncoder' : set === 'cross' ? 'play.setCross'
      : info.architecture === 'decoder_only' ? 'play.setCausal' : 'play.setDecoder');
    this.#note.textContent = this.tr('el.rowsAreQueries');
    this.say('');
    if (view === 'matrix') {
      const values = maps[L]!.data.subarray(h * Tq * Tk, (h + 1) * Tq * Tk);
      this.paint(() => {
        this.#matrix.setTitle(this.tr('play.insp.mapTitle', { family, layer, head }));
        this.#mount(this.#matrix.element);
        this.#matrix.update({ rowLabels, colLabels, values, masked: maskOf(L), selectedRow: selected });
      });
      this.shown = { view, set, layer, head, dims: [Tq, Tk], data: values, rows: rowLabels, cols: colLabels };
    } else if (view === 'grid') {
      this.paint(() => {
        this.#mount(this.#grid.element);
        this.#grid.update({ layers: maps.map((m) => m.data), heads: H, rows: Tq, cols: Tk, masked: set === 'dec' ? causalMask(Tq, Tk) : null,
                            selected: { layer: L, head: h },
                            ...(mach.kvHeads && set !== 'cross' ? { kvHeads: mach.kvHeads } : {}),
                            ...(mach.windows && windowed ? { layerMasked: maps.map((_, l) => maskOf(l)) } : {}) });
      });
      this.shown = { view, set, layer, head, dims: [maps.length, H, Tq, Tk], data: maps.map((m) => m.data), rows: rowLabels, cols: colLabels };
    } else {
      const data = maps[L]!.data;
      this.paint(() => {
        this.#mount(this.#lines.element);
        this.#lines.update({ queries: rowLabels, keys: colLabels, probs: data, heads: Array.from({ length: H }, (_, k) => k), selected });
      });
      this.shown = { view, set, layer, head, dims: [H, Tq, Tk], data, rows: rowLabels, cols: colLabels };
    }
  }

  #mount(view: HTMLElement): void {
    if (this.body.firstChild !== view || this.body.childNodes.length !== 2) this.body.replaceChildren(view, this.#note);
  }
}
