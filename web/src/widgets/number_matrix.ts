// A small matrix of numbers as an HTML table: the values the Learn chapters compute or
// let the reader edit (X, W_Q, Q, the scores, the softmax row, ...). Rows and columns
// carry labels ("rows are queries, columns keys" is said by the labels); cells may be
// tinted by value (the same colour maps as the heatmaps, text contrast chosen from the
// colour's luminance). Editable cells take a typed number (Enter or leaving the cell
// commits), ArrowUp/ArrowDown nudge by `step` (Shift: ×10), and a vertical drag on the
// cell changes it continuously. `sym` ties the matrix to a formula's \sym{…} symbol.
import { label as labelText, setLabelAttr, setLabelText, type Label } from '../i18n/i18n';
import { colormap, type ColormapName } from './colormap';
import { focusedIn } from './dom';

export interface NumberMatrixOptions {
  /** What the matrix is ("Q = X W_Q (3 × 4)"): its caption and accessible name. */
  label: Label;
  /** Formula symbol this matrix stands for (data-sym). */
  sym?: string;
  rowLabels?: Label[];
  colLabels?: Label[];
  /** What the row and column axes are ("query", "key"); shown in the corner. */
  rowAxis?: Label;
  colAxis?: Label;
  digits?: number;
  /** The text of a shown (not edited) value; default formatNumber(v, digits). */
  format?: (v: number) => string;
  editable?: boolean;
  step?: number;
  min?: number;
  max?: number;
  /** Tint cells by value: a colour map over [lo, hi], 'auto' = the values' own range. */
  heat?: { map?: ColormapName; domain?: [number, number] | 'auto' | 'symmetric' };
  /** Called with the new values after the reader edits a cell. */
  onChange?: (values: Float32Array) => void;
}

/** Text of a value: fixed digits, with −∞, ∞ and NaN spelled as such. */
export function formatNumber(v: number, digits: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '∞';
  if (v === -Infinity) return '−∞';
  const s = v.toFixed(digits);
  return (Number(s) === 0 ? (0).toFixed(digits) : s).replace('-', '−');
}

/** An integer's digits in groups of three (1071872 → "1,071,872" with ','): what
 *  toLocaleString('en') gives, without its first call's ~12 ms of setting up the locale's
 *  number formats (measured in a fresh Chromium page), which fell in the playground's
 *  first model load. */
export function groupDigits(v: number, separator = ','): string {
  return String(v).replace(/\B(?=(\d{3})+(?!\d))/g, separator);
}

function parseNumber(text: string): number | null {
  const s = text.trim().replace('−', '-').replace(/^-?∞$/, (m) => (m.startsWith('-') ? '-Infinity' : 'Infinity'));
  if (s === '') return null;
  const v = Number(s);
  return Number.isNaN(v) ? null : v;
}

export class NumberMatrix {
  readonly element: HTMLElement;
  private readonly table: HTMLTableElement;
  private readonly caption: HTMLTableCaptionElement;
  private data: Float32Array;
  private rowsN: number;
  private colsN: number;
  private rowLabels: Label[];
  private colLabels: Label[];
  private marked: { row: number | null; col: number | null } = { row: null, col: null };

  constructor(rows: number, cols: number, private readonly o: NumberMatrixOptions) {
    this.rowsN = rows;
    this.colsN = cols;
    this.data = new Float32Array(rows * cols);
    this.rowLabels = o.rowLabels ?? [];
    this.colLabels = o.colLabels ?? [];
    this.element = document.createElement('div');
    this.element.className = `number-matrix${o.editable ? ' editable' : ''}`;
    if (o.sym) this.element.dataset.sym = o.sym;
    this.table = document.createElement('table');
    this.caption = this.table.createCaption();
    setLabelText(this.caption, o.label);
    this.element.append(this.table);
    this.build();
  }

  get values(): Float32Array {
    return this.data.slice();
  }

  get rows(): number {
    return this.rowsN;
  }

  get cols(): number {
    return this.colsN;
  }

  /** New values (and optionally a new shape and labels); rebuilds only when the shape changed. */
  set(values: ArrayLike<number>, shape?: { rows: number; cols: number; rowLabels?: Label[]; colLabels?: Label[] }): void {
    const rows = shape?.rows ?? this.rowsN, cols = shape?.cols ?? this.colsN;
    if (values.length !== rows * cols) throw new Error(`NumberMatrix: ${values.length} values for ${rows} × ${cols}`);
    const reshaped = rows !== this.rowsN || cols !== this.colsN;
    this.rowsN = rows;
    this.colsN = cols;
    this.data = Float32Array.from(values);
    if (shape?.rowLabels) this.rowLabels = shape.rowLabels;
    if (shape?.colLabels) this.colLabels = shape.colLabels;
    if (reshaped || shape?.rowLabels || shape?.colLabels) this.build();
    else this.paint();
  }

  /** Marks one row and/or column (e.g. the query being explained); null clears. */
  mark(row: number | null, col: number | null = null): void {
    this.marked = { row, col };
    this.table.querySelectorAll('tbody tr').forEach((tr, r) => {
      tr.classList.toggle('marked', r === row);
      tr.querySelectorAll('td').forEach((td, c) => td.classList.toggle('marked', c === col));
    });
  }

