// Colours the canvas widgets read from the page's CSS custom properties, so that the
// light and dark themes apply to canvases too; and the theme switch (auto / light / dark).
export interface ThemeColours {
  fg: string;
  muted: string;
  bg: string;
  focus: string;
  maskBg: string;
  maskLine: string;
  font: string;
}

// Colour properties of one hidden probe: each resolves one custom property, so one
// style computation reads up to seven of them.
const PROBE_PROPS = ['color', 'backgroundColor', 'borderTopColor', 'borderRightColor', 'borderBottomColor',
                     'borderLeftColor', 'outlineColor'] as const;

/** Colour custom properties as the browser resolves them for `el` (they hold
 *  light-dark(...) pairs, which only a computed colour resolves): name → fallback in,
 *  name → colour out. At most seven names. */
export function cssColours<K extends string>(el: Element, wanted: Record<K, string>): Record<K, string> {
  const names = Object.keys(wanted) as K[];
  const probe = document.createElement('span');
  probe.hidden = true;
  names.forEach((n, i) => { probe.style[PROBE_PROPS[i]!] = `var(${n}, ${wanted[n]})`; });
  el.appendChild(probe);
  const cs = getComputedStyle(probe);
  const out = {} as Record<K, string>;
  names.forEach((n, i) => { out[n] = cs[PROBE_PROPS[i]!] || wanted[n]; });
  probe.remove();
  return out;
}

export function themeColours(el: Element): ThemeColours {
  const c = cssColours(el, { '--fg': '#1b1b1f', '--muted': '#5c5c66', '--bg': '#ffffff', '--focus': '#d9480f',
                             '--mask-bg': '#e4e4e8', '--mask-line': '#9a9aa4' });
  return {
    fg: c['--fg'], muted: c['--muted'], bg: c['--bg'], focus: c['--focus'], maskBg: c['--mask-bg'],
    maskLine: c['--mask-line'], font: getComputedStyle(el).fontFamily || 'system-ui, sans-serif',
  };
}

export type ThemeChoice = 'auto' | 'light' | 'dark';
const THEME_KEY = 'tfp-theme';
const listeners: Array<() => void> = [];
const systemDark = () => window.matchMedia('(prefers-color-scheme: dark)');

/** The theme the user chose (saved in this browser); 'auto' follows the system. */
export function themeChoice(): ThemeChoice {
  let saved: string | null = null;
  try { saved = localStorage.getItem(THEME_KEY); } catch { /* storage blocked: auto */ }
  return saved === 'light' || saved === 'dark' ? saved : 'auto';
}

export function setTheme(choice: ThemeChoice): void {
  try {
    if (choice === 'auto') localStorage.removeItem(THEME_KEY); else localStorage.setItem(THEME_KEY, choice);
  } catch { /* storage blocked: this page only */ }
  if (choice === 'auto') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = choice;
  const select = document.getElementById('theme-select') as HTMLSelectElement | null;
  if (select) select.value = choice;
  for (const f of listeners) f();
}

/** Calls `f` whenever the colours change: the user's choice or the system's scheme. */
export function onThemeChange(f: () => void): void {
  listeners.push(f);
}

/** Applies the saved choice and wires the page's #theme-select (every page's boot). */
export function initTheme(): void {
  const select = document.getElementById('theme-select') as HTMLSelectElement | null;
  select?.addEventListener('change', () => setTheme(select.value as ThemeChoice));
  systemDark().addEventListener('change', () => {
    if (themeChoice() === 'auto') for (const f of listeners) f();
  });
  setTheme(themeChoice());
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
