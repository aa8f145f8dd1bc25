// Head ablation in the playground: switch heads off (× 0) or scale them, and see what
// changed. The engine does the work (tfp_model_set_head_mask: head h's output, probs·v
// before the out-projection, times its factor — Hugging Face's head_mask); every later
// forward pass, generation and drill-down runs under the mask, and
// tfp_model_head_mask_effect runs the model without and with it for the "what changed"
// panel. This file keeps the ablated heads as text in the URL, draws the toggles (model
// view), the scale slider (matrix view) and the panel, and labels what comes back.
// The URL's text of the ablated heads is read and written by ablation_text.ts.
import { bindText, t as tr } from '../../i18n/i18n';
import type { Model } from 'transformer-playground';
import type { HeadMaskEffect, HeadMaskEntry, ModelInfo } from '../../engine/messages';
import { visibleToken } from '../../widgets/token_text';
import type { AttentionFamily, AttnSet } from '../../widgets/attention_families';
import type { PlayState, View } from './state';
import { parseAblation, scaleOf, withScale } from './ablation_text';

/** The engine's head mask for `text` on a model: one entry per ablated block, every
 *  other head × 1; heads and layers the model does not have are left out. */
export function headMaskEntries(text: string, info: ModelInfo): HeadMaskEntry[] {
  const H = info.n_heads;
  const layersOf = (set: AttnSet) => (set === 'enc' ? info.n_encoder_layers : info.n_decoder_layers);
  const blocks = new Map<string, HeadMaskEntry>();
  for (const a of parseAblation(text)) {
    if (a.head >= H || a.layer >= layersOf(a.set)) continue;
    if (a.set === 'cross' && info.architecture !== 'encoder_decoder') continue;
    if (a.set === 'enc' && info.architecture === 'decoder_only') continue;
    if (a.set === 'dec' && info.architecture === 'encoder_only') continue;
    const key = `${a.set}.${a.layer}`;
    const e = blocks.get(key) ?? { set: a.set, layer: a.layer, scales: new Float32Array(H).fill(1) };
    e.scales[a.head] = a.scale;
    blocks.set(key, e);
  }
  return [...blocks.values()];
}

/** Models whose heads the engine can scale: every model with multi-head attention (not
 *  the recurrent encoder-decoder), nn.Transformer checkpoints read as vectors included. */
export function ablatable(info: ModelInfo): boolean {
  return !info.recurrent;
}

/** True when the "what changed" panel can compare predictions: tfp_model_head_mask_effect
 *  reads token ids through a model's head. A model that reads vectors has neither; its
 *  maps and output lengths are what the ablation changes. */
export function hasEffect(info: ModelInfo): boolean {
  return ablatable(info) && info.has_embeddings;
}

export interface AblationEvents {
  /** The ablated heads changed (the page re-runs the model). */
  change(ablate: string): void;
}

export class Ablation {
  /** The "what changed" panel (the page puts it beside the outputs). */
  readonly changes: HTMLElement;
  private readonly toggles: HTMLElement;
  private readonly slider: HTMLElement;
  private applied = new WeakMap<Model, string>();
  private state: PlayState | null = null;
  private info: ModelInfo | null = null;
  /** The latest effect shown, and the ablation text it was computed for (tests read them). */
  effect: HeadMaskEffect | null = null;
  effectFor: string | null = null;

  constructor(private readonly events: AblationEvents) {
    this.changes = document.createElement('section');
    this.changes.className = 'panel abl-changes';
    this.changes.hidden = true;
    this.changes.setAttribute('aria-live', 'polite');
    this.toggles = document.createElement('section');
    this.toggles.className = 'abl-panel';
    this.slider = document.createElement('section');
    this.slider.className = 'abl-panel';
  }

