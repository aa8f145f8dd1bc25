// The pages' languages: English and Simplified Chinese. A small typed catalogue (no
// library): `t(key, params)` looks the key up in the current locale's messages
// (messages/en.ts is the shape; messages/zh-CN.ts must have every key, or tsc fails),
// fills `{name}` placeholders and picks a plural form by `count` with Intl.PluralRules
// (English "1 token" / "9 tokens"; Chinese has one form).
//
// The locale comes from, in order: the URL's `?lang=`, the choice saved in localStorage
// by the switcher, navigator.languages (any zh* → zh-CN), else English. Switching sets
// <html lang>, saves the choice, keeps `lang` in the URL, re-applies the static text
// (elements marked data-i18n / data-i18n-attr, and elements bound with bindText /
// bindAttr) and fires a `localechange` event on window so the page re-renders the text
// it builds in TypeScript — nothing is reloaded, the engine and its model stay as they are.
//
// Markup:
//   <h1 data-i18n="play.title">Transformer playground</h1>
//   <input data-i18n-attr="placeholder:lab.words;aria-label:lab.wordsLabel">
//   <p id="status" data-i18n-initial="common.starting">  (translated on load only: the
//                                                         page rewrites it later)
// The English in the HTML is what shows before the script runs (and with no script).
import { en, type PluralForms } from './messages/en';
import { zhCN } from './messages/zh-CN';

export const LOCALES = ['en', 'zh-CN'] as const;
export type Locale = (typeof LOCALES)[number];
export type MessageKey = keyof typeof en;
export type Params = Record<string, string | number>;
/** Text a widget shows: fixed, or computed at render time (so it follows the locale). */
export type Label = string | (() => string);

const CATALOG: Record<Locale, Record<MessageKey, string | PluralForms>> = { en, 'zh-CN': zhCN };
/** The endonyms the switcher lists (never translated). */
export const LOCALE_NAMES: Record<Locale, string> = { en: 'English', 'zh-CN': '简体中文' };
const STORAGE_KEY = 'tfp.lang';

/** A locale tag (from the URL, storage or the browser) as one of ours, or null. */
export function matchLocale(tag: string | null | undefined): Locale | null {
  if (!tag) return null;
  const t = tag.trim().toLowerCase();
  if (t.startsWith('zh')) return 'zh-CN';
  if (t === 'en' || t.startsWith('en-')) return 'en';
  return null;
}

function storedLocale(): Locale | null {
  try {
    return matchLocale(globalThis.localStorage?.getItem(STORAGE_KEY));
  } catch {
    return null;  // storage blocked (privacy settings): not an error
  }
}

function browserLocale(): Locale | null {
  const langs = globalThis.navigator?.languages ?? [globalThis.navigator?.language ?? ''];
  for (const l of langs) {
    const m = matchLocale(l);
    if (m) return m;
  }
  return null;
}

function urlLocale(): Locale | null {
  const search = globalThis.location?.search ?? '';
  return matchLocale(new URLSearchParams(search).get('lang'));
}

let current: Locale = urlLocale() ?? storedLocale() ?? browserLocale() ?? 'en';
/** Whether `lang` belongs in the URL: it was there, or the reader switched. */
let langInUrl = urlLocale() !== null;

export function locale(): Locale {
  return current;
}

/** Runs `fn` with `l` as the locale (an embedded element with its own lang attribute
 *  renders in it, whatever the page's); the page's locale is back when `fn` returns. */
export function inLocale<T>(l: Locale, fn: () => T): T {
  const before = current;
  current = l;
  try {
    return fn();
  } finally {
    current = before;
  }
}

/** Keys asked for that no catalogue has (tests read them; should stay empty). */
export const missingKeys = new Set<string>();

function fill(text: string, params: Params | undefined): string {
  if (!params) return text;
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
}

/** The message `key` in the current locale, placeholders filled. A plural message picks
 *  its form by `params.count`. An unknown key (only possible from untyped markup) shows
 *  the English, else the key itself, and is recorded in missingKeys. */
export function t(key: MessageKey, params?: Params): string {
  const msg = CATALOG[current][key] ?? en[key];
  if (msg === undefined) {
    missingKeys.add(String(key));
    return String(key);
  }
  if (typeof msg === 'string') return fill(msg, params);
  const n = Number(params?.['count'] ?? 0);
  const form = new Intl.PluralRules(current).select(n) as keyof PluralForms;
  return fill(msg[form] ?? msg.other, params);
}

/** The text of a Label now. */
export function label(l: Label): string {
  return typeof l === 'function' ? l() : l;
}

/** Whether `key` exists (for markup, whose keys the compiler does not see). */
export function hasKey(key: string): key is MessageKey {
  return Object.prototype.hasOwnProperty.call(en, key);
}

// ---- text bound to elements ------------------------------------------------------------
// Widgets create elements whose text never changes except with the locale (a legend's
// title, a table toggle's label). bindText/bindAttr set it now and again on every switch
// while the element lives, attached or not. Elements are held weakly: a WeakRef to find
// them, a WeakMap for what to write (its values do not keep the element alive).

type Binding = (el: Element) => void;
const bindings = new WeakMap<Element, Map<string, Binding>>();
const bound = new Set<WeakRef<Element>>();

