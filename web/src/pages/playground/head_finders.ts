// The head finders view (issue 33), TransformerLens's conventions: the model runs once on
// a repeated random token sequence (a prefix token, R random tokens, the same R again;
// engine/head_finders.mjs draws it from a seed) and every head of its self-attention gets
// previous-token, duplicate-token and induction scores, both as TransformerLens's
// detect_head computes them ("mul": the share of the whole map on the pattern's cells)
// and by the plain definitions (the mean over the second repeat), beside its first-token
// share (sinks), entropy and mean distance (the head statistics). Every number is the
// engine's (Model.headFinders: tfp_attention_head_scores, tfp_attention_head_stats); this
// file lays them out: a sortable table, and small multiples of each head's pattern on the
// sequence. Pressing a row or a pattern opens that head in the inspector's matrix view.
//
// Legend: L layers, H heads, T = 1 + 2R positions.
import { t as tr, type MessageKey } from '../../i18n/i18n';
import type { HeadFindersResult } from 'transformer-playground';
import { colormap } from '../../widgets/colormap';
import { exportCsv, exportJson } from './export';

/** The table's columns, in order; `score`/`stat` index the engine's (H, 6) / (H, 4) rows. */
export const HEAD_FINDER_COLUMNS = [
  { key: 'layer', label: 'play.hf.colLayer' },
  { key: 'head', label: 'play.hf.colHead' },
  { key: 'previousTL', label: 'play.hf.colPreviousTL', score: 0 },
  { key: 'previous', label: 'play.hf.colPrevious', score: 3 },
  { key: 'duplicateTL', label: 'play.hf.colDuplicateTL', score: 1 },
  { key: 'duplicate', label: 'play.hf.colDuplicate', score: 4 },
  { key: 'inductionTL', label: 'play.hf.colInductionTL', score: 2 },
  { key: 'induction', label: 'play.hf.colInduction', score: 5 },
  { key: 'firstToken', label: 'play.hf.colFirst', stat: 2 },
  { key: 'entropy', label: 'play.hf.colEntropy', stat: 0 },
  { key: 'distance', label: 'play.hf.colDistance', stat: 1 },
] as const satisfies readonly { key: string; label: MessageKey; score?: number; stat?: number }[];
export type HeadFinderColumn = (typeof HEAD_FINDER_COLUMNS)[number]['key'];

export interface HeadFinderRow {
  set: 'enc' | 'dec';
  layer: number;  // 0-based
  head: number;   // 0-based
  values: Record<HeadFinderColumn, number>;
}

/** One row per head, in (layer, head) order; layer and head are 1-based in `values`. */
export function headFinderRows(r: HeadFindersResult): HeadFinderRow[] {
  const rows: HeadFinderRow[] = [];
  for (const l of r.layers) {
    const H = l.scores.dims[0]!;
    for (let h = 0; h < H; h++) {
      const values = {} as Record<HeadFinderColumn, number>;
      for (const c of HEAD_FINDER_COLUMNS) {
        values[c.key] = c.key === 'layer' ? l.layer + 1 : c.key === 'head' ? h + 1
          : 'score' in c ? l.scores.data[h * 6 + c.score]! : l.stats.data[h * 4 + c.stat]!;
      }
      rows.push({ set: l.set, layer: l.layer, head: h, values });
    }
  }
  return rows;
}

const fmt = (v: number) => (Number.isFinite(v) ? v.toFixed(3) : tr('play.hf.na'));

export interface HeadFindersOptions {
  seed: number;
  repeat: number;
  /** TransformerLens detect_head's exclude_bos / exclude_current_token (the TL columns only). */
  excludeBos: boolean;
  excludeCurrent: boolean;
}

export class HeadFindersView {
  readonly element = document.createElement('div');
  private readonly help = document.createElement('p');
  private readonly seq = document.createElement('p');
  private readonly seedInput = document.createElement('input');
  private readonly repeatInput = document.createElement('input');
  private readonly bosBox = document.createElement('input');
  private readonly currentBox = document.createElement('input');
  private readonly table = document.createElement('table');
  private readonly multiples = document.createElement('div');
  private controlsBox!: HTMLElement;
  private result: HeadFindersResult | null = null;
  private rows: HeadFinderRow[] = [];
  private selected: { layer: number; head: number } | null = null;
  /** The column the table is sorted by and its direction (default: induction, highest first). */
  sort: { key: HeadFinderColumn; descending: boolean } = { key: 'induction', descending: true };

