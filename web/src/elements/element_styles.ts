// The elements' stylesheet, shared by every shadow root: the pages' own base styles (the
// theme's custom properties move from :root to each element's :host: a page restyles an
// element with a rule on the element itself, e.g. `tfp-attention { --accent: teal }`, which
// wins over :host; a value set further up does not reach it), plus the elements' frame.
// One constructed sheet, adopted by each element: a strict style-src needs no exception.
// The theme: the element's theme attribute, else a data-theme above it (our pages' switch;
// :host-context, where the browser has it), else the system's.
import baseCss from '../styles/base.css?inline';

const OWN = `
:host { display: block; color: var(--fg); font-family: inherit; margin: 0.5rem 0; }
:host([hidden]) { display: none; }
:host-context([data-theme="light"]) { color-scheme: light; }
:host-context([data-theme="dark"]) { color-scheme: dark; }
:host([theme="light"]) { color-scheme: light; }
:host([theme="dark"]) { color-scheme: dark; }
.frame { display: grid; gap: 0.4rem; }
.status { font-size: 0.85rem; color: var(--muted); margin: 0; min-height: 1.2em; }
.status.error { color: var(--error); }
.status:empty { display: none; }
.note { font-size: 0.8rem; color: var(--muted); margin: 0; }
.gen-output { white-space: pre-wrap; overflow-wrap: anywhere; min-height: 1.5em; margin: 0; }
.gen-prompt { color: var(--muted); }
.gen-new { background: color-mix(in srgb, var(--accent) 14%, transparent); }
.heatmap { max-width: 760px; }
button { font: inherit; font-size: 0.9rem; color: var(--fg); background: var(--bg); border: 1px solid var(--border);
  border-radius: 6px; padding: 0.3rem 0.75rem; cursor: pointer; }
button:hover:not(:disabled) { border-color: var(--accent); }
button:disabled { opacity: 0.55; cursor: default; }
button.primary { background: var(--accent); color: var(--accent-fg); border-color: var(--accent); font-weight: 600; }
`;

let sheet: CSSStyleSheet | null = null;

export function elementSheet(): CSSStyleSheet {
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheet.replaceSync(baseCss.replaceAll(':root', ':host') + OWN);
  }
  return sheet;
}
