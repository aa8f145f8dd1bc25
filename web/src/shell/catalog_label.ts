// A catalog entry's name in the page's language: kept apart from catalog.ts so that the
// catalog itself needs no i18n (the playground's entry reads it before the messages load).
import { t } from '../i18n/i18n';
import type { CatalogEntry } from './catalog';

/** An entry's name in the page's language (shipped models go by their folder name). */
export function catalogLabel(c: CatalogEntry): string {
  return c.labelKey ? t(c.labelKey) : c.label;
}
