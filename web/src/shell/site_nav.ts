// The site's navigation, written once for every page: the page links, the theme switch
// and the language switch. Each page's HTML holds only <nav class="site-nav"
// data-current="learn"> (which link is this page) and <body data-root="../"> when the
// page sits in a folder (learn/), so the links work from any sub-path of any host.
// Called by i18n/boot.ts before the text is translated, so the links are too.
import type { MessageKey } from '../i18n/i18n';

export const PAGES = [
  { id: 'playground', href: 'index.html', key: 'nav.playground' },
  { id: 'learn', href: 'learn/index.html', key: 'nav.learn' },
  { id: 'lab', href: 'lab.html', key: 'nav.lab' },
  { id: 'train', href: 'train.html', key: 'nav.train' },
] as const satisfies readonly { id: string; href: string; key: MessageKey }[];

/** The site's root relative to this page ('' or '../'). */
export function siteRoot(): string {
  return document.body.dataset.root ?? '';
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
}

/** Fills nav.site-nav: links (the current page marked), theme and language switches. */
export function renderSiteNav(): void {
  const nav = document.querySelector<HTMLElement>('nav.site-nav');
  if (!nav || nav.childElementCount > 0) return;
  nav.setAttribute('aria-label', 'Pages');
  nav.dataset.i18nAttr = 'aria-label:nav.pages';
  const root = siteRoot();
  for (const p of PAGES) {
    const a = el('a', { href: `${root}${p.href}`, 'data-i18n': p.key });
    a.textContent = p.id;
    if (nav.dataset.current === p.id) a.setAttribute('aria-current', 'page');
    nav.append(a);
  }
  const theme = el('label', { class: 'theme-switch' });
  const themeName = el('span', { class: 'visually-hidden', 'data-i18n': 'common.theme' });
  const themeSelect = el('select', { id: 'theme-select', 'data-i18n-attr': 'title:common.theme' });
  for (const [value, key] of [['auto', 'common.themeAuto'], ['light', 'common.themeLight'], ['dark', 'common.themeDark']]) {
    themeSelect.append(el('option', { value: value!, 'data-i18n': key! }));
  }
  theme.append(themeName, themeSelect);
  const lang = el('label', { class: 'lang-switch' });
  const langName = el('span', { class: 'visually-hidden', 'data-i18n': 'common.language' });
  lang.append(langName, el('select', { id: 'lang-select', 'data-i18n-attr': 'title:common.language' }));
  nav.append(theme, lang);
}