  /** Sends the mask of `s.ablate` to the model if it is not what the model has. Returns
   *  the number of heads the mask changes. */
  async sync(model: Model, s: PlayState): Promise<number> {
    this.state = s;
    this.info = model.info;
    if (!ablatable(model.info)) return 0;
    const entries = headMaskEntries(s.ablate, model.info);
    const key = JSON.stringify(entries.map((e) => [e.set, e.layer, Array.from(e.scales)]));
    // A model the page has not masked yet has no mask: nothing to send (one round trip
    // less before a freshly loaded model's first map).
    if ((this.applied.get(model) ?? '[]') !== key) {
      await model.setHeadMask(entries);
      this.applied.set(model, key);
    }
    return entries.reduce((n, e) => n + e.scales.filter((v) => v !== 1).length, 0);
  }

  /** The inspector's extra controls for a view: toggles under the model grid, the
   *  slider under the matrix; null elsewhere. */
  controls(view: View, f: AttentionFamily, s: PlayState): HTMLElement | null {
    this.state = s;
    if (!this.info || !ablatable(this.info)) return null;
    if (view === 'model') {
      this.drawToggles(f, s);
      return this.toggles;
    }
    if (view === 'matrix') {
      this.drawSlider(f, s);
      return this.slider;
    }
    return null;
  }

  /** Marks the ablated tiles of the model view's grid (dashed outline, factor badge). */
  decorate(grid: HTMLElement, f: AttentionFamily, s: PlayState): void {
    const list = parseAblation(s.ablate).filter((a) => a.set === f.set);
    grid.querySelectorAll<HTMLElement>('.lh-tile').forEach((tile) => {
      const hit = list.find((a) => a.layer === Number(tile.dataset.layer) && a.head === Number(tile.dataset.head));
      tile.classList.toggle('ablated', !!hit);
      if (hit) tile.dataset.scale = `×${Number(hit.scale.toFixed(3))}`;
      else delete tile.dataset.scale;
    });
  }

  private header(): HTMLElement[] {
    const h = document.createElement('h3');
    h.textContent = tr('play.abl.title');
    const count = parseAblation(this.state?.ablate ?? '').length;
    const status = document.createElement('p');
    status.className = 'help abl-status';
    status.textContent = count ? tr('play.abl.count', { count }) : tr('play.abl.none');
    const reset = document.createElement('button');
    reset.type = 'button';
    reset.className = 'abl-reset';
    reset.textContent = tr('play.abl.reset');
    reset.disabled = count === 0;
    reset.addEventListener('click', () => this.events.change(''));
    const row = document.createElement('div');
    row.className = 'abl-head';
    row.append(h, status, reset);
    const help = document.createElement('p');
    help.className = 'help';
    help.textContent = tr('play.abl.help');
    return [row, help];
  }

  private drawToggles(f: AttentionFamily, s: PlayState): void {
    const grid = document.createElement('div');
    grid.className = 'abl-grid';
    grid.setAttribute('role', 'group');
    grid.setAttribute('aria-label', tr('play.abl.title'));
    grid.style.gridTemplateColumns = `repeat(${f.heads + 1}, max-content)`;
    const focusKey = (document.activeElement as HTMLElement | null)?.dataset?.ablKey;
    let refocus: HTMLElement | null = null;
    for (let l = 0; l < f.layers.length; l++) {
      const label = document.createElement('span');
      label.className = 'lh-row';
      label.textContent = `L${l + 1}`;
      grid.append(label);
      for (let h = 0; h < f.heads; h++) {
        const scale = scaleOf(s.ablate, f.set, l, h);
        const b = document.createElement('button');
        b.type = 'button';
        b.className = 'abl-toggle';
        b.dataset.layer = String(l);
        b.dataset.head = String(h);
        b.dataset.ablKey = `${f.set}.${l}.${h}`;
        b.setAttribute('aria-pressed', String(scale === 0));
        b.setAttribute('aria-label', tr('play.abl.toggle', { layer: l + 1, head: h + 1 }));
        b.textContent = scale === 1 ? `H${h + 1}` : `H${h + 1} ×${Number(scale.toFixed(2))}`;
        if (scale !== 1) b.classList.add('scaled');
        b.addEventListener('click', () =>
          this.events.change(withScale(this.state?.ablate ?? '', f.set, l, h, scale === 1 ? 0 : 1)));
        if (focusKey === b.dataset.ablKey) refocus = b;
        grid.append(b);
      }
    }
    this.toggles.replaceChildren(...this.header(), grid);
    // A redraw replaces the buttons: keep the keyboard where it was.
    (refocus as HTMLElement | null)?.focus();
  }

