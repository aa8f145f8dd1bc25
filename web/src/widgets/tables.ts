// Plain HTML tables for the figures' table alternatives: a block of numbers with row and
// column headers, or rows of ready-made cells. Scoped headers and a caption, so a screen
// reader names every cell by its row and column.
import { formatNumber } from './number_matrix';

function th(text: string, scope: 'row' | 'col'): HTMLTableCellElement {
  const e = document.createElement('th');
  e.scope = scope;
  e.textContent = text;
  return e;
}

/** A (rows, cols) block of numbers, row-major, each with `digits` decimals. */
export function numberTable(caption: string, rowLabels: string[], colLabels: string[], values: ArrayLike<number>,
                            digits = 3): HTMLTableElement {
  const table = document.createElement('table');
  table.createCaption().textContent = caption;
  const head = table.createTHead().insertRow();
  head.append(document.createElement('th'), ...colLabels.map((c) => th(c, 'col')));
  const body = table.createTBody();
  rowLabels.forEach((r, i) => {
    const tr = body.insertRow();
    tr.append(th(r, 'row'));
    colLabels.forEach((_, j) => {
      const v = values[i * colLabels.length + j]!;
      tr.insertCell().textContent = formatNumber(v, digits);
    });
  });
  return table;
}

/** Header cells, then rows of cells; the first cell of each row heads it. */
export function textTable(caption: string, head: string[], rows: (string | number)[][], className = ''): HTMLTableElement {
  const table = document.createElement('table');
  if (className) table.className = className;
  table.createCaption().textContent = caption;
  table.createTHead().insertRow().append(...head.map((h) => th(h, 'col')));
  const body = table.createTBody();
  for (const row of rows) {
    const tr = body.insertRow();
    row.forEach((cell, j) => {
      if (j === 0) tr.append(th(String(cell), 'row'));
      else tr.insertCell().textContent = String(cell);
    });
  }
  return table;
}
