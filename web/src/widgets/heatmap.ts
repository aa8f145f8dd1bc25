// Heatmap: one (rows × cols) matrix — an attention map of queries × keys — drawn on a
// canvas with token labels, a colour-blind-safe perceptual colour map, masked cells
// hatched in grey (never confusable with a small weight), the value under the pointer
// or the keyboard cursor, and a data table with the same numbers for screen readers.
//
// Reusable by the playground and every tutorial: give it labels and a Float32Array.
import { colormap, type ColormapName } from './colormap';
import { hatchPattern, themeColours, type ThemeColours } from './theme';

export interface HeatmapData {
  rowLabels: string[];           // (rows) e.g. query tokens
  colLabels: string[];           // (cols) e.g. key tokens
  values: Float32Array;          // (rows, cols) row-major
  masked?: Float32Array | null;  // (rows, cols) non-zero = masked; null = nothing masked
  domain?: [number, number];     // colour scale; default [0, 1]
}

export interface HeatmapOptions {
  title: string;                 // the accessible name, also shown as the caption
  rowAxis?: string;              // "query"
  colAxis?: string;              // "key"
  colormap?: ColormapName;
  maxCell?: number;              // largest cell edge in CSS px
  digits?: number;               // decimals in the readout, table and in-cell text
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
  private readonly details: HTMLDetailsElement;
  private readonly tableHost: HTMLElement;
  private readonly caption: HTMLElement;
  private readonly observer: ResizeObserver;
  private data: HeatmapData | null = null;
  private opts: Required<HeatmapOptions>;
  private layout = { left: 0, top: 0, cell: 0, rows: 0, cols: 0, vertical: false };
  private cursor: { r: number; c: number } | null = null;
  private hover: { r: number; c: number } | null = null;
  private width = 0;

