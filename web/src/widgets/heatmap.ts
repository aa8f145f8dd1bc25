// Heatmap: one (rows × cols) matrix — an attention map of queries × keys — drawn on a
// canvas with token labels, a colour-blind-safe perceptual colour map, masked cells
// hatched in grey (never confusable with a small weight), the value under the pointer
// or the keyboard cursor, and a data table with the same numbers for screen readers.
//
// Reusable by the playground and every tutorial: give it labels and a Float32Array.
//
// Drawing is split so that a redraw costs what changed: the cells are rasterised once
// per matrix / size / theme into device pixels (raster.ts: one uint32 store a pixel from
// the colour map's table, masked cells hatched) and kept as an ImageData; moving the
// pointer or the keyboard cursor only puts that image back and redraws the labels and
// the cursor. Label widths are measured once per label set.
import { bindText, label, t, type Label } from '../i18n/i18n';
import { colormap, pixelOf, type ColormapName } from './colormap';
import { DataTableToggle } from './data_table';
import { rasterize } from './raster';
import { themeColours, type ThemeColours } from './theme';

export interface HeatmapData {
  rowLabels: string[];           // (rows) e.g. query tokens
  colLabels: string[];           // (cols) e.g. key tokens
  values: Float32Array;          // (rows, cols) row-major
  masked?: Float32Array | null;  // (rows, cols) non-zero = masked; null = nothing masked
  domain?: [number, number];     // colour scale; default [0, 1]
  selectedRow?: number | null;   // the picked row (e.g. the query token): label and edge marked
  selectedCol?: number | null;   // the picked column (e.g. a highlighted key)
  rowHints?: string[];           // (rows) more about each row, in the tooltip and readout
}

export interface HeatmapOptions {
  title: string;                 // the accessible name, also shown as the caption
  rowAxis?: Label;               // "query" (a function: follows the page's language)
  colAxis?: Label;               // "key"
  colormap?: ColormapName;
  maxCell?: number;              // largest cell edge in CSS px
  digits?: number;               // decimals in the readout, table and in-cell text
  /** Called when a cell or a row label is pressed (col null), or Enter / Space on the
   *  keyboard cursor: the page picks that row's token. */
  onSelect?: ((row: number, col: number | null) => void) | null;
}

const MIN_CELL = 3;
const LABEL_MAX_CHARS = 12;

function shorten(s: string): string {
  return s.length > LABEL_MAX_CHARS ? s.slice(0, LABEL_MAX_CHARS - 1) + '…' : s;
}

let nextId = 0;

export class Heatmap {
  readonly element: HTMLElement;
  private readonly canvas: HTMLCanvasElement;
  private readonly tooltip: HTMLElement;
  private readonly readout: HTMLElement;
  private readonly table: DataTableToggle;
  private readonly caption: HTMLElement;
  private readonly observer: ResizeObserver;
  private data: HeatmapData | null = null;
  private opts: Required<HeatmapOptions>;
  private layout = { left: 0, top: 0, cell: 0, rows: 0, cols: 0, vertical: false };
  private cursor: { r: number; c: number } | null = null;
  private painted: HeatmapData | null = null;
  private hover: { r: number; c: number } | null = null;
  private width = 0;
  private theme: ThemeColours | null = null;
  /** The cells as device pixels, and what they were painted from. */
  private cells: { img: ImageData; key: string; x: number; y: number } | null = null;
  private labelWidths: { rows: string[]; cols: string[]; font: string; rowW: number; colW: number } | null = null;
  /** Full rasterisations so far (tests: a cursor move must not add one). */
  rasterCount = 0;

