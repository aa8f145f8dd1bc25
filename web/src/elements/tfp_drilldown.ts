// <tfp-drilldown text="…" layer="1" head="1" query="…" set="…">: one attention row taken
// apart as the engine computes it — q, every key k_j, q·k_j, the scale, the bias or mask,
// the softmax, each p_j·v_j and their sum — the playground's query·key drill-down
// (widgets/drilldown.ts). Layers, heads and queries are numbered from 1; query defaults to
// the last token. set as <tfp-attention>'s. The formula is MathML (no stylesheet or font to
// bring into the shadow root). Event: 'tfp-query-select' { query } (a query token pressed:
// the view moves to it).
//   el.shown  { set, layer, head, query, tokens, panels }: the engine's tensors by name
import type { Model } from '../engine/engine';
import { machinery } from '../widgets/attention_masks';
import type { AttentionFamily } from '../widgets/attention_families';
import { DrillDown, drillPanels } from '../widgets/drilldown';
import drilldownCss from '../styles/drilldown.css?inline';
import { setMaps } from './attention_sets';
import { passOf } from './page_engine';
import { TfpView } from './tfp_view';

let sheet: CSSStyleSheet | null = null;

/** The drill-down's own rules, beside the shared sheet (one constructed sheet per page). */
function drillSheet(): CSSStyleSheet {
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheet.replaceSync(drilldownCss);
  }
  return sheet;
}

export class TfpDrillDownElement extends TfpView {
  static observedAttributes = [...TfpView.shared, 'layer', 'head', 'set', 'query'];
  #drill = new DrillDown((query) => this.#pickQuery(query));

  constructor() {
    super();
    this.shadowRoot!.adoptedStyleSheets = [...this.shadowRoot!.adoptedStyleSheets, drillSheet()];
  }

  #pickQuery(row: number): void {
    this.setAttribute('query', String(row + 1));
    this.dispatchEvent(new CustomEvent('tfp-query-select', { detail: { query: row + 1 } }));
  }

  protected async draw(model: Model, current: () => boolean): Promise<void> {
    if (!this.text) return this.say(this.tr('el.noText'));
    const pass = await passOf(model, this.text);
    if (!current()) return;
    const info = model.info;
    const found = setMaps(pass, info, this.getAttribute('set'));
    if (!found) return this.say(this.tr('el.noSelf'));
    const { set, maps, H, Tq, rows, cols } = found;
    const layer = this.intAttribute('layer', 1), head = this.intAttribute('head', 1), query = this.intAttribute('query', Tq);
    if (layer < 1 || layer > maps.length) return this.say(this.tr('el.layerOutOfRange', { layer, count: maps.length }), true);
    if (head < 1 || head > H) return this.say(this.tr('el.headOutOfRange', { head, count: H }), true);
    if (query < 1 || query > Tq) return this.say(this.tr('el.queryOutOfRange', { query, count: Tq }), true);
    const steps = await model.attentionSteps(pass.encoding.ids, { set, layer: layer - 1, head: head - 1, query: query - 1 },
                                             pass.tgtIds ? { tgtIds: pass.tgtIds } : {});
    if (!current()) return;
    const mach = machinery(info);
    const windowed = set === 'dec' || (set === 'enc' && info.architecture === 'encoder_only');
    const family: AttentionFamily = {
      set, label: this.tr(set === 'enc' ? 'play.setEncoder' : set === 'cross' ? 'play.setCross'
        : info.architecture === 'decoder_only' ? 'play.setCausal' : 'play.setDecoder'),
      names: maps.map((m) => m.name), layers: maps.map((m) => m.data), heads: H,
      rowTokens: rows, colTokens: cols, causal: set === 'dec',
      ...(mach.kvHeads && set !== 'cross' ? { kvHeads: mach.kvHeads } : {}),
      ...(mach.windows && windowed ? { windows: mach.windows } : {}),
      positional: mach.positional,
      ...(mach.attnScale !== undefined ? { attnScale: mach.attnScale } : {}),
    };
    this.paint(() => this.#drill.update({ family, layer: layer - 1, head: head - 1, query: query - 1, steps, key: null }));
    if (this.#drill.element.parentNode !== this.body) this.body.replaceChildren(this.#drill.element);
    this.say('');
    this.shown = { set, layer, head, query, tokens: family.rowTokens, panels: drillPanels(steps) };
  }
}
