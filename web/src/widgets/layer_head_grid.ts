// Layer × head grid ("model view"): every attention map of a model as a small picture,
// one row per layer and one column per head, on one colour scale. Each picture is a
// button: pressing it (or Enter on it) opens that head. Arrow keys move between heads.
//
// Built for redraw speed (the 50 ms budget at T = 128): the tiles (buttons + canvases)
// are made once per grid shape and reused; a map is repainted only when its numbers,
// the tile size, the device pixel ratio or the theme change, each with one putImageData
// of device pixels (raster.ts). Selecting another head only moves the highlight
// (aria-pressed, a CSS outline): nothing is repainted.
//
// Legend: L layers, H heads, Tq queries, Tk keys.
import { bindAttr, t } from '../i18n/i18n';
import { colormap, pixelOf, type ColormapName } from './colormap';
import { rasterize } from './raster';
import { themeColours } from './theme';
import { focusedIn } from './dom';

export interface LayerHeadData {
  layers: Float32Array[];        // L × (H, Tq, Tk)
  heads: number;
  rows: number;                  // Tq
  cols: number;                  // Tk
  masked?: Float32Array | null;  // (Tq, Tk) non-zero = masked
  selected: { layer: number; head: number };
  /** Key/value heads (grouped-query attention: fewer than `heads`): query heads that share
   *  one are grouped under a "KV k" band and spaced apart from the next group. */
  kvHeads?: number;
  /** Per layer, its own mask instead of `masked` (a local layer's window). */
  layerMasked?: (Float32Array | null)[];
  /** Per layer, a mark under its label (e.g. "local · 4" with a longer title), or null. */
  layerNotes?: ({ text: string; title: string } | null)[];
}

const MIN_TILE = 36, MAX_TILE = 160, ROW_LABEL = 28, NOTE_LABEL = 64, GAP = 8, GROUP_GAP = 10;

/** What a painted tile shows; the tile is repainted when any of it changes. */
interface Painted {
  probs: Float32Array | null;
  masked: Float32Array | null;
  rows: number;
  cols: number;
  px: number;      // device pixels on a side
  theme: string;
}

export class LayerHeadGrid {
  readonly element: HTMLElement;
  private buttons: HTMLButtonElement[][] = [];
  private canvases: HTMLCanvasElement[][] = [];
  private painted: Painted[][] = [];
  private shape = { L: -1, H: -1, kv: 0 };
  private rowLabels: HTMLElement[] = [];
  private groupBands: HTMLElement[] = [];
  private data: LayerHeadData | null = null;
  private size = 0;
  private theme: { key: string; maskBg: number; maskLine: number; connected: boolean } | null = null;
  private readonly observer: ResizeObserver;
  private observedWidth = 0;
  /** Tiles repainted by the last update (for tests and the bench: 0 on a head switch). */
  repainted = 0;

  constructor(private readonly onOpen: (layer: number, head: number) => void, private readonly map: ColormapName = 'viridis') {
    this.element = document.createElement('div');
    this.element.className = 'layer-head-grid';
    this.element.setAttribute('role', 'group');
    bindAttr(this.element, 'aria-label', () => t('w.gridLabel'));
    // Tile size follows the width the grid is given (phone to desktop).
    this.observer = new ResizeObserver((entries) => {
      const w = entries[0]?.contentRect.width ?? 0;
      if (w > 0 && Math.abs(w - this.observedWidth) >= 1) {
        this.observedWidth = w;
        if (this.data && (this.tileSize(this.data) !== this.size || !this.theme?.connected)) this.update(this.data);
      }
    });
    this.observer.observe(this.element);
  }

  /** Tile edge in CSS px: one device pixel per cell when there is room (a 128-token map
   *  in 128 px at DPR 1), at least 88 px, at most what H tiles fit in the width. */
  private tileSize(d: LayerHeadData): number {
    const dpr = window.devicePixelRatio || 1;
    const want = Math.min(MAX_TILE, Math.max(88, Math.ceil(Math.max(d.rows, d.cols) / dpr)));
    const width = this.observedWidth || this.element.parentElement?.clientWidth || 600;
    const groups = d.kvHeads && d.kvHeads < d.heads ? d.kvHeads : 1;
    const label = d.layerNotes?.some((n) => n) ? NOTE_LABEL : ROW_LABEL;
    const fit = Math.floor((width - label - (groups - 1) * GROUP_GAP) / Math.max(d.heads, 1)) - GAP;
    return Math.max(MIN_TILE, Math.min(want, fit));
  }

