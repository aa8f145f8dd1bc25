// The logit lens view: layers × positions. Row 0 reads the embeddings, row l + 1 the
// residual stream after layer l, each through the model's final norm and LM head (the
// engine's tfp_model_logit_lens); a cell shows the most probable next token at that
// position as text, coloured by its probability (viridis, 0..1), and hovering or
// focusing it shows its top 5. The last row is the model's own prediction.
//
// Keyboard: the grid has one tab stop; arrow keys move it, Home/End go to a row's ends.
// The same numbers as a table are behind "Values as a table": one row per (layer,
// position), 32 rows a page (data_table.ts), following the keyboard cursor. Every token
// goes in as text (textContent), never as markup. Nothing is masked here, so the colour
// legend has no "masked" swatch. "Save as CSV/JSON" write every cell's top K; the PNG/SVG
// export draws the top-1 probabilities (matrix_svg.ts), the rows and columns labelled.
//
// Legend: L decoder layers, T positions, K top entries per cell.
import { bindText, t as tr } from '../../i18n/i18n';
import type { LogitLensResult } from '../../engine/messages';
import { ColorLegend } from '../../widgets/color_legend';
import { colormap } from '../../widgets/colormap';
import { DataTableToggle } from '../../widgets/data_table';
import { matricesSvg } from '../../widgets/matrix_svg';
import { visibleToken } from '../../widgets/token_text';
import { exportCsv, exportJson } from './export';

export interface LensData {
  result: LogitLensResult;   // ids/probs (L+1, T, K) and the token text of every id
  inputs: string[];          // (T) the token at each position (already visible text)
  byteLevel: boolean;
}

export class LogitLensView {
  readonly element: HTMLElement;
  private readonly grid: HTMLElement;
  private readonly readout: HTMLElement;
  private readonly table: DataTableToggle;
  private readonly legend = new ColorLegend(() => tr('play.lens.legend'), { masked: false });
  private data: LensData | null = null;
  private cells: HTMLElement[][] = [];
  private cursor = { row: 0, col: 0 };

  constructor() {
    this.element = document.createElement('div');
    this.element.className = 'lens-view';
    const help = document.createElement('p');
    help.className = 'help';
    help.textContent = tr('play.lens.help');
    this.grid = document.createElement('div');
    this.grid.className = 'lens-grid';
    this.grid.setAttribute('role', 'grid');
    this.readout = document.createElement('p');
    this.readout.className = 'lens-readout';
    this.readout.setAttribute('aria-live', 'polite');
    this.table = new DataTableToggle(() => tr('play.lens.what'), (host) => this.fillTable(host));
    this.table.element.classList.add('heatmap-table');
    const scroll = document.createElement('div');
    scroll.className = 'lens-scroll';
    scroll.append(this.grid);
    this.legend.update([0, 1]);
    const save = document.createElement('div');
    save.className = 'lens-save';
    save.append(button('lens-csv', () => tr('play.patch.csv'), () => { if (this.data) exportCsv(this.csv(), 'logit_lens'); }),
                button('lens-json', () => tr('play.patch.json'), () => { if (this.data) exportJson(this.json(), 'logit_lens'); }));
    this.element.append(this.legend.element, help, save, scroll, this.readout, this.table.element);
  }

  /** One line per (row, position, rank): the layer read, the input token, the token and its probability. */
  csv(): string {
    const [rows, T, K] = this.data!.result.ids.dims as [number, number, number];
    const lines = ['row,layer,position,input,rank,id,token,p'];
    for (let r = 0; r < rows; r++)
      for (let t = 0; t < T; t++)
        for (let k = 0; k < K; k++) {
          const x = this.at(r, t, k);
          lines.push([JSON.stringify(this.rowName(r, rows)), r, t, JSON.stringify(this.data!.inputs[t] ?? ''), k + 1, x.id,
                      JSON.stringify(x.token), x.p].join(','));
        }
    return lines.join('\n');
  }

