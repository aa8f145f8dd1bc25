// The inspector's query–key drill-down: for one layer, head and query token, every step
// of attention as the tutorials teach it — q, each key k_j, q·k_j, ÷√d_k, the bias or
// mask, the softmax, each p_j·v_j and their sum — on the real loaded model. Every number
// is the engine's (tfp_model_attention_steps through the worker); this file lays them out:
// a query picker (buttons, arrow keys), the formula (KaTeX), q as a vector strip, one
// table row per key, and the output vector.
//
// Legend: Tk keys, D = d_k head size.
import type { AttentionStepsResult } from '../engine/messages';
import { t as msg, type MessageKey } from '../i18n/i18n';
import { maxAbs, vectorBars } from './vector_bars';
import type { AttentionFamily } from './attention_families';
import { drillSvg } from './drill_svg';
import { machineryOf, type DrillInput, type Machinery } from './drill_machinery';

/** The numbers a drill-down shows, by name (for tests and export): the engine's tensors. */
export function drillPanels(r: AttentionStepsResult): Record<string, { dims: number[]; data: Float32Array }> {
  return {
    q: r.q, k: r.k, v: r.v, scores: r.scores, scaled: r.scaled, bias: r.bias, mask: r.mask, logits: r.logits,
    probs: r.probs, weighted_v: r.weightedV, out: r.out, scale: { dims: [1], data: Float32Array.of(r.scale) },
    ...(r.capped ? { capped: r.capped } : {}),
    ...(r.softcap !== undefined ? { softcap: { dims: [1], data: Float32Array.of(r.softcap) } } : {}),
    ...(r.rotaryDims !== undefined ? { rotary_dims: { dims: [1], data: Float32Array.of(r.rotaryDims) } } : {}),
    ...(r.window !== undefined ? { window: { dims: [1], data: Float32Array.of(r.window) } } : {}),
  };
}

/** The formula as this model computes it (KaTeX source). The classic form for a model
 *  with 1/√d_k, no soft-cap and no rotation; otherwise its own scale s, the soft-cap c
 *  and the rotated q̃, k̃, with the engine's values of s and c. */
function formulaOf(m: Machinery, scale: number): string {
  if (!m.ownScale && m.softcap <= 0 && m.rotaryDims <= 0) return FORMULA;
  const qk = m.rotaryDims > 0 ? String.raw`\tilde q_i\cdot \tilde k_j` : String.raw`q_i\cdot k_j`;
  const scaled = !m.ownScale ? String.raw`\frac{${qk}}{\sqrt{d_k}}` : scale === 1 ? qk : String.raw`s\,(${qk})`;
  const capped = m.softcap > 0 ? String.raw`c\,\tanh\!\big(${scaled}\,/\,c\big)` : scaled;
  const where: string[] = [];
  if (m.ownScale && scale !== 1) where.push(`s = ${scale.toFixed(4)}`);
  if (m.softcap > 0) where.push(`c = ${m.softcap}`);
  if (m.rotaryDims > 0) where.push(String.raw`\tilde q_i = R_i\,q_i,\ \tilde k_j = R_j\,k_j`);
  // The values on a line of their own (narrow screens keep the formula whole).
  const main = String.raw`\mathrm{out}_i \;=\; \sum_j \underbrace{\operatorname{softmax}_j\!\Big(${capped} + b_{ij}\Big)}_{p_{ij}}\; v_j`;
  return where.length ? String.raw`\begin{gathered}${main}\\ ${where.join(String.raw`,\quad `)}\end{gathered}` : main;
}

const FORMULA = String.raw`\mathrm{out}_i \;=\; \sum_j \underbrace{\operatorname{softmax}_j\!\Big(\frac{q_i\cdot k_j}{\sqrt{d_k}} + b_{ij}\Big)}_{p_{ij}}\; v_j
  \;=\; \operatorname{softmax}\!\Big(\frac{q_i K^\top}{\sqrt{d_k}} + b_i\Big)\,V`;

