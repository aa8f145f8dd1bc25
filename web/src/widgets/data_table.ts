// The data-table alternative of a chart: a disclosure button ("Values as a table": a
// <details>/<summary>, the platform's own expand/collapse button, reachable with Tab and
// toggled with Enter or Space, announced as expanded/collapsed) that opens an HTML table
// with the same numbers, for screen readers, keyboards and anyone who would rather read
// than compare colours. The table is built only while it is open, so a closed one costs
// nothing on redraw. Large matrices are shown a page of rows at a time (see Heatmap), so
// a 128 × 128 map stays usable.
import { bindAttr, bindText, label, t, type Label } from '../i18n/i18n';

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
}
