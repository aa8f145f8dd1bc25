// Figure 1: the causal mask, demonstrated on brown-gpt. Sentences A and B (B should differ
// only at its end) run through model.forward with attention on; layer 1 head 1 of A's
// self-attention is drawn (rows = queries, columns = keys: the upper triangle is 0), and
// for every position the final hidden rows of A and B are compared: bit-identical before
// the first differing token. The mistake box "the mask hides rows" shows the engine's
// first and last rows of that map. Legend: T tokens, C = d_model, H heads.
import type { FloatTensor } from 'transformer-playground';
import type { Chapter } from '../../chapter';
import { fixed } from '../../format';
import { el } from '../../../widgets/dom';
import { Heatmap } from '../../../widgets/heatmap';
import { NumberMatrix } from '../../../widgets/number_matrix';
import { textTable } from '../../../widgets/tables';
import { looksByteLevel, visibleToken } from '../../../widgets/token_text';
import { onThemeChange } from '../../../widgets/theme';
import type { Key } from './text';

interface Run { ids: number[]; tokens: string[]; hidden: FloatTensor; probs: FloatTensor }

/** Layer 0's self-attention (H, T, T) among the engine's named maps. */
function firstSelfAttention(maps: { name: string; dims: number[]; data: Float32Array }[]): FloatTensor {
  const m = maps.find((t) => /(^|\.)0\.attn\.probs$/.test(t.name)) ?? maps.find((t) => t.name.endsWith('attn.probs'));
  if (!m) throw new Error('brown-gpt returned no self-attention map');
  return m;
}