function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

/** A numeric table cell: the rounded value shown, the engine's full value kept. */
function num(v: number, digits = 3): HTMLTableCellElement {
  const td = el('td', 'num', Number.isFinite(v) ? v.toFixed(digits) : v < 0 ? '−∞' : String(v));
  td.dataset.value = String(v);
  return td;
}

/** What the rows of a decoder set are: the translation's steps, or a decoder input text's
 *  tokens (a model that reads vectors; its keys in cross-attention are the text's tokens,
 *  which a bare decoder reads as its memory). */
export function decoderNote(f: AttentionFamily): MessageKey {
  if (!f.decoderText) return f.set === 'cross' ? 'play.qk.decoderQueries' : 'play.qk.decoderSelf';
  if (f.set !== 'cross') return 'play.qk.decoderSelfText';
  return f.decoderText === 'memory' ? 'play.qk.decoderQueriesMemory' : 'play.qk.decoderQueriesText';
}

export class DrillDown {
  readonly element = el('section', 'drilldown');
  private readonly picker = el('div', 'qk-picker');
  private readonly formula = el('div', 'qk-formula');
  private readonly summary = el('p', 'help');
  /** The family's machinery in words: rotated dimensions, soft-cap, positional bias, window. */
  private readonly notes = el('div', 'qk-machinery');
  private katex: typeof import('katex').default | null = null;
  private mathsAsked = false;
  private formulaShown = '';
  /** Where the queries are decoder positions: says so, and what the token strip picks. */
  private readonly decoderNote = el('p', 'qk-note');
  /** What the latest update showed (the export draws it as SVG: drill_svg.ts). */
  last: DrillInput | null = null;
  private readonly body = el('div', 'qk-body');
  private queryButtons: HTMLButtonElement[] = [];
  private pickerKey = '';

  /** `katexSheet` brings KaTeX's stylesheet into the page (the playground: a dynamic import),
   *  and the formula is KaTeX's HTML. Without it (a shadow root, which cannot use KaTeX's fonts
   *  from the page: a font face declared inside one does not apply) the formula is MathML,
   *  laid out by the browser itself. */
  constructor(private readonly onQuery: (query: number) => void, private readonly katexSheet?: () => Promise<unknown>) {
    this.formulaShown = FORMULA;
    this.relabel();
    this.decoderNote.hidden = true;
    this.notes.hidden = true;
    this.element.append(this.picker, this.decoderNote, this.formula, this.summary, this.notes, this.body);
  }

  /** Loads KaTeX (≈ 260 kB) and renders the formula with it; once, when the drill-down is
   *  first shown. Not at the page's start: its download, parse and first render (~100 ms of
   *  CPU) competed with the engine's start and the first attention map. */
  private loadMaths(): void {
    if (this.mathsAsked) return;
    this.mathsAsked = true;
    void Promise.all([import('katex'), this.katexSheet?.()]).then(([{ default: katex }]) => {
      this.katex = katex;
      this.renderFormula();
    });
  }

  private renderFormula(): void {
    this.katex?.render(this.formulaShown, this.formula, { displayMode: true, throwOnError: false, output: this.katexSheet ? 'htmlAndMathml' : 'mathml' });
  }

  /** The fixed labels, in the page's language (the page re-renders on a switch). */
  private relabel(): void {
    this.element.setAttribute('aria-label', msg('play.qk.title'));
    this.formula.setAttribute('aria-label', msg('play.qk.formula'));
  }

