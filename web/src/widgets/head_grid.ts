// Head grid: small multiples of attention maps, one heatmap per head, on one shared
// colour scale (so heads can be compared) with one legend.
//
// Legend: H heads, T tokens.
import { t } from '../i18n/i18n';
import { ColorLegend } from './color_legend';
import type { ColormapName } from './colormap';
import { Heatmap } from './heatmap';

export interface HeadGridData {
  tokens: string[];               // (T) labels for queries and keys
  probs: Float32Array;            // (H, T, T) attention weights
  heads: number;                  // H
  masked?: Float32Array | null;   // (T, T) non-zero = masked, the same for every head
  domain?: [number, number];      // shared colour scale; default [0, 1]
  titleFor?: (head: number, heads: number) => string;
}

export class HeadGrid {
  readonly element: HTMLElement;
  private readonly grid: HTMLElement;
  private readonly legend: ColorLegend;
  private maps: Heatmap[] = [];

  constructor(private readonly colormapName: ColormapName = 'viridis') {
    this.element = document.createElement('section');
    this.element.className = 'head-grid';
    this.legend = new ColorLegend(() => t('w.attentionWeight'));
    this.grid = document.createElement('div');
    this.grid.className = 'head-grid-cells';
    this.element.append(this.legend.element, this.grid);
  }

  /** The heatmap of each head, in order (for tests and for drill-down views). */
  get heatmaps(): readonly Heatmap[] {
    return this.maps;
  }

  update(d: HeadGridData): void {
    const T = d.tokens.length, H = d.heads;
    if (d.probs.length !== H * T * T)
      throw new Error(`head grid: probs has ${d.probs.length} values, expected H·T·T = ${H}·${T}·${T}`);
    const title = d.titleFor ?? ((h: number, n: number) => t('w.headOf', { head: h + 1, heads: n }));
    while (this.maps.length > H) this.maps.pop()!.destroy();
    while (this.maps.length < H) {
      const map = new Heatmap({ title: '', colormap: this.colormapName });
      this.maps.push(map);
      this.grid.append(map.element);
    }
    this.grid.dataset.heads = String(H);
    const domain = d.domain ?? [0, 1];
    this.maps.forEach((map, h) => {
      map.setTitle(title(h, H));
      map.update({
        rowLabels: d.tokens,
        colLabels: d.tokens,
        values: d.probs.subarray(h * T * T, (h + 1) * T * T),
        masked: d.masked ?? null,
        domain,
      });
    });
    this.legend.update(domain, this.colormapName);
  }

  redraw(): void {
    this.maps.forEach((m) => m.redraw());
    this.legend.redraw();
  }
}
