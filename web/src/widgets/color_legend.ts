// A colour legend: the colour bar of a heatmap's scale with its end values, plus the
// hatched swatch that marks masked cells, so nobody reads a mask as a small weight —
// left out (option masked: false) where the view has no masked cells, e.g. the logit lens.
import { bindAttr, bindText, setLabelText, t, type Label } from '../i18n/i18n';
import { colormap, type ColormapName } from './colormap';
import { hatchPattern, themeColours } from './theme';

export class ColorLegend {
  readonly element: HTMLElement;
  private readonly bar: HTMLCanvasElement;
  private readonly lo: HTMLElement;
  private readonly hi: HTMLElement;
  private readonly swatch: HTMLCanvasElement | null;
  private readonly mask: HTMLElement | null = null;
  private name: ColormapName = 'viridis';
  private shownKey = '';

  constructor(label: Label, { masked = true }: { masked?: boolean } = {}) {
    this.element = document.createElement('div');
    this.element.className = 'color-legend';
    const title = document.createElement('span');
    title.className = 'legend-title';
    setLabelText(title, label);
    this.lo = document.createElement('span');
    this.hi = document.createElement('span');
    this.bar = document.createElement('canvas');
    this.bar.setAttribute('aria-hidden', 'true');
    const scale = document.createElement('span');
    scale.className = 'legend-scale';
    scale.append(this.lo, this.bar, this.hi);
    this.element.append(title, scale);
    this.swatch = null;
    if (masked) {
      this.swatch = document.createElement('canvas');
      this.swatch.setAttribute('aria-hidden', 'true');
      const maskText = document.createElement('span');
      bindText(maskText, () => t('w.legendMasked'));
      this.mask = document.createElement('span');
      this.mask.className = 'legend-mask';
      this.mask.append(this.swatch, maskText);
      this.element.append(this.mask);
    }
  }

  /** Shows or hides the "masked" swatch: a legend shared by several maps shows it only
   *  while the map drawn has masked cells (a causal map), not for a cross-attention map. */
  showMasked(on: boolean): void {
    if (this.mask) this.mask.hidden = !on;
  }

  /** Sets the scale; repaints only when it changed (the inspector calls this on every
   *  head switch). A theme change repaints through redraw(). */
  update(domain: [number, number], name: ColormapName = this.name): void {
    const key = `${domain[0]}|${domain[1]}|${name}`;
    if (key === this.shownKey) return;
    this.shownKey = key;
    this.name = name;
    this.lo.textContent = domain[0].toFixed(2);
    this.hi.textContent = domain[1].toFixed(2);
    bindAttr(this.element, 'aria-label', () =>
      t('w.legendLabel', { name, lo: domain[0].toFixed(2), hi: domain[1].toFixed(2) }));
    this.redraw();
  }

  redraw(): void {
    // Detached, the theme's CSS variables do not apply: draw again once in the page.
    if (!this.element.isConnected) requestAnimationFrame(() => { if (this.element.isConnected) this.redraw(); });
    const dpr = window.devicePixelRatio || 1;
    const theme = themeColours(this.element);
    const map = colormap(this.name);
    const w = 160, h = 12;
    this.bar.width = w * dpr; this.bar.height = h * dpr;
    this.bar.style.width = `${w}px`; this.bar.style.height = `${h}px`;
    const ctx = this.bar.getContext('2d');
    if (ctx) {
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      for (let x = 0; x < w; x++) {
        ctx.fillStyle = map.css(x / (w - 1), 0, 1);
        ctx.fillRect(x, 0, 1, h);
      }
    }
    if (!this.swatch) return;
    this.swatch.width = 16 * dpr; this.swatch.height = h * dpr;
    this.swatch.style.width = '16px'; this.swatch.style.height = `${h}px`;
    const sctx = this.swatch.getContext('2d');
    if (sctx) {
      sctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      sctx.fillStyle = hatchPattern(sctx, theme);
      sctx.fillRect(0, 0, 16, h);
    }
  }
}