  constructor(options: HeatmapOptions) {
    this.opts = { rowAxis: () => t('w.query'), colAxis: () => t('w.key'), colormap: 'viridis', maxCell: 44, digits: 3,
                  onSelect: null, ...options };
    const id = `heatmap-${nextId++}`;
    this.element = document.createElement('figure');
    this.element.className = 'heatmap';
    this.caption = document.createElement('figcaption');
    this.caption.id = `${id}-caption`;
    this.canvas = document.createElement('canvas');
    this.canvas.tabIndex = 0;
    this.canvas.setAttribute('role', 'img');
    this.canvas.setAttribute('aria-labelledby', this.caption.id);
    this.canvas.setAttribute('aria-describedby', `${id}-readout`);
    const frame = document.createElement('div');
    frame.className = 'heatmap-frame';
    this.tooltip = document.createElement('div');
    this.tooltip.className = 'heatmap-tooltip';
    this.tooltip.hidden = true;
    this.readout = document.createElement('p');
    this.readout.className = 'heatmap-readout';
    this.readout.id = `${id}-readout`;
    this.readout.setAttribute('aria-live', 'polite');
    this.table = new DataTableToggle(() => t('w.theMap'), (host) => this.renderTable(host));
    this.table.element.classList.add('heatmap-table');
    frame.append(this.canvas, this.tooltip);
    // Which way to read it, beside every map (the site's convention: rows are queries).
    const axes = document.createElement('p');
    axes.className = 'heatmap-axes';
    bindText(axes, () => t('w.axes', { rowAxis: label(this.opts.rowAxis), colAxis: label(this.opts.colAxis) }));
    this.element.append(this.caption, axes, frame, this.readout, this.table.element);

    this.canvas.addEventListener('pointermove', (e) => this.onPointer(e));
    this.canvas.addEventListener('pointerleave', () => this.setHover(null, 0, 0));
    this.canvas.addEventListener('keydown', (e) => this.onKey(e));
    this.canvas.addEventListener('click', (e) => this.onClick(e));
    if (this.opts.onSelect) this.canvas.classList.add('selectable');
    this.canvas.addEventListener('focus', () => {
      if (!this.cursor && this.data) this.setCursor({ r: 0, c: 0 });
    });
    this.observer = new ResizeObserver((entries) => {
      const w = Math.round(entries[0]?.contentRect.width ?? 0) + 8;  // + the frame's padding
      if (w > 8 && Math.abs(w - this.width) >= 1) {
        this.width = w;
        this.draw();
      }
    });
    this.observer.observe(frame);
    this.setTitle(options.title);
  }

  setTitle(title: string): void {
    this.opts.title = title;
    this.caption.textContent = title;
  }

  /** Replaces the matrix and redraws. */
  update(data: HeatmapData): void {
    const rows = data.rowLabels.length, cols = data.colLabels.length;
    if (data.values.length !== rows * cols)
      throw new Error(`heatmap: ${data.values.length} values for ${rows} × ${cols} labels`);
    if (data.masked && data.masked.length !== rows * cols)
      throw new Error(`heatmap: mask has ${data.masked.length} entries for ${rows} × ${cols}`);
    this.data = data;
    if (this.cursor && (this.cursor.r >= rows || this.cursor.c >= cols)) this.cursor = null;
    this.table.fitPage(rows);
    this.hover = null;
    this.tooltip.hidden = true;
    this.draw();
    this.updateReadout();
    this.table.refresh();
  }

  /** Redraws with the current theme (call when prefers-color-scheme changes). */
  redraw(): void {
    this.theme = null;
    this.labelWidths = null;
    this.draw();
  }

  /** The data-table toggle (tests, and pages that want to open it). */
  get dataTable(): DataTableToggle {
    return this.table;
  }

  destroy(): void {
    this.observer.disconnect();
    this.element.remove();
  }

  private domain(): [number, number] {
    return this.data?.domain ?? [0, 1];
  }

  private isMasked(r: number, c: number): boolean {
    const m = this.data?.masked;
    return !!m && m[r * this.data!.colLabels.length + c] !== 0;
  }