  constructor(private readonly onOpen: (set: 'enc' | 'dec', layer: number, head: number) => void,
              private readonly onOptions: (o: HeadFindersOptions) => void) {
    this.element.className = 'head-finders';
    this.help.className = 'help';
    this.seq.className = 'help hf-sequence';
    const controls = document.createElement('div');
    controls.className = 'hf-controls';
    const field = (label: MessageKey, input: HTMLInputElement, min: number, max: number) => {
      const wrap = document.createElement('label');
      wrap.className = 'inline-field';
      wrap.append(`${tr(label)} `, input);
      input.type = 'number';
      input.min = String(min);
      input.max = String(max);
      input.addEventListener('change', () => this.changed());
      return wrap;
    };
    const box = (label: MessageKey, input: HTMLInputElement, cls: string) => {
      const wrap = document.createElement('label');
      wrap.className = 'inline-field';
      input.type = 'checkbox';
      input.className = cls;
      input.addEventListener('change', () => this.changed());
      wrap.append(input, ` ${tr(label)}`);
      wrap.dataset.key = label;
      return wrap;
    };
    const button = (label: MessageKey, cls: string, run: () => void) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = cls;
      b.dataset.key = label;
      b.textContent = tr(label);
      b.addEventListener('click', run);
      return b;
    };
    this.seedInput.className = 'hf-seed';
    this.repeatInput.className = 'hf-repeat';
    controls.append(field('play.hf.seed', this.seedInput, 0, 4294967295), field('play.hf.repeat', this.repeatInput, 1, 4096),
      box('play.hf.excludeBos', this.bosBox, 'hf-exclude-bos'), box('play.hf.excludeCurrent', this.currentBox, 'hf-exclude-current'),
      button('play.hf.csv', 'hf-csv', () => exportCsv(this.csv(), this.fileName())),
      button('play.hf.json', 'hf-json', () => exportJson(this.json(), this.fileName())));
    this.table.className = 'hf-table';
    this.multiples.className = 'hf-multiples';
    const scroll = document.createElement('div');
    scroll.className = 'hf-scroll';
    scroll.append(this.table);
    const mTitle = document.createElement('h3');
    mTitle.className = 'hf-multiples-title';
    mTitle.dataset.key = 'play.hf.multiples';
    this.controlsBox = controls;
    this.element.append(this.help, controls, this.seq, scroll, mTitle, this.multiples);
  }

  private changed(): void {
    const seed = Math.max(0, Math.min(4294967295, Math.floor(Number(this.seedInput.value) || 0)));
    const repeat = Math.max(1, Math.floor(Number(this.repeatInput.value) || 1));
    this.onOptions({ seed, repeat, excludeBos: this.bosBox.checked, excludeCurrent: this.currentBox.checked });
  }

  /** The fields alone (beside the engine's refusal of an R that does not fit). */
  controls(o: HeadFindersOptions): HTMLElement {
    this.seedInput.value = String(o.seed);
    this.repeatInput.value = o.repeat > 0 ? String(o.repeat) : '';
    this.bosBox.checked = o.excludeBos;
    this.currentBox.checked = o.excludeCurrent;
    this.relabel();
    return this.controlsBox;
  }

  /** Labels follow the page's language. */
  private relabel(): void {
    this.controlsBox.querySelectorAll<HTMLElement>('[data-key]').forEach((el) => {
      const text = tr(el.dataset.key as MessageKey);
      if (el instanceof HTMLButtonElement) el.textContent = text;
      else el.lastChild!.textContent = ` ${text}`;
    });
  }

  private fileName(): string {
    const r = this.result;
    return r ? `head_finders_seed${r.seed}_R${r.repeat}` : 'head_finders';
  }

  /** The table as CSV, in its order now: set, layer and head 1-based, every number in full. */
  csv(): string {
    const keys = HEAD_FINDER_COLUMNS.map((c) => c.key);
    const lines = [['set', ...keys].join(',')];
    for (const r of this.sorted()) lines.push([r.set, ...keys.map((k) => String(r.values[k]))].join(','));
    return lines.join('\n') + '\n';
  }

  /** The sequence, the options and the table's rows, as JSON. */
  json(): object {
    const r = this.result;
    return {
      conventions: 'TransformerLens (detect_head, error_measure "mul"; plain definitions over the second repeat)',
      ids: r ? Array.from(r.ids) : [], seed: r?.seed, repeat: r?.repeat, prefixId: r?.prefixId,
      excludeBos: this.bosBox.checked, excludeCurrent: this.currentBox.checked,
      rows: this.sorted().map((x) => ({ set: x.set, ...x.values })),
    };
  }

  update(r: HeadFindersResult, o: HeadFindersOptions, selected: { layer: number; head: number }, tokenText: (id: number) => string): void {
    this.result = r;
    this.selected = selected;
    this.rows = headFinderRows(r);
    this.controls({ ...o, seed: r.seed, repeat: r.repeat });
    if (this.controlsBox.parentElement !== this.element) this.element.insertBefore(this.controlsBox, this.seq);
    this.help.textContent = tr('play.hf.help');
    const shown = Array.from(r.ids.subarray(0, Math.min(r.ids.length, 1 + Math.min(r.repeat, 12))), tokenText);
    this.seq.textContent = tr('play.hf.sequence', { T: r.ids.length, R: r.repeat, prefix: tokenText(r.prefixId), seed: r.seed,
                                                    tokens: shown.join(' ') + (r.repeat > 12 ? ' …' : '') });
    this.element.querySelector<HTMLElement>('.hf-multiples-title')!.textContent = tr('play.hf.multiples');
    this.drawTable();
    this.drawMultiples();
  }

  /** Sorts by `key` (again: the other direction), as pressing its header does. */
  sortBy(key: HeadFinderColumn): void {
    this.sort = this.sort.key === key ? { key, descending: !this.sort.descending }
      : { key, descending: key !== 'layer' && key !== 'head' };
    this.drawTable();
  }

  /** The rows in the table's order now. */
  sorted(): HeadFinderRow[] {
    const { key, descending } = this.sort;
    const val = (r: HeadFinderRow) => (Number.isFinite(r.values[key]) ? r.values[key] : -Infinity);
    return [...this.rows].sort((a, b) => (descending ? val(b) - val(a) : val(a) - val(b)) ||
      a.layer - b.layer || a.head - b.head);
  }

  private drawTable(): void {
    const head = document.createElement('thead');
    const hr = document.createElement('tr');
    for (const c of HEAD_FINDER_COLUMNS) {
      const th = document.createElement('th');
      th.scope = 'col';
      th.dataset.col = c.key;
      th.setAttribute('aria-sort', this.sort.key === c.key ? (this.sort.descending ? 'descending' : 'ascending') : 'none');
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = tr(c.label) + (this.sort.key === c.key ? (this.sort.descending ? ' ▾' : ' ▴') : '');
      b.title = tr('play.hf.sortBy', { column: tr(c.label) });
      b.addEventListener('click', () => this.sortBy(c.key));
      th.append(b);
      hr.append(th);
    }
    head.append(hr);
    const body = document.createElement('tbody');
    // An encoder–decoder has both sets' layers 1..L: the layer cell names the set.
    const sets = new Set(this.rows.map((r) => r.set)).size > 1;
    for (const r of this.sorted()) {
      const tr_ = document.createElement('tr');
      tr_.dataset.layer = String(r.layer);
      tr_.dataset.head = String(r.head);
      tr_.dataset.set = r.set;
      tr_.tabIndex = 0;
      tr_.title = tr('play.hf.open', { layer: r.layer + 1, head: r.head + 1 });
      if (this.selected && this.selected.layer === r.layer && this.selected.head === r.head) tr_.classList.add('selected');
      for (const c of HEAD_FINDER_COLUMNS) {
        const td = document.createElement(c.key === 'layer' || c.key === 'head' ? 'th' : 'td');
        const v = r.values[c.key];
        td.dataset.col = c.key;
        td.dataset.value = String(v);
        td.textContent = c.key === 'layer' ? (sets ? `${r.set} ${v}` : String(v)) : c.key === 'head' ? String(v) : fmt(v);
        tr_.append(td);
      }
      tr_.addEventListener('click', () => this.onOpen(r.set, r.layer, r.head));
      tr_.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          this.onOpen(r.set, r.layer, r.head);
        }
      });
      body.append(tr_);
    }
    const caption = document.createElement('caption');
    caption.textContent = tr('play.hf.caption');
    this.table.replaceChildren(caption, head, body);
  }

  /** One small canvas per head, T × T pixels of viridis on [0, 1], scaled by CSS. */
  private drawMultiples(): void {
    const r = this.result!;
    const cmap = colormap('viridis');
    const figures: HTMLElement[] = [];
    for (const l of r.layers) {
      const [H, T] = l.probs.dims as [number, number, number];
      for (let h = 0; h < H; h++) {
        const b = document.createElement('button');
        b.type = 'button';
        b.className = 'hf-pattern';
        b.dataset.layer = String(l.layer);
        b.dataset.head = String(h);
        b.dataset.set = l.set;
        b.title = tr('play.hf.open', { layer: l.layer + 1, head: h + 1 });
        if (this.selected && this.selected.layer === l.layer && this.selected.head === h) b.classList.add('selected');
        const c = document.createElement('canvas');
        c.width = T;
        c.height = T;
        const ctx = c.getContext('2d');
        if (ctx) {
          const img = ctx.createImageData(T, T);
          const px = new Uint32Array(img.data.buffer);
          const off = h * T * T;
          for (let i = 0; i < T * T; i++)
            px[i] = cmap.rgba[Math.max(0, Math.min(255, Math.round(l.probs.data[off + i]! * 255)))]!;
          ctx.putImageData(img, 0, 0);
        }
        const cap = document.createElement('span');
        cap.textContent = `${r.layers.some((x) => x.set !== l.set) ? `${l.set} ` : ''}L${l.layer + 1} H${h + 1}`;
        b.append(c, cap);
        b.addEventListener('click', () => this.onOpen(l.set, l.layer, h));
        figures.push(b);
      }
      this.multiples.style.setProperty('--hf-heads', String(H));
    }
    this.multiples.replaceChildren(...figures);
  }
}