  private domain(): [number, number] {
    const d = this.o.heat?.domain ?? 'auto';
    if (Array.isArray(d)) return d;
    let lo = Infinity, hi = -Infinity;
    for (const v of this.data) if (Number.isFinite(v)) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
    if (!Number.isFinite(lo)) return [0, 1];
    if (d === 'symmetric') {
      const m = Math.max(Math.abs(lo), Math.abs(hi)) || 1;
      return [-m, m];
    }
    return lo === hi ? [lo - 1, hi + 1] : [lo, hi];
  }

  private build(): void {
    this.table.querySelector('thead')?.remove();
    this.table.querySelector('tbody')?.remove();
    const head = this.table.createTHead().insertRow();
    const corner = document.createElement('th');
    corner.className = 'corner';
    if (this.o.rowAxis || this.o.colAxis) {
      setLabelText(corner, () => [this.o.rowAxis, this.o.colAxis].filter(Boolean).map((l) => labelText(l!)).join(' ╲ '));
    }
    head.append(corner);
    for (let c = 0; c < this.colsN; c++) {
      const th = document.createElement('th');
      th.scope = 'col';
      setLabelText(th, this.colLabels[c] ?? String(c + 1));
      head.append(th);
    }
    const body = this.table.createTBody();
    for (let r = 0; r < this.rowsN; r++) {
      const tr = body.insertRow();
      const th = document.createElement('th');
      th.scope = 'row';
      setLabelText(th, this.rowLabels[r] ?? String(r + 1));
      tr.append(th);
      for (let c = 0; c < this.colsN; c++) {
        const td = tr.insertCell();
        if (this.o.editable) td.append(this.input(r, c));
      }
    }
    this.paint();
    this.mark(this.marked.row, this.marked.col);
  }

  private paint(): void {
    const digits = this.o.digits ?? 2;
    const heat = this.o.heat ? colormap(this.o.heat.map ?? 'viridis') : null;
    const [lo, hi] = heat ? this.domain() : [0, 1];
    this.table.querySelectorAll('tbody tr').forEach((tr, r) => {
      tr.querySelectorAll('td').forEach((td, c) => {
        const v = this.data[r * this.colsN + c]!;
        const text = this.o.format && !this.o.editable ? this.o.format(v) : formatNumber(v, digits);
        const input = td.querySelector('input');
        if (input) {
          if (focusedIn(input) !== input) input.value = text;
        } else {
          td.textContent = text;
        }
        td.dataset.value = String(v);
        if (heat && Number.isFinite(v)) {
          td.style.background = heat.css(v, lo, hi);
          td.style.color = heat.luminance(v, lo, hi) > 0.45 ? '#111' : '#fff';
        } else {
          td.style.background = '';
          td.style.color = '';
        }
      });
    });
  }

  private input(r: number, c: number): HTMLInputElement {
    const input = document.createElement('input');
    input.type = 'text';
    input.inputMode = 'decimal';
    input.autocomplete = 'off';
    input.spellcheck = false;
    const rowName = () => labelText(this.rowLabels[r] ?? String(r + 1));
    const colName = () => labelText(this.colLabels[c] ?? String(c + 1));
    setLabelAttr(input, 'aria-label', () => `${labelText(this.o.label)}: ${rowName()}, ${colName()}`);
    const step = this.o.step ?? 0.1;
    const commit = (v: number) => {
      const lo = this.o.min ?? -Infinity, hi = this.o.max ?? Infinity;
      const x = Math.max(lo, Math.min(hi, v));
      const i = r * this.colsN + c;
      if (this.data[i] === x) return;
      this.data[i] = x;
      this.paint();
      this.o.onChange?.(this.values);
    };
    const fromInput = () => {
      const v = parseNumber(input.value);
      if (v === null) {
        input.setAttribute('aria-invalid', 'true');
        return;
      }
      input.removeAttribute('aria-invalid');
      commit(v);
    };
    input.addEventListener('change', fromInput);
    input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') {
        fromInput();
        input.select();
      } else if (e.key === 'ArrowUp' || e.key === 'ArrowDown') {
        e.preventDefault();
        const d = (e.key === 'ArrowUp' ? 1 : -1) * step * (e.shiftKey ? 10 : 1);
        const cur = this.data[r * this.colsN + c]!;
        commit(Number((cur + d).toFixed(6)));
        input.value = formatNumber(this.data[r * this.colsN + c]!, this.o.digits ?? 2);
      }
    });
    input.addEventListener('blur', () => { input.value = formatNumber(this.data[r * this.colsN + c]!, this.o.digits ?? 2); });
    // Drag up/down on the cell: one step per 4 px.
    input.addEventListener('pointerdown', (e) => {
      if (e.pointerType === 'mouse' && e.button !== 0) return;
      const y0 = e.clientY, v0 = this.data[r * this.colsN + c]!;
      let dragged = false;
      const move = (ev: PointerEvent) => {
        const steps = Math.round((y0 - ev.clientY) / 4);
        if (steps !== 0) dragged = true;
        if (dragged) {
          ev.preventDefault();
          commit(Number((v0 + steps * step).toFixed(6)));
          input.value = formatNumber(this.data[r * this.colsN + c]!, this.o.digits ?? 2);
        }
      };
      const up = () => {
        window.removeEventListener('pointermove', move);
        window.removeEventListener('pointerup', up);
      };
      window.addEventListener('pointermove', move);
      window.addEventListener('pointerup', up);
    });
    return input;
  }
}
