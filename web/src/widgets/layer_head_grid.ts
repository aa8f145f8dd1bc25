// Layer × head grid ("model view"): every attention map of a model as a small picture,
// one row per layer and one column per head, on one colour scale. Each picture is a
// button: pressing it (or Enter on it) opens that head. Arrow keys move between heads.
//
// Legend: L layers, H heads, Tq queries, Tk keys.
import { colormap, type ColormapName } from './colormap';
import { hatchPattern, themeColours } from './theme';

export interface LayerHeadData {
  layers: Float32Array[];        // L × (H, Tq, Tk)
  heads: number;
  rows: number;                  // Tq
  cols: number;                  // Tk
  masked?: Float32Array | null;  // (Tq, Tk) non-zero = masked
  selected: { layer: number; head: number };
}

export class LayerHeadGrid {
  readonly element: HTMLElement;
  private buttons: HTMLButtonElement[][] = [];
  private data: LayerHeadData | null = null;

  constructor(private readonly onOpen: (layer: number, head: number) => void, private readonly map: ColormapName = 'viridis') {
    this.element = document.createElement('div');
    this.element.className = 'layer-head-grid';
    this.element.setAttribute('role', 'group');
    this.element.setAttribute('aria-label', 'Every attention map: rows are layers, columns are heads');
  }

  update(d: LayerHeadData): void {
    this.data = d;
    const L = d.layers.length, H = d.heads;
    const size = Math.max(36, Math.min(88, Math.floor(560 / Math.max(H, 1))));
    this.element.style.setProperty('--tile', `${size}px`);
    this.element.style.gridTemplateColumns = `auto repeat(${H}, var(--tile))`;
    const cells: HTMLElement[] = [document.createElement('span')];
    for (let h = 0; h < H; h++) {
      const s = document.createElement('span');
      s.className = 'lh-col';
      s.textContent = `H${h + 1}`;
      cells.push(s);
    }
    this.buttons = [];
    for (let l = 0; l < L; l++) {
      const s = document.createElement('span');
      s.className = 'lh-row';
      s.textContent = `L${l + 1}`;
      cells.push(s);
      const row: HTMLButtonElement[] = [];
      for (let h = 0; h < H; h++) {
        const b = document.createElement('button');
        b.type = 'button';
        b.className = 'lh-tile';
        b.setAttribute('aria-label', `layer ${l + 1} head ${h + 1}`);
        b.setAttribute('aria-pressed', String(d.selected.layer === l && d.selected.head === h));
        b.tabIndex = d.selected.layer === l && d.selected.head === h ? 0 : -1;
        const c = document.createElement('canvas');
        c.setAttribute('aria-hidden', 'true');
        b.append(c);
        b.addEventListener('click', () => this.onOpen(l, h));
        b.addEventListener('keydown', (e) => this.onKey(e, l, h));
        this.draw(c, d.layers[l]!, h, size);
        row.push(b);
        cells.push(b);
      }
      this.buttons.push(row);
    }
    this.element.replaceChildren(...cells);
  }

  private draw(canvas: HTMLCanvasElement, probs: Float32Array, h: number, size: number): void {
    const d = this.data!;
    const { rows, cols } = d;
    const dpr = window.devicePixelRatio || 1;
    canvas.width = Math.round(size * dpr);
    canvas.height = Math.round(size * dpr);
    canvas.style.width = canvas.style.height = `${size}px`;
    const ctx = canvas.getContext('2d');
    if (!ctx) return;
    const img = new ImageData(Math.max(cols, 1), Math.max(rows, 1));
    const cm = colormap(this.map);
    for (let i = 0; i < rows * cols; i++) {
      const k = Math.max(0, Math.min(255, Math.round(probs[h * rows * cols + i]! * 255))) * 3;
      img.data.set([cm.rgb[k]!, cm.rgb[k + 1]!, cm.rgb[k + 2]!, 255], i * 4);
    }
    const bitmap = document.createElement('canvas');
    bitmap.width = img.width;
    bitmap.height = img.height;
    bitmap.getContext('2d')?.putImageData(img, 0, 0);
    ctx.imageSmoothingEnabled = false;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.drawImage(bitmap, 0, 0, size, size);
    if (d.masked) {
      ctx.fillStyle = hatchPattern(ctx, themeColours(this.element));
      const cw = size / cols, ch = size / rows;
      ctx.beginPath();
      for (let r = 0; r < rows; r++)
        for (let c = 0; c < cols; c++) if (d.masked[r * cols + c] !== 0) ctx.rect(c * cw, r * ch, cw, ch);
      ctx.fill();
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

  redraw(): void {
    if (this.data) this.update(this.data);
  }
}
