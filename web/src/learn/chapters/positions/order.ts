// Section 1: attention without positions is blind to order. The attention lab
// (engine.attention, d_model 8, 2 heads, seed 1, no positions) on the reader's words and
// on a shuffle of them; each row of the second output is a row of the first, moved. With
// the causal mask on (the reader's box) the same experiment shows the mask giving order
// by itself: a word's row changes when what comes before it changes. The page only
// compares the two engine results (the largest difference, a check, no maths of the
// model). Legend: T tokens, C = d_model.
import type { AttentionResult } from 'transformer-playground';
import { NumberMatrix } from '../../../widgets/number_matrix';
import { el } from '../../../widgets/dom';
import { numberTable } from '../../../widgets/tables';
import { latest } from '../../latest';
import type { PosChapter } from './dom';

const C = 8;

/** A permutation of 0..n-1 that moves something when n > 1 (a seeded shuffle; data movement only). */
function shuffle(n: number, seed: number): number[] {
  let s = seed >>> 0 || 1;
  const rnd = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
  for (let tries = 0; ; tries++) {
    const p = Array.from({ length: n }, (_, i) => i);
    for (let i = n - 1; i > 0; i--) {
      const j = Math.floor(rnd() * (i + 1));
      [p[i], p[j]] = [p[j]!, p[i]!];
    }
    if (n < 2 || tries > 20 || p.some((v, i) => v !== i)) return p;
  }
}

export function orderSection(ch: PosChapter): { run: () => Promise<void> } {
  const state = ch.debug.state;
  let words = 'dog bites man in the park';
  let seed = 7;
  let causal = false;
  let a: AttentionResult | null = null, b: AttentionResult | null = null, perm: number[] = [], shownCausal = false;
  const s = ch.section('hOrder');
  ch.prose(s, 'orderWhat');
  const cols = Array.from({ length: C }, (_, c) => () => ch.t('colDim', { c }));
  const fig = ch.figure(s, {
    caption: 'figOrderCaption', label: 'figOrderLabel',
    table: (host) => {
      if (!a || !b) return;
      const cl = cols.map((f) => f());
      host.replaceChildren(numberTable(ch.t('matOutA'), a.tokens, cl, a.out.data), numberTable(ch.t('matOutB'), b.tokens, cl, b.out.data));
    },
  });
  const input = el('input');
  input.type = 'text';
  input.value = words;
  input.autocomplete = 'off';
  input.spellcheck = false;
  input.addEventListener('input', () => { words = input.value; void run(); });
  const again = ch.button('shuffleButton');
  again.addEventListener('click', () => { seed++; void run(); });
  const causalBox = el('input');
  causalBox.type = 'checkbox';
  causalBox.addEventListener('change', () => { causal = causalBox.checked; void run(); });
  fig.controls.append(ch.field('wordsLabel', input, 'pos-words').element, again, ch.field('causalLabel', causalBox, 'pos-causal').element);
  const common = { rowAxis: () => ch.t('axisToken'), colAxis: () => ch.t('axisDimension'), digits: 3,
                   heat: { map: 'viridis' as const, domain: 'symmetric' as const } };
  const mA = new NumberMatrix(1, C, { ...common, label: () => ch.t('matOutA'), sym: 'outA' });
  const mB = new NumberMatrix(1, C, { ...common, label: () => ch.t('matOutB'), sym: 'outB' });
  let lineParams: Record<string, string> = { words: '', diff: '' };
  const line = ch.prose(fig.view, 'orderLine', () => lineParams);
  const causalLine = ch.prose(fig.view, 'orderLineCausal', () => lineParams);
  fig.view.prepend(mA.element, mB.element);
  fig.view.classList.add('pos-order');
  ch.prose(s, 'orderAfter');

  function render(): void {
    if (!a || !b) return;
    const colLabels = cols;
    mA.set(a.out.data, { rows: a.tokens.length, cols: C, rowLabels: a.tokens, colLabels });
    mB.set(b.out.data, { rows: b.tokens.length, cols: C, rowLabels: b.tokens, colLabels });
    // Row i of the shuffled output against row perm[i] of the first: a check of two engine results.
    let diff = 0;
    perm.forEach((pi, i) => {
      for (let c = 0; c < C; c++) diff = Math.max(diff, Math.abs(b!.out.data[i * C + c]! - a!.out.data[pi * C + c]!));
    });
    // With the mask: the rows whose word sees the same words before it in both orders.
    const same = perm.filter((pi, i) => new Set(perm.slice(0, i + 1)).size === pi + 1 && perm.slice(0, i + 1).every((x) => x <= pi)).length;
    lineParams = { words: b.tokens.join(' '), diff: diff === 0 ? '0' : diff.toExponential(1), same: String(same), T: String(perm.length) };
    line.rerender();
    causalLine.rerender();
    line.hidden = shownCausal;
    causalLine.hidden = !shownCausal;
    state['order'] = { tokens: a.tokens, shuffled: b.tokens, perm, a: a.out, b: b.out, maxDiff: diff, causal: shownCausal };
    fig.refreshTable();
    ch.debug.renders++;
  }
  ch.onLocale(render);

  const run = latest(ch, async (isLatest) => {
    const tokens = words.trim().split(/\s+/).filter(Boolean).slice(0, 8);
    if (tokens.length === 0) return;
    const p = shuffle(tokens.length, seed);
    const engine = await ch.engine();
    const asked = causal;
    const ra = await engine.attention({ tokens, dModel: C, heads: 2, seed: 1, causal: asked });
    const rb = await engine.attention({ tokens: p.map((i) => tokens[i]!), dModel: C, heads: 2, seed: 1, causal: asked });
    if (!isLatest()) return;
    shownCausal = asked;
    a = ra;
    b = rb;
    perm = p;
    render();
  });
  return { run };
}