  update(d: LayerHeadData): void {
    this.data = d;
    const L = d.layers.length, H = d.heads;
    const kv = d.kvHeads && d.kvHeads < H && H % d.kvHeads === 0 ? d.kvHeads : 0;
    if (L !== this.shape.L || H !== this.shape.H || kv !== this.shape.kv) this.build(L, H, kv);
    this.label(d, kv);
    const size = this.tileSize(d);
    if (size !== this.size) {
      this.size = size;
      this.element.style.setProperty('--tile', `${size}px`);
    }
    this.select(d.selected);
    this.paint(false);
  }

  /** Repaints every tile (the theme or the device pixel ratio changed). */
  redraw(): void {
    if (this.data) this.paint(true);
  }

  /** The group of query head h when `kv` key/value heads are shared (h // (H / kv), the
   *  order every grouped-query model uses), or -1 without groups. */
  private static group(h: number, H: number, kv: number): number {
    return kv ? Math.floor(h / (H / kv)) : -1;
  }

  private build(L: number, H: number, kv: number): void {
    this.shape = { L, H, kv };
    this.element.classList.toggle('kv-grouped', kv > 0);
    // Grouped: a narrow spacer column between groups sets them apart.
    const cols: string[] = ['auto'];
    for (let h = 0; h < H; h++) {
      if (kv && h > 0 && LayerHeadGrid.group(h, H, kv) !== LayerHeadGrid.group(h - 1, H, kv)) cols.push(`${GROUP_GAP - 4}px`);
      cols.push('var(--tile)');
    }
    this.element.style.gridTemplateColumns = kv ? cols.join(' ') : `auto repeat(${H}, var(--tile))`;
    const cells: HTMLElement[] = [];
    const spacer = () => {
      const s = document.createElement('span');
      s.className = 'lh-gap';
      s.setAttribute('aria-hidden', 'true');
      return s;
    };
    const startsGroup = (h: number) => kv > 0 && h > 0 && LayerHeadGrid.group(h, H, kv) !== LayerHeadGrid.group(h - 1, H, kv);
    this.groupBands = [];
    if (kv) {
      // One band per key/value head over the query heads that read it.
      cells.push(document.createElement('span'));
      const per = H / kv;
      for (let g = 0; g < kv; g++) {
        if (g > 0) cells.push(spacer());
        const band = document.createElement('span');
        band.className = 'lh-kv';
        band.dataset.kv = String(g);
        band.style.gridColumn = `span ${per}`;
        this.groupBands.push(band);
        cells.push(band);
      }
    }
    cells.push(document.createElement('span'));
    for (let h = 0; h < H; h++) {
      if (startsGroup(h)) cells.push(spacer());
      const s = document.createElement('span');
      s.className = 'lh-col';
      s.textContent = `H${h + 1}`;
      cells.push(s);
    }
    this.buttons = [];
    this.canvases = [];
    this.painted = [];
    this.rowLabels = [];
    for (let l = 0; l < L; l++) {
      const s = document.createElement('span');
      s.className = 'lh-row';
      s.textContent = `L${l + 1}`;
      this.rowLabels.push(s);
      cells.push(s);
      const row: HTMLButtonElement[] = [], crow: HTMLCanvasElement[] = [], prow: Painted[] = [];
      for (let h = 0; h < H; h++) {
        if (startsGroup(h)) cells.push(spacer());
        const b = document.createElement('button');
        b.type = 'button';
        b.className = 'lh-tile';
        bindAttr(b, 'aria-label', () => t('w.gridTile', { layer: l + 1, head: h + 1 }) +
          (kv ? ` (${t('w.gridKvTile', { kv: LayerHeadGrid.group(h, H, kv) + 1 })})` : ''));
        if (kv) b.dataset.kv = String(LayerHeadGrid.group(h, H, kv));
        b.dataset.layer = String(l);
        b.dataset.head = String(h);
        const c = document.createElement('canvas');
        c.setAttribute('aria-hidden', 'true');
        b.append(c);
        b.addEventListener('click', () => this.onOpen(l, h));
        b.addEventListener('keydown', (e) => this.onKey(e, l, h));
        row.push(b);
        crow.push(c);
        prow.push({ probs: null, masked: null, rows: 0, cols: 0, px: 0, theme: '' });
        cells.push(b);
      }
      this.buttons.push(row);
      this.canvases.push(crow);
      this.painted.push(prow);
    }
    this.element.replaceChildren(...cells);
  }