  private draw(): void {
    const data = this.data;
    const ctx = this.canvas.getContext('2d');
    if (!data || !ctx) return;
    // Reading the theme recalculates style: once, then on redraw() (theme change).
    // Detached, the page's CSS variables do not apply: not kept (the ResizeObserver
    // draws again when the map enters the page).
    const theme = this.theme ?? themeColours(this.element);
    if (this.element.isConnected) this.theme = theme;
    const rows = data.rowLabels.length, cols = data.colLabels.length;
    const font = `12px ${theme.font}`;
    let lw = this.labelWidths;
    if (!lw || lw.rows !== data.rowLabels || lw.cols !== data.colLabels || lw.font !== font) {
      ctx.font = font;
      const textW = (s: string) => ctx.measureText(shorten(s)).width;
      lw = this.labelWidths = { rows: data.rowLabels, cols: data.colLabels, font,
                                rowW: Math.ceil(Math.max(0, ...data.rowLabels.map(textW))),
                                colW: Math.ceil(Math.max(0, ...data.colLabels.map(textW))) };
    }
    const left = lw.rowW + 10;
    const avail = (this.width || this.element.clientWidth || 320) - left - 12;  // frame padding
    const cell = Math.max(MIN_CELL, Math.min(this.opts.maxCell, Math.floor(avail / Math.max(cols, 1))));
    // Column labels stand upright when they are wider than a cell.
    const vertical = lw.colW + 8 > cell;  // upright labels keep a gap between them
    const top = (vertical ? lw.colW : 14) + 10;
    this.layout = { left, top, cell, rows, cols, vertical };
    // The layout, readable by tests that press a given cell or row label.
    Object.assign(this.canvas.dataset, { left: String(left), top: String(top), cell: String(cell) });

    const cssW = left + cols * cell + 2, cssH = top + rows * cell + 2;
    const dpr = window.devicePixelRatio || 1;
    const devW = Math.round(cssW * dpr), devH = Math.round(cssH * dpr);
    // Assigning a canvas size reallocates it even when equal: only on a real change.
    if (this.canvas.width !== devW || this.canvas.height !== devH) {
      this.canvas.width = devW;
      this.canvas.height = devH;
      this.canvas.style.width = `${cssW}px`;
      this.canvas.style.height = `${cssH}px`;
    }
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, cssW, cssH);

    // Cells: device pixels from the colour table, rasterised only when the matrix, the
    // size or the theme changed.
    const map = colormap(this.opts.colormap);
    const [lo, hi] = this.domain();
    const x = Math.round(left * dpr), y = Math.round(top * dpr);
    const w = Math.max(1, Math.round((left + cols * cell) * dpr) - x), h = Math.max(1, Math.round((top + rows * cell) * dpr) - y);
    const key = `${w}x${h}@${dpr}|${lo},${hi}|${this.opts.colormap}|${theme.maskBg}|${theme.maskLine}`;
    const c = this.cells;
    if (!c || c.key !== key || this.painted !== data) {
      const img = c && c.img.width === w && c.img.height === h ? c.img : new ImageData(w, h);
      rasterize(img, { values: data.values, rows, cols, masked: data.masked ?? null, domain: [lo, hi] },
                { lut: map.rgba, dpr, maskBg: pixelOf(theme.maskBg, [228, 228, 232]), maskLine: pixelOf(theme.maskLine, [154, 154, 164]) });
      this.cells = { img, key, x, y };
      this.painted = data;
      this.rasterCount++;
    }
    if (rows > 0 && cols > 0) ctx.putImageData(this.cells!.img, x, y);

    // Values inside large cells.
    if (cell >= 34) {
      ctx.font = `${Math.min(12, Math.floor(cell / 3.2))}px ${theme.font}`;
      ctx.textAlign = 'center';
      ctx.textBaseline = 'middle';
      for (let r = 0; r < rows; r++)
        for (let c = 0; c < cols; c++) {
          if (this.isMasked(r, c)) continue;
          const v = data.values[r * cols + c]!;
          ctx.fillStyle = map.luminance(v, lo, hi) > 0.3 ? '#000' : '#fff';
          ctx.fillText(v.toFixed(2), left + (c + 0.5) * cell, top + (r + 0.5) * cell);
        }
    }

