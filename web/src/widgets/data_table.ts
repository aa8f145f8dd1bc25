// The data-table alternative of a chart: a disclosure button ("Values as a table": a
// <details>/<summary>, the platform's own expand/collapse button, reachable with Tab and
// toggled with Enter or Space, announced as expanded/collapsed) that opens an HTML table
// with the same numbers, for screen readers, keyboards and anyone who would rather read
// than compare colours. The table is built only while it is open, so a closed one costs
// nothing on redraw. Long tables are shown TABLE_PAGE_ROWS rows at a time, with a pager
// (previous / next and a choice of page), so a 128 × 128 map or a logit lens over 512
// positions stays usable: the owner asks pageOf(rows) for the rows to build and puts
// pager(...) above its table.
import { bindAttr, bindText, label, t, type Label } from '../i18n/i18n';

/** Rows per page of every data table. */
export const TABLE_PAGE_ROWS = 32;

/** One page of a table of `rows` rows: rows [from, to) (0-based) of page `page` of `pages`. */
export interface TablePage {
  page: number;
  pages: number;
  from: number;
  to: number;
  rows: number;
}

export class DataTableToggle {
  readonly element: HTMLDetailsElement;
  readonly summary: HTMLElement;
  /** Where the owner puts its table (and any paging controls). */
  readonly host: HTMLElement;

  constructor(what: Label, private readonly render: (host: HTMLElement) => void) {
    this.element = document.createElement('details');
    this.element.className = 'data-table';
    this.summary = document.createElement('summary');
    bindText(this.summary, () => t('w.valuesAsTable'));
    this.host = document.createElement('div');
    this.host.className = 'table-scroll';
    // Scrollable with the keyboard (arrow keys scroll a focused region).
    this.host.tabIndex = 0;
    this.host.setAttribute('role', 'region');
    bindAttr(this.host, 'aria-label', () => t('w.asTable', { what: label(what) }));
    this.element.append(this.summary, this.host);
    this.element.addEventListener('toggle', () => {
      if (this.element.open) this.render(this.host);
      else this.host.replaceChildren();
    });
  }

  /** The page shown (kept across refreshes; clamped to the table's length). */
  private page = 0;

  get isOpen(): boolean {
    return this.element.open;
  }

  /** Opens or closes it (the table is built on the toggle event, a task later). */
  toggle(open: boolean): void {
    this.element.open = open;
  }

  /** Rebuilds the table if it is open (the data changed). */
  refresh(): void {
    if (this.element.open) this.render(this.host);
  }

  /** The rows to build now, of a table of `rows` rows. */
  pageOf(rows: number): TablePage {
    const pages = Math.max(1, Math.ceil(rows / TABLE_PAGE_ROWS));
    const page = Math.max(0, Math.min(this.page, pages - 1));
    return { page, pages, from: page * TABLE_PAGE_ROWS, to: Math.min(rows, (page + 1) * TABLE_PAGE_ROWS), rows };
  }

  /** Goes to the page holding row `r` (0-based); an open table is rebuilt if the page
   *  changed. Returns whether it changed. */
  showRow(r: number): boolean {
    const page = Math.max(0, Math.floor(r / TABLE_PAGE_ROWS));
    if (page === this.page) return false;
    this.page = page;
    this.refresh();
    return true;
  }

  /** New data of `rows` rows: back to the first page if the one shown is past its end. */
  fitPage(rows: number): void {
    if (this.page * TABLE_PAGE_ROWS >= rows) this.page = 0;
  }

  /** Previous / next page and a direct choice of page, for the page `p` being built;
   *  null when one page holds every row. `rowAxis` names the rows ("query"), if they
   *  have a name. */
  pager(p: TablePage, rowAxis?: string): HTMLElement | null {
    if (p.pages <= 1) return null;
    const nav = document.createElement('div');
    nav.className = 'table-pager';
    const go = (to: number) => {
      this.page = Math.max(0, Math.min(p.pages - 1, to));
      this.refresh();
    };
    const button = (text: string, name: string, to: number, disabled: boolean) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = text;
      b.setAttribute('aria-label', name);
      b.disabled = disabled;
      b.addEventListener('click', () => {
        go(to);
        // The pager was rebuilt: keep the focus on it (the select at either end).
        const again = this.host.querySelector<HTMLButtonElement>(`.table-pager [aria-label="${name}"]`);
        (again && !again.disabled ? again : this.host.querySelector<HTMLElement>('.table-pager select'))?.focus();
      });
      return b;
    };
    const sel = document.createElement('select');
    sel.setAttribute('aria-label', rowAxis ? t('w.rowsShown', { rowAxis }) : t('w.tableRowsShown'));
    for (let k = 0; k < p.pages; k++) {
      const from = k * TABLE_PAGE_ROWS + 1, to = Math.min(p.rows, (k + 1) * TABLE_PAGE_ROWS);
      const text = rowAxis ? t('w.rowsOption', { rowAxis, from, to, rows: p.rows }) : t('w.tableRowsOption', { from, to, rows: p.rows });
      sel.add(new Option(text, String(k), false, k === p.page));
    }
    sel.addEventListener('change', () => {
      go(Number(sel.value));
      this.host.querySelector<HTMLSelectElement>('.table-pager select')?.focus();
    });
    nav.append(button('‹', t('w.prevRows'), p.page - 1, p.page === 0), sel,
               button('›', t('w.nextRows'), p.page + 1, p.page === p.pages - 1));
    return nav;
  }
}