export function causalSection(ch: Chapter<Key>): { run: () => Promise<void> } {
  const state = ch.debug.state;
  const s = ch.section('hCausal');
  ch.prose(s, 'causalWhy');
  const input = { a: 'The jury said the election was fair', b: 'The jury said the election was over' };
  let view: { a: Run; b: Run; rows: { diff: number; same: boolean }[]; first: number } | null = null;

  const fig = ch.figure(s, { caption: 'figCausalCaption', label: 'figCausalLabel' });
  fig.controls.classList.add('dec-controls');
  for (const [key, label] of [['a', 'sentenceA'], ['b', 'sentenceB']] as const) {
    const box = el('input');
    box.type = 'text';
    box.value = input[key];
    box.autocomplete = 'off';
    box.spellcheck = false;
    box.addEventListener('input', () => { input[key] = box.value; void run(); });
    fig.controls.append(ch.field(label, box, `dec-causal-${key}`).element);
  }
  fig.view.classList.add('dec-causal-view');
  const map = new Heatmap({ title: '', maxCell: 34, digits: 3, rowAxis: () => ch.t('queryAxis'), colAxis: () => ch.t('keyAxis') });
  const right = el('div');
  const summary = el('p', 'dec-summary');
  const diffBox = el('div', 'dec-diff');
  right.append(summary, diffBox);
  fig.view.append(map.element, right);
  onThemeChange(() => map.redraw());

  const firstRow = new NumberMatrix(1, 1, { label: () => '', digits: 3, colAxis: () => ch.t('keyAxis') });
  const lastRow = new NumberMatrix(1, 1, { label: () => '', digits: 3, colAxis: () => ch.t('keyAxis') });
  const mistake = ch.mistake(s, {
    title: 'mistakeRowsTitle', body: 'mistakeRowsBody', bodyParams: () => ({ T: view?.a.tokens.length ?? 0 }),
    demo: (host) => host.append(firstRow.element, lastRow.element),
  });

  function render(): void {
    const v = view;
    if (!v) return;
    const T = v.a.tokens.length, C = v.a.hidden.dims[1]!;
    // Byte-level spellings ("Ġjury") shown as the reader reads them ("·jury").
    const byteLevel = looksByteLevel([...v.a.tokens, ...v.b.tokens]);
    const shown = { a: v.a.tokens.map((t) => visibleToken(t, byteLevel)), b: v.b.tokens.map((t) => visibleToken(t, byteLevel)) };
    map.setTitle(ch.t('causalMapTitle'));
    map.update({ rowLabels: shown.a, colLabels: shown.a, values: v.a.probs.data.subarray(0, T * T) });
    const n = Math.max(T, v.b.tokens.length);
    const rows = Array.from({ length: n }, (_, i) => {
      const r = v.rows[i];
      return [i + 1, shown.a[i] ?? '—', shown.b[i] ?? '—', r ? fixed(r.diff, 6) : '—', r ? ch.t(r.same ? 'yes' : 'no') : '—'];
    });
    const table = textTable(ch.t('diffTable'), [ch.t('colPos'), ch.t('colTokA'), ch.t('colTokB'), ch.t('colDiff'), ch.t('colSame')], rows);
    table.querySelectorAll('tbody tr').forEach((tr, i) => {
      const last = tr.lastElementChild as HTMLElement;
      const r = v.rows[i];
      if (r) last.className = r.same ? 'same' : 'differs';
    });
    diffBox.replaceChildren(table);
    const before = v.first;
    let maxAfter = 0;
    v.rows.forEach((r, i) => { if (i >= before) maxAfter = Math.max(maxAfter, r.diff); });
    if (before >= Math.min(T, v.b.tokens.length) && T === v.b.tokens.length) summary.innerHTML = ch.t('causalSummaryNone');
    else if (before === 0) summary.innerHTML = ch.t('causalSummaryFirst');
    else summary.innerHTML = ch.t('causalSummary', { first: before + 1, before, same: v.rows.slice(0, before).filter((r) => r.same).length, C, diff: fixed(maxAfter, 3) });
    firstRow.set(v.a.probs.data.subarray(0, T), { rows: 1, cols: T, rowLabels: [shown.a[0]!], colLabels: shown.a });
    (firstRow.element.querySelector('caption') as HTMLElement).textContent = ch.t('firstRow', { tok: shown.a[0]! });
    lastRow.set(v.a.probs.data.subarray((T - 1) * T, T * T), { rows: 1, cols: T, rowLabels: [shown.a[T - 1]!], colLabels: shown.a });
    (lastRow.element.querySelector('caption') as HTMLElement).textContent = ch.t('lastRow', { T, tok: shown.a[T - 1]! });
    mistake.rerender();
    ch.debug.renders++;
  }
  ch.onLocale(render);

  let runId = 0;
  async function one(text: string): Promise<Run> {
    const m = await ch.model('brown-gpt');
    const tok = await m.tokenize(text);
    const r = await m.forward(tok.ids, { attention: true });
    return { ids: Array.from(tok.ids), tokens: tok.tokens, hidden: r.hidden, probs: firstSelfAttention(r.attention) };
  }
  async function run(): Promise<void> {
    if (!input.a.trim() || !input.b.trim()) return;
    const mine = ++runId;
    try {
      const a = await one(input.a), b = await one(input.b);
      if (mine !== runId) return;
      let first = 0;
      while (first < a.ids.length && first < b.ids.length && a.ids[first] === b.ids[first]) first++;
      // Per position: the hidden rows of A and B compared (exact equality of every float).
      const C = a.hidden.dims[1]!;
      const rows = Array.from({ length: Math.min(a.ids.length, b.ids.length) }, (_, i) => {
        const x = a.hidden.data.subarray(i * C, (i + 1) * C), y = b.hidden.data.subarray(i * C, (i + 1) * C);
        let diff = 0, same = true;
        for (let c = 0; c < C; c++) {
          if (x[c] !== y[c]) same = false;
          diff = Math.max(diff, Math.abs(x[c]! - y[c]!));
        }
        return { diff, same };
      });
      view = { a, b, rows, first };
      state['causal'] = { a: { text: input.a, ids: a.ids, tokens: a.tokens, hidden: a.hidden, probs: a.probs },
                          b: { text: input.b, ids: b.ids, tokens: b.tokens, hidden: b.hidden }, rows, first };
      render();
    } catch (e) {
      if (mine === runId) ch.showError(e);
    }
  }
  return { run };
}