  /** The lens as the engine gave it: ids, probabilities and tokens (rows, T, K), row 0 the embeddings. */
  json(): Record<string, unknown> {
    const d = this.data!, [rows] = d.result.ids.dims as [number];
    return { view: 'logit_lens', dims: d.result.ids.dims, inputs: d.inputs, rows: Array.from({ length: rows }, (_, r) => this.rowName(r, rows)),
             ids: Array.from(d.result.ids.data), probs: Array.from(d.result.probs.data), tokens: d.result.tokens };
  }

  /** The top-1 probability of every cell as an SVG heatmap (for PNG/SVG export), or null before a lens. */
  svg(): SVGSVGElement | null {
    if (!this.data) return null;
    const [rows, T, K] = this.data.result.ids.dims as [number, number, number];
    const top = Float32Array.from({ length: rows * T }, (_, i) => this.data!.result.probs.data[i * K]!);
    return matricesSvg([{ title: tr('play.lens.grid'), rowLabels: Array.from({ length: rows }, (_, r) => this.rowName(r, rows)),
                          colLabels: this.data.inputs, values: top, domain: [0, 1] }], 1, { cell: 18, labels: true, colormap: 'viridis' });
  }

  /** Row label: embeddings, layer l, the last one marked as the output. */
  private rowName(r: number, rows: number): string {
    if (r === 0) return tr('play.lens.embeddings');
    return r === rows - 1 ? tr('play.lens.output', { layer: r }) : tr('play.lens.layer', { layer: r });
  }

  private at(r: number, t: number, k: number): { token: string; id: number; p: number } {
    const [, T, K] = this.data!.result.ids.dims as [number, number, number];
    const i = (r * T + t) * K + k;
    const res = this.data!.result;
    return { token: visibleToken(res.tokens[i]!, this.data!.byteLevel), id: res.ids.data[i]!, p: res.probs.data[i]! };
  }

  update(d: LensData): void {
    this.data = d;
    const [rows, T] = d.result.ids.dims as [number, number, number];
    this.cursor = { row: Math.min(this.cursor.row, rows - 1), col: Math.min(this.cursor.col, T - 1) };
    const cmap = colormap('viridis');
    this.grid.setAttribute('aria-label', tr('play.lens.grid'));
    this.grid.style.gridTemplateColumns = `auto repeat(${T}, minmax(3.2rem, max-content))`;
    const kids: HTMLElement[] = [];
    const head = document.createElement('div');
    head.setAttribute('role', 'row');
    head.className = 'lens-row lens-head';
    head.append(cell('span', '', 'columnheader'));
    d.inputs.forEach((tok) => head.append(cell('span', tok, 'columnheader', 'lens-input')));
    kids.push(head);
    this.cells = [];
    for (let r = 0; r < rows; r++) {
      const row = document.createElement('div');
      row.setAttribute('role', 'row');
      row.className = 'lens-row';
      row.append(cell('span', this.rowName(r, rows), 'rowheader', 'lens-layer'));
      const line: HTMLElement[] = [];
      for (let t = 0; t < T; t++) {
        const top = this.at(r, t, 0);
        const c = cell('span', top.token, 'gridcell', 'lens-cell');
        c.style.background = cmap.css(top.p, 0, 1);
        c.style.color = cmap.luminance(top.p, 0, 1) > 0.4 ? '#000' : '#fff';
        c.dataset.row = String(r);
        c.dataset.col = String(t);
        c.dataset.id = String(top.id);
        c.dataset.p = String(top.p);
        c.tabIndex = r === this.cursor.row && t === this.cursor.col ? 0 : -1;
        c.setAttribute('aria-label', tr('play.lens.cell', {
          row: this.rowName(r, rows), pos: t + 1, input: d.inputs[t] ?? '', token: top.token, p: (100 * top.p).toFixed(1) }));
        c.addEventListener('pointerenter', () => this.show(r, t));
        c.addEventListener('focus', () => { this.cursor = { row: r, col: t }; this.show(r, t); this.follow(); });
        c.addEventListener('keydown', (e) => this.onKey(e));
        line.push(c);
        row.append(c);
      }
      this.cells.push(line);
      kids.push(row);
    }
    this.grid.replaceChildren(...kids);
    this.readout.textContent = tr('play.lens.pick');
    this.table.fitPage(rows * T);
    this.table.refresh();
  }

