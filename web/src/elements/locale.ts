// An element's language: its own lang attribute or its nearest ancestor's (the page's
// <html lang>), one of the site's locales, else the page's.
import { inLocale, locale, matchLocale, type Locale } from '../i18n/i18n';

export function localeOf(el: Element): Locale {
  return matchLocale(el.closest('[lang]')?.getAttribute('lang')) ?? locale();
}

/** Runs `fn` (which renders text) in the element's language. */
export function elementLocale<T>(el: Element, fn: () => T): T {
  return inLocale(localeOf(el), fn);
}