  /** Query token buttons (row tokens of the family); one tab stop, arrows move. */
  private updatePicker(tokens: string[], query: number, hints?: string[]): void {
    const key = `${tokens.join('\u0000')}\u0000${(hints ?? []).join('\u0000')}\u0000${msg('play.qk.queryToken')}`;  // rebuilt on a language switch too
    if (key !== this.pickerKey) {
      this.pickerKey = key;
      const label = el('span', 'qk-picker-label', msg('play.qk.queryToken'));
      label.id = 'qk-picker-label';
      const group = el('div', 'qk-tokens');
      group.setAttribute('role', 'toolbar');
      group.setAttribute('aria-labelledby', label.id);
      this.queryButtons = tokens.map((t, i) => {
        const b = el('button', 'qk-token', t);
        b.type = 'button';
        b.dataset.index = String(i);
        b.setAttribute('aria-label', msg('play.qk.queryButton', { query: i + 1, token: t }) + (hints?.[i] ? ` (${hints[i]})` : ''));
        if (hints?.[i]) b.title = hints[i]!;
        b.addEventListener('click', () => this.onQuery(i));
        b.addEventListener('keydown', (e) => {
          const n = tokens.length;
          const next = e.key === 'ArrowRight' || e.key === 'ArrowDown' ? Math.min(n - 1, i + 1)
            : e.key === 'ArrowLeft' || e.key === 'ArrowUp' ? Math.max(0, i - 1)
              : e.key === 'Home' ? 0 : e.key === 'End' ? n - 1 : -1;
          if (next < 0) return;
          e.preventDefault();
          this.queryButtons[next]?.focus();
          this.onQuery(next);
        });
        return b;
      });
      group.append(...this.queryButtons);
      this.picker.replaceChildren(label, group);
    }
    this.queryButtons.forEach((b, i) => {
      b.setAttribute('aria-pressed', String(i === query));
      b.tabIndex = i === query ? 0 : -1;
    });
  }

  /** The drill-down shown last as one SVG picture (export), or null before any. */
  svg(): SVGSVGElement | null {
    return this.last ? drillSvg(this.last, this.summary.textContent ?? '', this.element.isConnected ? this.element : document.body) : null;
  }

