// Numbers as the Learn chapters print them, in the page's language (Intl): fixed
// decimals for engine values, percentages, grouped integers, and list separators.
// Non-finite values read as '—' except where a chapter shows ∞/NaN on purpose
// (widgets/number_matrix.ts formatNumber).
import { locale } from '../i18n/i18n';
import { formatNumber, groupDigits } from '../widgets/number_matrix';

export const fixed = (v: number, digits = 3): string => (Number.isFinite(v) ? formatNumber(v, digits) : '—');

export const pct = (v: number, digits = 1): string => (Number.isFinite(v)
  ? new Intl.NumberFormat(locale(), { style: 'percent', minimumFractionDigits: digits, maximumFractionDigits: digits }).format(v)
  : '—');

/** Grouped digits in the page's language (12,582,912); `digits` decimals. */
export const num = (v: number, digits = 0): string =>
  new Intl.NumberFormat(locale(), { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(v);

/** A number for TeX: thousands separated by a thin space. */
export const texNum = (v: number): string => groupDigits(v, '\\,');

/** Between items of a list in running text. */
export const listSep = (): string => (locale() === 'zh-CN' ? '；' : '; ');

/** A whole number as Unicode subscript digits (s₁, q₁₂) for labels that cannot hold TeX. */
export const subscript = (n: number): string => String(n).replace(/\d/g, (d) => '₀₁₂₃₄₅₆₇₈₉'[Number(d)]!);
