// Colours the canvas widgets read from the page's CSS custom properties, so that the
// light and dark themes (prefers-color-scheme) apply to canvases too.
export interface ThemeColours {
  fg: string;
  muted: string;
  bg: string;
  focus: string;
  maskBg: string;
  maskLine: string;
  font: string;
}

export function themeColours(el: Element): ThemeColours {
  const cs = getComputedStyle(el);
  const v = (name: string, fallback: string) => cs.getPropertyValue(name).trim() || fallback;
  return {
    fg: v('--fg', '#1b1b1f'),
    muted: v('--muted', '#5c5c66'),
    bg: v('--bg', '#ffffff'),
    focus: v('--focus', '#d9480f'),
    maskBg: v('--mask-bg', '#e4e4e8'),
    maskLine: v('--mask-line', '#9a9aa4'),
    font: cs.fontFamily || 'system-ui, sans-serif',
  };
}

/** A diagonal-hatch fill for masked cells: grey stripes, unlike any colour-map value.
 *  In CSS pixels; the context's transform scales it for the device pixel ratio. */
export function hatchPattern(ctx: CanvasRenderingContext2D, theme: ThemeColours): CanvasPattern | string {
  const size = 6;
  const tile = document.createElement('canvas');
  tile.width = tile.height = size;
  const t = tile.getContext('2d');
  if (!t) return theme.maskBg;
  t.fillStyle = theme.maskBg;
  t.fillRect(0, 0, size, size);
  t.strokeStyle = theme.maskLine;
  t.lineWidth = 1;
  t.beginPath();
  // Two segments so the stripes join across tile edges.
  t.moveTo(0, size); t.lineTo(size, 0);
  t.moveTo(-size / 2, size / 2); t.lineTo(size / 2, -size / 2);
  t.moveTo(size / 2, size * 1.5); t.lineTo(size * 1.5, size / 2);
  t.stroke();
  return ctx.createPattern(tile, 'repeat') ?? theme.maskBg;
}