  /** The KV bands' and layer marks' text (in the page's language: redone on each update). */
  private label(d: LayerHeadData, kv: number): void {
    const per = kv ? d.heads / kv : 0;
    this.groupBands.forEach((band, g) => {
      band.textContent = t('w.gridKv', { kv: g + 1 });
      band.title = t('w.gridKvTitle', { from: g * per + 1, to: (g + 1) * per, kv: g + 1 });
    });
    this.rowLabels.forEach((s, l) => {
      const note = d.layerNotes?.[l] ?? null;
      const want = note ? `${l + 1}|${note.text}|${note.title}` : `${l + 1}`;
      if (s.dataset.shown === want) return;
      s.dataset.shown = want;
      s.classList.toggle('lh-local', !!note);
      if (!note) {
        s.textContent = `L${l + 1}`;
        s.removeAttribute('title');
        return;
      }
      const mark = document.createElement('span');
      mark.className = 'lh-note';
      mark.textContent = note.text;
      s.replaceChildren(document.createTextNode(`L${l + 1}`), mark);
      s.title = note.title;
    });
  }

  private select(sel: { layer: number; head: number }): void {
    this.buttons.forEach((row, l) => row.forEach((b, h) => {
      const on = sel.layer === l && sel.head === h;
      if (b.getAttribute('aria-pressed') !== String(on)) b.setAttribute('aria-pressed', String(on));
      // Roving tab stop on the selected map, unless the user is moving focus in the grid.
      if (!this.element.contains(focusedIn(this.element))) b.tabIndex = on ? 0 : -1;
    }));
  }

  private paint(force: boolean): void {
    const d = this.data!;
    const dpr = window.devicePixelRatio || 1;
    const px = Math.round(this.size * dpr);
    // The theme is read (a style recalculation) only when asked to repaint everything:
    // the page calls redraw() when the colour scheme changes.
    if (force || !this.theme || !this.theme.connected) {
      const theme = themeColours(this.element);
      // Detached, the page's CSS variables do not apply (the fallbacks are the light
      // theme's): read again once the grid is in the page (see the ResizeObserver).
      this.theme = { key: `${theme.maskBg}|${theme.maskLine}|${this.map}`, connected: this.element.isConnected,
                     maskBg: pixelOf(theme.maskBg, [228, 228, 232]), maskLine: pixelOf(theme.maskLine, [154, 154, 164]) };
    }
    const themeKey = this.theme.key;
    const style = { lut: colormap(this.map).rgba, dpr, maskBg: this.theme.maskBg, maskLine: this.theme.maskLine };
    const T = d.rows * d.cols;
    let img: ImageData | null = null;
    this.repainted = 0;
    for (let l = 0; l < this.shape.L; l++) {
      for (let h = 0; h < this.shape.H; h++) {
        const c = this.canvases[l]![h]!, p = this.painted[l]![h]!;
        const probs = d.layers[l]!, masked = d.layerMasked?.[l] ?? d.masked ?? null;
        if (!force && p.probs === probs && p.masked === masked && p.rows === d.rows && p.cols === d.cols &&
            p.px === px && p.theme === themeKey) continue;
        if (c.width !== px || c.height !== px) {
          c.width = px;
          c.height = px;
        }
        c.style.width = c.style.height = `${this.size}px`;
        const ctx = c.getContext('2d');
        if (!ctx) continue;
        img ??= new ImageData(px, px);
        rasterize(img, { values: probs, offset: h * T, rows: d.rows, cols: d.cols, masked }, style);
        ctx.putImageData(img, 0, 0);
        Object.assign(p, { probs, masked, rows: d.rows, cols: d.cols, px, theme: themeKey });
        this.repainted++;
      }
    }
  }

  private onKey(e: KeyboardEvent, l: number, h: number): void {
    const moves: Record<string, [number, number]> = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    const m = moves[e.key];
    if (!m) return;
    e.preventDefault();
    const L = this.buttons.length, H = this.buttons[0]?.length ?? 0;
    const nl = Math.max(0, Math.min(L - 1, l + m[0])), nh = Math.max(0, Math.min(H - 1, h + m[1]));
    const b = this.buttons[nl]?.[nh];
    if (!b) return;
    this.buttons.flat().forEach((x) => (x.tabIndex = -1));
    b.tabIndex = 0;
    b.focus();
  }
}