    // Labels; the hovered or focused row and column are emphasised. Small cells get a
    // smaller font, and only when even 9 px would overlap are labels skipped.
    const active = this.cursor ?? this.hover;
    const labelPx = Math.max(9, Math.min(12, cell - 1));
    ctx.font = `${labelPx}px ${theme.font}`;
    ctx.textBaseline = 'middle';
    ctx.textAlign = 'right';
    const labelStep = Math.ceil((labelPx + 1) / cell);
    const selR = data.selectedRow ?? null, selC = data.selectedCol ?? null;
    const plain = ctx.font, bold = `700 ${plain}`;
    for (let r = 0; r < rows; r++) {
      if (r % labelStep !== 0 && active?.r !== r && selR !== r) continue;
      ctx.fillStyle = active?.r === r || selR === r ? theme.focus : theme.fg;
      ctx.font = selR === r ? bold : plain;
      ctx.fillText(shorten(data.rowLabels[r]!), left - 6, top + (r + 0.5) * cell);
    }
    ctx.font = plain;
    // The picked row and column: a bar along the cells' edge, in the focus colour.
    ctx.fillStyle = theme.focus;
    if (selR !== null && selR < rows) ctx.fillRect(left - 4, top + selR * cell, 3, cell);
    if (selC !== null && selC < cols) ctx.fillRect(left + selC * cell, top - 4, cell, 3);
    for (let c = 0; c < cols; c++) {
      if (c % labelStep !== 0 && active?.c !== c && selC !== c) continue;
      ctx.fillStyle = active?.c === c || selC === c ? theme.focus : theme.fg;
      const x = left + (c + 0.5) * cell;
      if (vertical) {
        ctx.save();
        ctx.translate(x, top - 6);
        ctx.rotate(-Math.PI / 2);
        ctx.textAlign = 'left';
        ctx.fillText(shorten(data.colLabels[c]!), 0, 0);
        ctx.restore();
      } else {
        ctx.textAlign = 'center';
        ctx.fillText(shorten(data.colLabels[c]!), x, top - 10);
      }
    }

