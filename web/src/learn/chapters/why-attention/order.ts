// Chapter 1, section "Attention by itself ignores order": the engine's attention lab
// (engine.attention: one self-attention layer, d_model 8, 2 heads, seed 1, no positions,
// no mask — the call chapter 7's order.ts makes) on the reader's words and on the same
// words reordered (reversed, or the first word moved to the end). The page moves the
// words (data movement only) and compares the two engine results: the largest difference
// between row i of the second and row π(i) of the first, a check, no maths of the model.
//
// Legend: T tokens, C = d_model.
import type { AttentionResult } from 'transformer-playground';
import { el } from '../../../widgets/dom';
import { NumberMatrix } from '../../../widgets/number_matrix';
import { numberTable } from '../../../widgets/tables';
import { latest } from '../../latest';
import { fmtLen } from './gradients';
import type { WhyChapter } from './dom';

const C = 8;
const HEADS = 2;
const SEED = 1;
const MAX_WORDS = 8;
export type Reorder = 'reverse' | 'rotate';

/** perm[i] = the position in the reader's order of the word the reordered input has at i. */
export function reorder(n: number, how: Reorder): number[] {
  return Array.from({ length: n }, (_, i) => (how === 'reverse' ? n - 1 - i : (i + 1) % n));
}

export function orderSection(ch: WhyChapter): { run: () => Promise<void> } {
  const state = {
    words: 'dog bites man',
    how: 'reverse' as Reorder,
    shown: null as null | { tokens: string[]; reordered: string[]; perm: number[]; a: Float32Array; b: Float32Array; maxDiff: number },
    runs: 0,
  };
  ch.debug.state['order'] = state;
  let a: AttentionResult | null = null, b: AttentionResult | null = null;

  const s = ch.section('hOrder');
  ch.prose(s, 'orderIntro');
  const colLabels = Array.from({ length: C }, (_, c) => () => ch.t('colDim', { c: c + 1 }));
  const rowLabels = (tokens: string[]) => tokens.map((t, i) => `${i + 1} ${t}`);
  const fig = ch.figure(s, {
    caption: 'figOrder', label: 'figOrderLabel',
    table: (host) => {
      if (!a || !b) return;
      const cl = colLabels.map((f) => f());
      host.replaceChildren(numberTable(ch.t('matOrderA'), rowLabels(a.tokens), cl, a.out.data),
                           numberTable(ch.t('matOrderB'), rowLabels(b.tokens), cl, b.out.data));
    },
  });
  const input = el('input');
  input.type = 'text';
  input.value = state.words;
  input.autocomplete = 'off';
  input.spellcheck = false;
  input.maxLength = 80;
  input.addEventListener('input', () => { state.words = input.value; void run(); });
  const how = ch.segmented('orderHow', 'wa-reorder', ['reverse', 'rotate'] as const, state.how, (v) => { state.how = v; void run(); },
                           (v) => ch.t(v === 'reverse' ? 'orderReverse' : 'orderRotate'));
  const words = ch.field('orderWords', input, 'wa-order-words');
  words.element.classList.add('field-text');
  fig.controls.append(words.element, how);

  const common = { rowAxis: () => ch.t('axisTokenPos'), colAxis: () => ch.t('axisDim'), digits: 3,
                   heat: { map: 'viridis' as const, domain: 'symmetric' as const } };
  const mA = new NumberMatrix(1, C, { ...common, label: () => ch.t('matOrderA'), sym: 'orderA' });
  const mB = new NumberMatrix(1, C, { ...common, label: () => ch.t('matOrderB'), sym: 'orderB' });
  fig.view.classList.add('wa-order');
  fig.view.append(mA.element, mB.element);
  let lineParams: Record<string, string> = {};
  const line = ch.prose(fig.view, 'orderLine', () => lineParams);
  line.hidden = true;
  ch.prose(s, 'orderNext');

  /** Paints the last results; `fresh`: they are new (a language switch repaints the same). */
  function render(fresh = false): void {
    if (!a || !b || !state.shown) return;
    mA.set(a.out.data, { rows: a.tokens.length, cols: C, rowLabels: rowLabels(a.tokens), colLabels });
    mB.set(b.out.data, { rows: b.tokens.length, cols: C, rowLabels: rowLabels(b.tokens), colLabels });
    const sh = state.shown;
    lineParams = { words: sh.reordered.join(' '), n: String(sh.a.length), diff: fmtLen(sh.maxDiff),
                   rounding: sh.maxDiff === 0 ? '' : ch.t('orderRounding') };
    line.hidden = false;
    line.rerender();
    fig.refreshTable();
    if (fresh) ch.debug.renders++;
  }
  ch.onLocale(() => render());

  const run = latest(ch, async (isLatest) => {
    const tokens = state.words.trim().split(/\s+/).filter(Boolean).slice(0, MAX_WORDS);
    if (tokens.length === 0) return;
    const perm = reorder(tokens.length, state.how);
    const reordered = perm.map((i) => tokens[i]!);
    const engine = await ch.engine();
    const ra = await engine.attention({ tokens, dModel: C, heads: HEADS, seed: SEED });
    const rb = await engine.attention({ tokens: reordered, dModel: C, heads: HEADS, seed: SEED });
    if (!isLatest()) return;
    a = ra;
    b = rb;
    // Row i of the reordered output against row perm[i] of the first: a check of two engine results.
    let diff = 0;
    perm.forEach((pi, i) => {
      for (let c = 0; c < C; c++) diff = Math.max(diff, Math.abs(rb.out.data[i * C + c]! - ra.out.data[pi * C + c]!));
    });
    state.shown = { tokens, reordered, perm, a: ra.out.data, b: rb.out.data, maxDiff: diff };
    state.runs++;
    render(true);
  });
  return { run };
}
