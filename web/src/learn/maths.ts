// Formulas in the Learn pages: KaTeX, with one macro that ties a symbol to live values.
//   \sym{Q}{Q}        renders Q as <span data-sym="Q">, which linkSymbols() connects to
//                     every other element with data-sym="Q" (the Q matrix of the figure):
//                     pointing at or focusing either marks both (class sym-hot).
// Prose strings are HTML with $inline$ and $$display$$ maths (\$ for a dollar sign).
import katex from 'katex';
import 'katex/dist/katex.min.css';

const MACROS = { '\\sym': '\\htmlData{sym=#1}{#2}' } as const;

/** The HTML of one formula. Errors render in red in place (never throw). */
export function texHtml(src: string, display = false): string {
  return katex.renderToString(src, {
    displayMode: display,
    throwOnError: false,
    output: 'htmlAndMathml',
    // Only \htmlData is trusted: it adds data-sym, nothing that runs or loads.
    trust: (ctx) => ctx.command === '\\htmlData',
    strict: 'ignore',
    macros: { ...MACROS },  // a copy: KaTeX writes \gdef'd macros into it
  });
}

/** Prose HTML with its $…$ and $$…$$ rendered. */
export function proseHtml(html: string): string {
  return html
    .replace(/\$\$([\s\S]+?)\$\$/g, (_, src: string) => texHtml(src, true))
    .replace(/(^|[^\\])\$([^$]+?)\$/g, (_, before: string, src: string) => before + texHtml(src, false))
    .replace(/\\\$/g, '$');
}

/** Makes the formula's symbols reachable by keyboard and names them for screen readers. */
export function focusableSymbols(root: ParentNode): void {
  root.querySelectorAll<HTMLElement>('.katex [data-sym]').forEach((el) => {
    el.tabIndex = 0;
    el.classList.add('sym');
  });
}

function setHot(sym: string | null): void {
  document.querySelectorAll('.sym-hot').forEach((e) => e.classList.remove('sym-hot'));
  if (!sym) return;
  document.querySelectorAll(`[data-sym="${CSS.escape(sym)}"]`).forEach((e) => e.classList.add('sym-hot'));
}

let linked = false;
/** Pointing at or focusing an element with data-sym marks every element with the same
 *  symbol (formula and figure alike). Once per page. */
export function linkSymbols(): void {
  if (linked) return;
  linked = true;
  const symOf = (t: EventTarget | null) => (t instanceof Element ? t.closest<HTMLElement>('[data-sym]')?.dataset.sym ?? null : null);
  document.addEventListener('pointerover', (e) => setHot(symOf(e.target)));
  document.addEventListener('focusin', (e) => setHot(symOf(e.target)));
  document.addEventListener('focusout', () => setHot(null));
}