    if (active) {
      ctx.strokeStyle = theme.focus;
      ctx.lineWidth = 2;
      ctx.strokeRect(left + active.c * cell + 1, top + active.r * cell + 1, cell - 2, cell - 2);
    }
  }

  private describe(r: number, c: number): string {
    const d = this.data!;
    const v = this.isMasked(r, c) ? t('w.masked') : d.values[r * d.colLabels.length + c]!.toFixed(this.opts.digits);
    const hint = d.rowHints?.[r];
    return t('w.cell', { rowAxis: label(this.opts.rowAxis), row: r + 1, rowLabel: d.rowLabels[r]!,
                         colAxis: label(this.opts.colAxis), col: c + 1, colLabel: d.colLabels[c]!, value: v }) +
      (hint ? ` (${hint})` : '');
  }

  private cellAt(e: PointerEvent): { r: number; c: number } | null {
    const rect = this.canvas.getBoundingClientRect();
    const { left, top, cell, rows, cols } = this.layout;
    const c = Math.floor((e.clientX - rect.left - left) / cell);
    const r = Math.floor((e.clientY - rect.top - top) / cell);
    return r >= 0 && r < rows && c >= 0 && c < cols ? { r, c } : null;
  }

  /** A press on a cell picks its row and column; on a row label, its row. */
  private onClick(e: MouseEvent): void {
    const pick = this.opts.onSelect;
    if (!pick || !this.data) return;
    const rect = this.canvas.getBoundingClientRect();
    const { left, top, cell, rows, cols } = this.layout;
    const x = e.clientX - rect.left, y = e.clientY - rect.top;
    const r = Math.floor((y - top) / cell), c = Math.floor((x - left) / cell);
    if (r < 0 || r >= rows) return;
    if (x < left) pick(r, null);
    else if (c >= 0 && c < cols) pick(r, c);
  }

  private onPointer(e: PointerEvent): void {
    const rect = this.canvas.getBoundingClientRect();
    this.setHover(this.cellAt(e), e.clientX - rect.left, e.clientY - rect.top);
  }

  private setHover(at: { r: number; c: number } | null, x: number, y: number): void {
    const same = at && this.hover && at.r === this.hover.r && at.c === this.hover.c;
    this.hover = at;
    if (!at) {
      this.tooltip.hidden = true;
    } else {
      this.tooltip.textContent = this.describe(at.r, at.c);
      this.tooltip.hidden = false;
      // Keep the tooltip inside the frame: flip to the left of the pointer near the edge.
      const w = this.tooltip.offsetWidth;
      const frameW = this.canvas.parentElement?.clientWidth ?? 0;
      this.tooltip.style.left = `${x + 14 + w > frameW ? Math.max(0, x - 14 - w) : x + 14}px`;
      this.tooltip.style.top = `${y + 14}px`;
    }
    if (!same) {
      this.draw();
      this.updateReadout();
    }
  }

  private setCursor(at: { r: number; c: number } | null): void {
    this.cursor = at;
    this.draw();
    this.updateReadout();
    // An open table follows the cursor: its page of rows, its cell marked.
    if (this.table.isOpen && !(at && this.table.showRow(at.r))) {
      this.table.host.querySelector('td.cursor')?.classList.remove('cursor');
      if (at) {
        const tr = this.table.host.querySelectorAll('tbody tr')[at.r - this.table.pageOf(this.data?.rowLabels.length ?? 0).from];
        tr?.querySelectorAll('td')[at.c]?.classList.add('cursor');
      }
    }
  }

  private updateReadout(): void {
    if (!this.data) return;
    const at = this.cursor ?? this.hover;
    // Idle, the hint is for screen readers only (four maps would repeat it four times).
    this.readout.classList.toggle('idle', !at);
    this.readout.textContent = at
      ? this.describe(at.r, at.c)
      : t('w.mapHint', { rows: this.data.rowLabels.length, cols: this.data.colLabels.length });
  }

  private onKey(e: KeyboardEvent): void {
    if (!this.data) return;
    const { rows, cols } = this.layout;
    const at = this.cursor ?? { r: 0, c: 0 };
    const moves: Record<string, [number, number]> = {
      ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1],
    };
    let next: { r: number; c: number } | null = null;
    if (e.key in moves) {
      const [dr, dc] = moves[e.key]!;
      next = { r: Math.max(0, Math.min(rows - 1, at.r + dr)), c: Math.max(0, Math.min(cols - 1, at.c + dc)) };
    } else if (e.key === 'Home') next = { r: at.r, c: 0 };
    else if (e.key === 'End') next = { r: at.r, c: cols - 1 };
    else if (e.key === 'Escape') {
      this.setCursor(null);
      return;
    } else if ((e.key === 'Enter' || e.key === ' ') && this.opts.onSelect) {
      e.preventDefault();
      this.opts.onSelect(at.r, at.c);
      return;
    } else return;
    e.preventDefault();
    this.setCursor(next);
  }

  /** The table of one page of rows (data_table.ts: TABLE_PAGE_ROWS rows a page): row headers are
   *  the query tokens, column headers the key tokens, values to `digits` decimals. */
  private renderTable(host: HTMLElement): void {
    if (!this.data) return;
    const d = this.data;
    const rows = d.rowLabels.length, cols = d.colLabels.length;
    const pg = this.table.pageOf(rows);
    const { pages, from: r0, to: r1 } = pg;
    const parts: HTMLElement[] = [];
    const rowAxis = label(this.opts.rowAxis), colAxis = label(this.opts.colAxis);
    const pager = this.table.pager(pg, rowAxis);
    if (pager) parts.push(pager);
    const table = document.createElement('table');
    const cap = document.createElement('caption');
    cap.textContent = pages > 1
      ? t('w.tableCaptionPaged', { title: this.opts.title, rowAxis, colAxis, from: r0 + 1, to: r1, rows })
      : t('w.tableCaption', { title: this.opts.title, rowAxis, colAxis });
    table.append(cap);
    const thead = table.createTHead().insertRow();
    const corner = document.createElement('th');
    corner.textContent = t('w.tableCorner', { rowAxis, colAxis });
    thead.append(corner);
    d.colLabels.forEach((label, c) => {
      const th = document.createElement('th');
      th.scope = 'col';
      th.textContent = `${c + 1} ${label}`;
      thead.append(th);
    });
    const body = table.createTBody();
    const at = this.cursor;
    for (let r = r0; r < r1; r++) {
      const tr = body.insertRow();
      const th = document.createElement('th');
      th.scope = 'row';
      th.textContent = `${r + 1} ${d.rowLabels[r]}`;
      tr.append(th);
      for (let c = 0; c < cols; c++) {
        const td = tr.insertCell();
        if (this.isMasked(r, c)) {
          td.textContent = t('w.masked');
          td.className = 'masked';
        } else {
          td.textContent = d.values[r * cols + c]!.toFixed(this.opts.digits);
        }
        if (at && at.r === r && at.c === c) td.classList.add('cursor');
      }
    }
    parts.push(table);
    host.replaceChildren(...parts);
  }
}