  private drawSlider(f: AttentionFamily, s: PlayState): void {
    const layer = Math.min(s.layer, f.layers.length - 1), head = Math.min(s.head, f.heads - 1);
    const scale = scaleOf(s.ablate, f.set, layer, head);
    const row = document.createElement('label');
    row.className = 'abl-slider';
    const name = document.createElement('span');
    name.textContent = tr('play.abl.scale', { layer: layer + 1, head: head + 1 });
    const input = document.createElement('input');
    input.type = 'range';
    input.min = '0';
    input.max = '2';
    input.step = '0.1';
    input.value = String(scale);
    input.id = 'abl-scale';
    const value = document.createElement('output');
    value.textContent = tr('play.abl.scaleValue', { scale: scale.toFixed(1) });
    input.addEventListener('input', () => { value.textContent = tr('play.abl.scaleValue', { scale: Number(input.value).toFixed(1) }); });
    input.addEventListener('change', () =>
      this.events.change(withScale(this.state?.ablate ?? '', f.set, layer, head, Number(input.value))));
    row.append(name, input, value);
    const hadFocus = document.activeElement?.id === 'abl-scale';
    this.slider.replaceChildren(...this.header(), row);
    if (hadFocus) input.focus();
  }

  /** Fills the "what changed" panel from the engine (hidden without an ablation). */
  async showEffect(model: Model, ids: ArrayLike<number>, s: PlayState, byteLevel: boolean): Promise<void> {
    this.state = s;
    if (!s.ablate || ids.length === 0 || !ablatable(model.info)) {
      this.effect = null;
      this.effectFor = s.ablate;
      this.changes.hidden = true;
      this.changes.replaceChildren();
      return;
    }
    if (!hasEffect(model.info)) {
      // No head to compare predictions with: one line says where the effect shows.
      this.effect = null;
      const p = document.createElement('p');
      p.className = 'help abl-no-effect';
      bindText(p, () => tr('play.abl.noEffectVectors'));
      const h = document.createElement('h3');
      bindText(h, () => tr('play.abl.changed'));
      this.changes.replaceChildren(h, p);
      this.changes.hidden = false;
      this.effectFor = s.ablate;
      return;
    }
    // An encoder-decoder compares translations decoded as the page's own (its beam size).
    const e = await model.headMaskEffect(ids, 8, model.info.architecture === 'encoder_decoder' ? s.beam : 1);
    this.effect = e;
    const h = document.createElement('h3');
    h.textContent = tr('play.abl.changed');
    const show = (tok: string) => visibleToken(tok, byteLevel);
    const body: HTMLElement[] = [];
    if (e.kind === 'next-token') {
      body.push(table(tr('play.abl.nextCaption'),
        [tr('play.abl.colToken'), tr('play.abl.colBefore'), tr('play.abl.colAfter'), tr('play.abl.colDelta')],
        Array.from(e.ids, (_, i) => {
          const d = e.after[i]! - e.before[i]!;
          return [show(e.tokens[i]!), pct(e.before[i]!), pct(e.after[i]!), `${d >= 0 ? '+' : '−'}${pct(Math.abs(d))}`];
        }), 'abl-next'));
    } else if (e.kind === 'fill-mask') {
      // Each [MASK]'s fillers, ranked, without and with the ablation (the engine's fill-mask).
      let changed = 0;
      const M = e.positions.length, K = e.k;
      const cell = (toks: string[], probs: Float32Array, i: number) => `${show(toks[i]!)} (${pct(probs[i]!)})`;
      const tables: HTMLElement[] = [];
      for (let r = 0; r < M; r++) {
        if (e.beforeIds[r * K] !== e.afterIds[r * K]) changed++;
        const rows = Array.from({ length: K }, (_, k) => [String(k + 1), cell(e.beforeTokens, e.beforeProbs, r * K + k),
                                                          cell(e.afterTokens, e.afterProbs, r * K + k)]);
        const t = table(tr('play.abl.maskCaption', { mask: r + 1, position: e.positions[r]! + 1 }),
          [tr('play.abl.colRank'), tr('play.abl.colBefore'), tr('play.abl.colAfter')], rows, 'abl-fills');
        t.dataset.position = String(e.positions[r]);
        tables.push(t);
      }
      const p = document.createElement('p');
      p.className = 'abl-summary';
      p.textContent = tr('play.abl.masksChanged', { changed, count: M });
      body.push(p, ...tables);
    } else if (e.kind === 'per-token') {
      const changed: string[][] = [];
      for (let i = 0; i < e.before.length; i++)
        if (e.before[i] !== e.after[i])
          changed.push([String(i + 1), `${show(e.beforeTokens[i]!)} (${pct(e.beforeProbs[i]!)})`, `${show(e.afterTokens[i]!)} (${pct(e.afterProbs[i]!)})`]);
      const p = document.createElement('p');
      p.className = 'abl-summary';
      p.textContent = tr('play.abl.tagsChanged', { changed: changed.length, total: e.before.length });
      body.push(p);
      if (changed.length)
        body.push(table(tr('play.abl.tagsCaption'), [tr('play.abl.colPosition'), tr('play.abl.colBefore'), tr('play.abl.colAfter')], changed, 'abl-tags'));
    } else {
      const text = (toks: string[]) => toks.map(show).join(' ');
      const how = document.createElement('p');
      how.className = 'help abl-decoding';
      how.textContent = tr('play.abl.decoding', { decoding: e.beamSize > 1 ? tr('play.abl.beam', { beam: e.beamSize }) : tr('play.abl.greedy') });
      body.push(how);
      for (const [key, toks] of [['play.abl.before', e.beforeTokens], ['play.abl.after', e.afterTokens]] as const) {
        const p = document.createElement('p');
        p.className = 'abl-translation';
        p.textContent = tr(key, { text: text(toks) });
        body.push(p);
      }
      if (e.before.join() === e.after.join()) {
        const p = document.createElement('p');
        p.className = 'help';
        p.textContent = tr('play.abl.sameTranslation');
        body.push(p);
      }
    }
    this.changes.replaceChildren(h, ...body);
    this.changes.hidden = false;
    this.effectFor = s.ablate;
  }
}

function pct(p: number): string {
  return `${(100 * p).toFixed(1)}%`;
}

/** A small table; every cell goes in as text. */
function table(caption: string, head: string[], rows: string[][], cls: string): HTMLTableElement {
  const t = document.createElement('table');
  t.className = `abl-table ${cls}`;
  const c = document.createElement('caption');
  c.textContent = caption;
  const thead = document.createElement('thead');
  const hr = document.createElement('tr');
  head.forEach((x) => { const th = document.createElement('th'); th.scope = 'col'; th.textContent = x; hr.append(th); });
  thead.append(hr);
  const tbody = document.createElement('tbody');
  rows.forEach((r) => {
    const tr_ = document.createElement('tr');
    r.forEach((x, i) => { const td = document.createElement(i === 0 ? 'th' : 'td'); if (i === 0) (td as HTMLTableCellElement).scope = 'row'; td.textContent = x; tr_.append(td); });
    tbody.append(tr_);
  });
  t.append(c, thead, tbody);
  return t;
}