  update(d: DrillInput): void {
    const { family: f, steps: r, query } = d;
    const D = r.q.dims[0]!, Tk = r.scores.dims[0]!;
    this.relabel();
    this.loadMaths();
    this.last = d;
    this.updatePicker(f.rowTokens, query, f.rowHints);
    this.decoderNote.hidden = !f.decoderRows;
    if (f.decoderRows) this.decoderNote.textContent = msg(decoderNote(f));
    const qTok = f.rowTokens[query] ?? `#${query + 1}`;
    const masked = Array.from(r.mask.data).filter((m) => m !== 0).length;
    const m = machineryOf(f, r);
    const summaryKey: MessageKey = !m.ownScale ? 'play.qk.summary' : r.scale === 1 ? 'play.qk.summaryNoScale' : 'play.qk.summaryOwnScale';
    this.summary.textContent = msg(summaryKey, { family: f.label, layer: d.layer + 1, head: d.head + 1, query: query + 1,
      token: qTok, keys: msg('play.qk.keys', { count: Tk }), masked, D, scale: r.scale.toFixed(4) });
    const formula = formulaOf(m, r.scale);
    if (formula !== this.formulaShown) {
      this.formulaShown = formula;
      this.renderFormula();
    }
    // The keys a local layer lets this query see: the unmasked run the engine reports.
    const visible = Array.from(r.mask.data).map((x, j) => (x === 0 ? j : -1)).filter((j) => j >= 0);
    const firstVisible = visible.length ? visible[0]! : 0;
    const notes: HTMLElement[] = [];
    const note = (mark: string, text: string) => {
      const p = el('p', 'qk-mark', text);
      p.dataset.mark = mark;
      notes.push(p);
    };
    if (m.rotaryDims > 0)
      note('rotary', m.rotaryDims < D ? msg('play.qk.rotaryPart', { rot: m.rotaryDims, from: m.rotaryDims + 1, D }) : msg('play.qk.rotaryAll', { D }));
    if (f.kvHeads && f.kvHeads < f.heads) {
      // Query head h reads KV head h // (H / KV), the grouping every GQA model uses.
      const per = f.heads / f.kvHeads, kv = Math.floor(d.head / per);
      note('kv', msg('play.qk.kvNote', { head: d.head + 1, kv: kv + 1, from: kv * per + 1, to: (kv + 1) * per }));
    }
    if (m.softcap > 0) note('softcap', msg('play.qk.softcapNote', { cap: m.softcap }));
    if (m.biasKind && m.biasShown)
      note('bias', msg('play.qk.biasNote', { kind: msg(m.biasKind === 'alibi' ? 'play.qk.biasKindAlibi' : 'play.qk.biasKindRelative') }));
    if (m.window > 0 && visible.length)
      note('window', msg('play.qk.windowNote', { window: m.window, query: query + 1, from: firstVisible + 1, to: visible[visible.length - 1]! + 1 }));
    this.notes.replaceChildren(...notes);
    this.notes.hidden = notes.length === 0;
    const rotated = m.rotaryDims > 0 && m.rotaryDims < D ? { rotated: m.rotaryDims } : {};

    // q and the keys share one colour scale (they meet in the dot product); the weighted
    // values and the output share another.
    const qkScale = maxAbs(r.q.data, r.k.data);
    const vScale = maxAbs(r.weightedV.data, r.out.data);
    const vRawScale = maxAbs(r.v.data);  // the values themselves, before p_j weighs them
    const qRow = el('div', 'qk-vector');
    qRow.append(el('span', 'qk-vector-label', msg(m.rotaryDims > 0 ? 'play.qk.qLabelRope' : 'play.qk.qLabel', { query: query + 1, D })),
      vectorBars(r.q.data, { label: msg('play.qk.qBars', { query: query + 1 }), scale: qkScale, ...rotated }));

    const table = el('table', 'qk-table');
    const caption = el('caption', undefined, msg('play.qk.caption'));
    const thead = el('thead');
    const hr = el('tr');
    const capped = m.softcap > 0 && r.capped ? r.capped : null;
    const biasHead: [string, MessageKey] = m.biasKind === 'alibi' ? [msg('play.qk.biasAlibi'), 'play.qk.colBiasAlibi']
      : m.biasKind === 'relative' ? [msg('play.qk.biasRelative'), 'play.qk.colBiasRelative'] : [msg('play.qk.bias'), 'play.qk.colBias'];
    const cols: [string, MessageKey, string?][] = [['j', 'play.qk.colJ'], [msg('play.qk.key'), 'play.qk.colKey'], ['k_j', 'play.qk.colK'],
      ['q·k_j', 'play.qk.colDot'], [m.ownScale ? msg('play.qk.colScaledOwn') : '÷√d_k', 'play.qk.colScaled'],
      ...(capped ? [[msg('play.qk.colCapped'), 'play.qk.colCappedTitle', 'qk-col-capped'] as [string, MessageKey, string]] : []),
      [biasHead[0], biasHead[1], m.biasShown ? 'qk-col-bias qk-bias-on' : 'qk-col-bias'],
      ['softmax p_j', 'play.qk.colP'], ['v_j', 'play.qk.colV'], ['p_j·v_j', 'play.qk.colPV']];
    for (const [text, title, cls] of cols) {
      const th = el('th', cls, text);
      th.scope = 'col';
      th.title = msg(title, { scale: r.scale.toFixed(4), cap: m.softcap });
      hr.append(th);
    }
    thead.append(hr);
    const tbody = el('tbody');
    const maxP = Math.max(1e-12, ...r.probs.data);
    for (let j = 0; j < Tk; j++) {
      const isMasked = r.mask.data[j] !== 0;
      // The query's own position is marked: in self-attention a token is also a key.
      const own = j === query && f.set !== 'cross' && f.rowTokens.length === f.colTokens.length;
      const picked = d.key === j && f.set === 'cross';
      const tr = el('tr', [isMasked ? 'masked' : '', own ? 'self' : '', picked ? 'picked' : ''].filter(Boolean).join(' ') || undefined);
      if (picked) tr.title = msg('play.qk.pickedKey');
      const th = el('th', 'num', String(j + 1));
      th.scope = 'row';
      const key = el('td', 'qk-key', f.colTokens[j] ?? `#${j + 1}`);
      const kCell = el('td', 'qk-vec');
      kCell.append(vectorBars(r.k.data.subarray(j * D, (j + 1) * D), { label: `k_${j + 1}`, scale: qkScale, compact: true, ...rotated }));
      // Masked before the window starts (a local layer), rather than after the query.
      const outside = isMasked && m.window > 0 && j < firstVisible;
      if (outside) tr.classList.add('outside-window');
      const bias = isMasked ? el('td', 'num qk-masked', msg('w.masked')) : num(r.bias.data[j]!);
      bias.classList.add('qk-col-bias');
      if (m.biasShown) bias.classList.add('qk-bias-on');
      if (isMasked) {
        bias.dataset.value = '-Infinity';
        bias.title = msg(outside ? 'play.qk.outsideWindowTitle' : 'play.qk.maskedTitle');
      }
      const p = r.probs.data[j]!;
      const w = el('td', 'qk-weight');
      w.dataset.value = String(p);
      if (isMasked) w.append(el('span', 'qk-masked', msg(outside ? 'play.qk.outsideWindow' : 'play.qk.zeroMasked')));
      else {
        const track = el('span', 'bar-track');
        const fill = el('span', 'bar-fill');
        fill.style.width = `${(100 * p) / maxP}%`;
        track.append(fill);
        w.append(track, el('span', 'bar-value', p.toFixed(4)));
      }
      const vCell = el('td', 'qk-vec qk-v');
      vCell.append(vectorBars(r.v.data.subarray(j * D, (j + 1) * D), { label: `v_${j + 1}`, scale: vRawScale, compact: true }));
      const wv = el('td', 'qk-vec');
      wv.append(vectorBars(r.weightedV.data.subarray(j * D, (j + 1) * D), { label: `p_${j + 1} v_${j + 1}`, scale: vScale, compact: true }));
      const cap = capped ? [num(capped.data[j]!)] : [];
      cap.forEach((c) => c.classList.add('qk-col-capped'));
      tr.append(th, key, kCell, num(r.scores.data[j]!), num(r.scaled.data[j]!), ...cap, bias, w, vCell, wv);
      tbody.append(tr);
    }
    const tfoot = el('tfoot');
    const fr = el('tr');
    const sumLabel = el('th', undefined, 'Σ');
    sumLabel.scope = 'row';
    const probSum = Array.from(r.probs.data).reduce((a, b) => a + b, 0);
    const sumCell = el('td', 'qk-weight', `Σ p_j = ${probSum.toFixed(4)}`);
    sumCell.colSpan = 1;
    const outCell = el('td', 'qk-vec');
    outCell.append(vectorBars(r.out.data, { label: msg('play.qk.outSum'), scale: vScale, compact: true }));
    const gap = el('td', undefined, 'out = Σ_j p_j·v_j');
    gap.colSpan = capped ? 6 : 5;
    fr.append(sumLabel, gap, sumCell, el('td'), outCell);  // (nothing under the v_j column)
    tfoot.append(fr);
    table.append(caption, thead, tbody, tfoot);
    const scroller = el('div', 'qk-table-wrap');
    scroller.tabIndex = 0;
    scroller.setAttribute('role', 'region');
    scroller.setAttribute('aria-label', msg('play.qk.scroller'));
    scroller.append(table);

    const outRow = el('div', 'qk-vector');
    outRow.append(el('span', 'qk-vector-label', msg('play.qk.outLabel', { head: d.head + 1, query: query + 1 })),
      vectorBars(r.out.data, { label: msg('play.qk.outBars', { head: d.head + 1, query: query + 1 }), scale: vScale }));
    this.body.replaceChildren(qRow, scroller, outRow);
  }
}