  constructor(options: HeatmapOptions) {
    this.opts = { rowAxis: 'query', colAxis: 'key', colormap: 'viridis', maxCell: 44, digits: 3, ...options };
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
    this.details = document.createElement('details');
    this.details.className = 'heatmap-table';
    const summary = document.createElement('summary');
    summary.textContent = 'Values as a table';
    this.tableHost = document.createElement('div');
    this.tableHost.className = 'table-scroll';
    this.details.append(summary, this.tableHost);
    frame.append(this.canvas, this.tooltip);
    this.element.append(this.caption, frame, this.readout, this.details);

    this.canvas.addEventListener('pointermove', (e) => this.onPointer(e));
    this.canvas.addEventListener('pointerleave', () => this.setHover(null, 0, 0));
    this.canvas.addEventListener('keydown', (e) => this.onKey(e));
    this.canvas.addEventListener('focus', () => {
      if (!this.cursor && this.data) this.setCursor({ r: 0, c: 0 });
    });
    this.details.addEventListener('toggle', () => this.renderTable());
    this.observer = new ResizeObserver(() => {
      const w = frame.clientWidth;
      if (w > 0 && Math.abs(w - this.width) >= 1) {
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
    this.hover = null;
    this.tooltip.hidden = true;
    this.draw();
    this.updateReadout();
    if (this.details.open) this.renderTable();
    else this.tableHost.replaceChildren();
  }

  /** Redraws with the current theme (call when prefers-color-scheme changes). */
  redraw(): void {
    this.draw();
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
    const theme = themeColours(this.element);
    const rows = data.rowLabels.length, cols = data.colLabels.length;
    const font = `12px ${theme.font}`;
    ctx.font = font;
    const textW = (s: string) => ctx.measureText(shorten(s)).width;
    const rowLabelW = Math.ceil(Math.max(0, ...data.rowLabels.map(textW)));
    const colLabelW = Math.ceil(Math.max(0, ...data.colLabels.map(textW)));
    const left = rowLabelW + 10;
    const avail = (this.width || this.element.clientWidth || 320) - left - 12;  // frame padding
    const cell = Math.max(MIN_CELL, Math.min(this.opts.maxCell, Math.floor(avail / Math.max(cols, 1))));
    // Column labels stand upright when they are wider than a cell.
    const vertical = colLabelW + 4 > cell;
    const top = (vertical ? colLabelW : 14) + 10;
    this.layout = { left, top, cell, rows, cols, vertical };

    const cssW = left + cols * cell + 2, cssH = top + rows * cell + 2;
    const dpr = window.devicePixelRatio || 1;
    this.canvas.width = Math.round(cssW * dpr);
    this.canvas.height = Math.round(cssH * dpr);
    this.canvas.style.width = `${cssW}px`;
    this.canvas.style.height = `${cssH}px`;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, cssW, cssH);

    // Cells: one image pixel per cell, scaled up without smoothing.
    const map = colormap(this.opts.colormap);
    const [lo, hi] = this.domain();
    const img = new ImageData(Math.max(cols, 1), Math.max(rows, 1));
    for (let i = 0; i < rows * cols; i++) {
      const t = hi > lo ? (data.values[i]! - lo) / (hi - lo) : 0;
      const k = Math.max(0, Math.min(255, Math.round(t * 255))) * 3;
      img.data.set([map.rgb[k]!, map.rgb[k + 1]!, map.rgb[k + 2]!, 255], i * 4);
    }
    const bitmap = document.createElement('canvas');
    bitmap.width = img.width;
    bitmap.height = img.height;
    bitmap.getContext('2d')?.putImageData(img, 0, 0);
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(bitmap, left, top, cols * cell, rows * cell);

    // Masked cells: hatched grey over the cell.
    if (data.masked) {
      ctx.fillStyle = hatchPattern(ctx, theme);
      ctx.beginPath();
      for (let r = 0; r < rows; r++)
        for (let c = 0; c < cols; c++) if (data.masked[r * cols + c] !== 0) ctx.rect(left + c * cell, top + r * cell, cell, cell);
      ctx.fill();
    }

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
    for (let r = 0; r < rows; r++) {
      if (r % labelStep !== 0 && active?.r !== r) continue;
      ctx.fillStyle = active?.r === r ? theme.focus : theme.fg;
      ctx.fillText(shorten(data.rowLabels[r]!), left - 6, top + (r + 0.5) * cell);
    }
    for (let c = 0; c < cols; c++) {
      if (c % labelStep !== 0 && active?.c !== c) continue;
      ctx.fillStyle = active?.c === c ? theme.focus : theme.fg;
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
    const q = `${this.opts.rowAxis} ${r + 1} “${d.rowLabels[r]}”`;
    const k = `${this.opts.colAxis} ${c + 1} “${d.colLabels[c]}”`;
    const v = this.isMasked(r, c) ? 'masked' : d.values[r * d.colLabels.length + c]!.toFixed(this.opts.digits);
    return `${q} → ${k}: ${v}`;
  }

  private cellAt(e: PointerEvent): { r: number; c: number } | null {
    const rect = this.canvas.getBoundingClientRect();
    const { left, top, cell, rows, cols } = this.layout;
    const c = Math.floor((e.clientX - rect.left - left) / cell);
    const r = Math.floor((e.clientY - rect.top - top) / cell);
    return r >= 0 && r < rows && c >= 0 && c < cols ? { r, c } : null;
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
  }

  private updateReadout(): void {
    if (!this.data) return;
    const at = this.cursor ?? this.hover;
    // Idle, the hint is for screen readers only (four maps would repeat it four times).
    this.readout.classList.toggle('idle', !at);
    this.readout.textContent = at
      ? this.describe(at.r, at.c)
      : `${this.data.rowLabels.length} by ${this.data.colLabels.length} map. Use the arrow keys to read values.`;
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
    } else return;
    e.preventDefault();
    this.setCursor(next);
  }

  private renderTable(): void {
    if (!this.details.open || !this.data) return;
    const d = this.data;
    const cols = d.colLabels.length;
    const table = document.createElement('table');
    const cap = document.createElement('caption');
    cap.textContent = `${this.opts.title} (rows: ${this.opts.rowAxis} tokens; columns: ${this.opts.colAxis} tokens)`;
    const thead = table.createTHead().insertRow();
    const corner = document.createElement('th');
    corner.textContent = `${this.opts.rowAxis} \\ ${this.opts.colAxis}`;
    thead.append(corner);
    d.colLabels.forEach((label, c) => {
      const th = document.createElement('th');
      th.scope = 'col';
      th.textContent = `${c + 1} ${label}`;
      thead.append(th);
    });
    const body = table.createTBody();
    d.rowLabels.forEach((label, r) => {
      const tr = body.insertRow();
      const th = document.createElement('th');
      th.scope = 'row';
      th.textContent = `${r + 1} ${label}`;
      tr.append(th);
      for (let c = 0; c < cols; c++) {
        const td = tr.insertCell();
        if (this.isMasked(r, c)) {
          td.textContent = 'masked';
          td.className = 'masked';
        } else {
          td.textContent = d.values[r * cols + c]!.toFixed(this.opts.digits);
        }
      }
    });
    table.prepend(cap);
    this.tableHost.replaceChildren(table);
  }
}