  /** The top 5 of one cell, in the readout (and the cell's title). */
  private show(r: number, t: number): void {
    if (!this.data) return;
    const [rows, , K] = this.data.result.ids.dims as [number, number, number];
    const list = this.topList(r, t, Math.min(5, K));
    const text = tr('play.lens.readout', { row: this.rowName(r, rows), pos: t + 1, input: this.data.inputs[t] ?? '', list });
    this.readout.textContent = text;
    this.cells[r]![t]!.title = list;
  }

  private topList(r: number, t: number, k: number): string {
    return Array.from({ length: k }, (_, i) => {
      const x = this.at(r, t, i);
      return `“${x.token}” ${(100 * x.p).toFixed(1)}%`;
    }).join(', ');
  }

  private onKey(e: KeyboardEvent): void {
    const rows = this.cells.length, T = this.cells[0]?.length ?? 0;
    let { row, col } = this.cursor;
    switch (e.key) {
      case 'ArrowUp': row = Math.max(0, row - 1); break;
      case 'ArrowDown': row = Math.min(rows - 1, row + 1); break;
      case 'ArrowLeft': col = Math.max(0, col - 1); break;
      case 'ArrowRight': col = Math.min(T - 1, col + 1); break;
      case 'Home': col = 0; break;
      case 'End': col = T - 1; break;
      default: return;
    }
    e.preventDefault();
    this.cells[this.cursor.row]![this.cursor.col]!.tabIndex = -1;
    this.cursor = { row, col };
    const next = this.cells[row]![col]!;
    next.tabIndex = 0;
    next.focus();
  }

  /** An open table follows the keyboard cursor: the page holding its row (r·T + t), that
   *  row marked. */
  private follow(): void {
    if (!this.table.isOpen) return;
    const at = this.cursor.row * (this.cells[0]?.length ?? 0) + this.cursor.col;
    if (this.table.showRow(at)) return;  // rebuilt, the row marked
    this.table.host.querySelector('tr.cursor')?.classList.remove('cursor');
    this.table.host.querySelector(`tr[data-at="${at}"]`)?.classList.add('cursor');
  }

  private fillTable(host: HTMLElement): void {
    if (!this.data) return;
    const [rows, T, K] = this.data.result.ids.dims as [number, number, number];
    const pg = this.table.pageOf(rows * T);
    const table = document.createElement('table');
    const caption = document.createElement('caption');
    caption.textContent = tr('play.lens.grid');
    const thead = document.createElement('thead');
    const hr = document.createElement('tr');
    for (const k of ['play.lens.colLayer', 'play.lens.colPosition', 'play.lens.colInput', 'play.lens.colTop'] as const) {
      const th = document.createElement('th');
      th.scope = 'col';
      th.textContent = tr(k);
      hr.append(th);
    }
    thead.append(hr);
    const tbody = document.createElement('tbody');
    for (let at = pg.from; at < pg.to; at++) {
      const r = Math.floor(at / T), t = at % T;
      const tr_ = document.createElement('tr');
      tr_.dataset.at = String(at);
      if (r === this.cursor.row && t === this.cursor.col) tr_.classList.add('cursor');
      const vals = [this.rowName(r, rows), String(t + 1), this.data.inputs[t] ?? '', this.topList(r, t, Math.min(5, K))];
      vals.forEach((v, i) => {
        const c = document.createElement(i === 0 ? 'th' : 'td');
        if (i === 0) (c as HTMLTableCellElement).scope = 'row';
        c.textContent = v;
        tr_.append(c);
      });
      tbody.append(tr_);
    }
    table.append(caption, thead, tbody);
    const pager = this.table.pager(pg);
    host.replaceChildren(...(pager ? [pager] : []), table);
  }
}

function button(cls: string, text: () => string, click: () => void): HTMLButtonElement {
  const b = document.createElement('button');
  b.type = 'button';
  b.className = cls;
  bindText(b, text);
  b.addEventListener('click', click);
  return b;
}

function cell(tag: string, text: string, role: string, cls = ''): HTMLElement {
  const c = document.createElement(tag);
  c.setAttribute('role', role);
  if (cls) c.className = cls;
  c.textContent = text;
  return c;
}
