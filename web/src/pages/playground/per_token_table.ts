// The outputs panel's one-row-per-token table (#, token, one value column): the tagger's
// labels, hidden-state lengths, and the output vectors of models that read vectors.
import { bindText, t as tr, type MessageKey } from '../../i18n/i18n';
import { visibleToken } from '../../widgets/token_text';

export interface PerTokenRow {
  token: string;
  value: string;
}

export function perTokenTable(rows: PerTokenRow[], header: MessageKey, byteLevel: boolean): HTMLTableElement {
  const table = document.createElement('table');
  table.className = 'per-token';
  const h = table.createTHead().insertRow();
  for (const x of ['#', 'play.out.colToken', header] as const) {
    const th = document.createElement('th');
    th.scope = 'col';
    if (x === '#') th.textContent = x;
    else bindText(th, () => tr(x));
    h.append(th);
  }
  const body = table.createTBody();
  rows.forEach((r, i) => {
    const row = body.insertRow();
    row.insertCell().textContent = String(i + 1);
    row.insertCell().textContent = visibleToken(r.token, byteLevel);
    row.insertCell().textContent = r.value;
  });
  return table;
}