function bind(el: Element, slot: string, apply: Binding): void {
  let slots = bindings.get(el);
  if (!slots) {
    slots = new Map();
    bindings.set(el, slots);
    bound.add(new WeakRef(el));
  }
  slots.set(slot, apply);
  apply(el);
}

/** Sets el's text to `text()` now and after every locale change. */
export function bindText(el: Element, text: () => string): void {
  bind(el, '#text', (e) => { e.textContent = text(); });
}

/** Sets attribute `attr` of el to `text()` now and after every locale change. */
export function bindAttr(el: Element, attr: string, text: () => string): void {
  bind(el, attr, (e) => e.setAttribute(attr, text()));
}

/** Sets el's text from a Label: a function is re-evaluated on every locale change. */
export function setLabelText(el: Element, l: Label): void {
  if (typeof l === 'function') bindText(el, l);
  else el.textContent = l;
}

/** Sets attribute `attr` from a Label, as setLabelText. */
export function setLabelAttr(el: Element, attr: string, l: Label): void {
  if (typeof l === 'function') bindAttr(el, attr, l);
  else el.setAttribute(attr, l);
}

/** Re-applies the bound texts (of the elements under `root` only, when given): in the
 *  current locale, so inside inLocale an element in its own language rewrites its widgets'
 *  fixed labels (they were first written in the page's). */
export function applyBindings(root?: Node): void {
  for (const ref of bound) {
    const el = ref.deref();
    if (!el) {
      bound.delete(ref);
      continue;
    }
    if (!root || root.contains(el)) bindings.get(el)?.forEach((apply) => apply(el));
  }
}

/** Applies data-i18n (text) and data-i18n-attr ("attr:key;attr:key") under `root`; with
 *  `initial`, also data-i18n-initial: text the page replaces once it runs (a status line's
 *  "Starting the engine…"), translated on load but left alone by later switches. */
export function applyMarkup(root: ParentNode = document, initial = false): void {
  const lookup = (key: string): string => {
    if (hasKey(key)) return t(key);
    missingKeys.add(key);
    return key;
  };
  const selector = initial ? '[data-i18n], [data-i18n-attr], [data-i18n-initial]' : '[data-i18n], [data-i18n-attr]';
  const els: Element[] = [];
  if (root instanceof Element && root.matches(selector)) els.push(root);
  els.push(...root.querySelectorAll(selector));
  for (const el of els) {
    const key = el.getAttribute('data-i18n') ?? (initial ? el.getAttribute('data-i18n-initial') : null);
    if (key) el.textContent = lookup(key);
    const attrs = el.getAttribute('data-i18n-attr');
    if (attrs) {
      for (const pair of attrs.split(';')) {
        const [attr, k] = pair.split(':').map((s) => s.trim());
        if (attr && k) el.setAttribute(attr, lookup(k));
      }
    }
  }
}

// ---- switching -------------------------------------------------------------------------

/** `query` (no leading "?") with the page's `lang` added when it belongs in the URL, so a
 *  page that rewrites its URL state keeps the language. */
export function withLang(query: string): string {
  if (!langInUrl) return query;
  const p = new URLSearchParams(query);
  p.set('lang', current);
  return p.toString();
}

function showLocale(initial = false): void {
  if (typeof document === 'undefined') return;
  document.documentElement.lang = current;
  applyMarkup(document, initial);
  applyBindings();
  const select = document.getElementById('lang-select') as HTMLSelectElement | null;
  if (select && select.value !== current) select.value = current;
}

/** Switches the page's language: saves it, rewrites the text, tells the page. */
export function setLocale(next: Locale): void {
  try {
    globalThis.localStorage?.setItem(STORAGE_KEY, next);
  } catch { /* storage blocked: the URL still carries it */ }
  langInUrl = true;
  const url = new URL(location.href);
  url.searchParams.set('lang', next);
  history.replaceState(history.state, '', url);
  if (next === current) return;
  current = next;
  showLocale();
  window.dispatchEvent(new CustomEvent<Locale>('localechange', { detail: next }));
}

/** Calls `render` after every locale change; returns the unsubscribe. */
export function onLocaleChange(render: (l: Locale) => void): () => void {
  const listener = (e: Event) => render((e as CustomEvent<Locale>).detail);
  window.addEventListener('localechange', listener);
  return () => window.removeEventListener('localechange', listener);
}

/** What tests (and curious users) can read: the locale, missing keys, the catalogues. */
export interface I18nDebug {
  locale(): Locale;
  setLocale(l: Locale): void;
  missing: Set<string>;
  catalogs: typeof CATALOG;
}

declare global {
  interface Window {
    tfpI18n: I18nDebug;
  }
}

/** Sets up a page: <html lang>, its marked text, the switcher (select#lang-select, filled
 *  here), and the debug handle. Safe to call more than once. */
export function initPage(): void {
  const select = document.getElementById('lang-select') as HTMLSelectElement | null;
  if (select && select.options.length === 0) {
    for (const l of LOCALES) {
      const o = new Option(LOCALE_NAMES[l], l);
      o.lang = l;
      select.add(o);
    }
    select.addEventListener('change', () => {
      const l = matchLocale(select.value);
      if (l) setLocale(l);
    });
  }
  window.tfpI18n = { locale, setLocale, missing: missingKeys, catalogs: CATALOG };
  showLocale(true);
}
