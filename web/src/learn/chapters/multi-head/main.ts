// Chapter 6, "Multi-head attention". Three live figures, every number from the engine:
//   1. the attention lab (engine.attention): the reader's words, h = 1, 2 or 4 heads of
//      d_model = 8 — Q with its columns grouped by head, each head's map, the
//      concatenation of the heads' outputs and the block's output after W_O;
//   2. brown-gpt on the reader's sentence (model.forward with attention, engine.headStats):
//      every layer × head map, the strongest previous-token and first-token heads by the
//      engine's statistics, any head opened large, a link into the playground;
//   3. parameter and FLOP counts (engine.learn('mhaCost'), nn/attention_cost.h) for the
//      d_model, h and T the reader picks, and the same counts for every h.
// The page only arranges the engine's numbers: putting the per-head (h, T, d_k) outputs
// side by side as (T, d_model) columns is data movement, and picking the largest of the
// engine's statistics is a choice of what to show.
//
// Legend: T tokens, C = d_model, H heads, D = d_k = C/H, L layers.
import { startChapter, type TextParams } from '../../chapter';
import { proseHtml } from '../../maths';
import { locale } from '../../../i18n/i18n';
import type { AttentionResult, FloatTensor, Model } from '../../../engine/engine';
import type { MhaCostResult } from '../../../engine/learn_calls/multihead';
import { HeadGrid } from '../../../widgets/head_grid';
import { Heatmap } from '../../../widgets/heatmap';
import { LayerHeadGrid } from '../../../widgets/layer_head_grid';
import { NumberMatrix, formatNumber } from '../../../widgets/number_matrix';
import { onThemeChange } from '../../../widgets/theme';
import { visibleToken } from '../../../widgets/token_text';
import { TEXT } from './text';
import './multi_head.css';

type Key = keyof typeof TEXT.en;
const ch = startChapter('multi-head', TEXT);
const state = ch.debug.state;

// ---- small DOM helpers -------------------------------------------------------------

function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  return e;
}

/** Text of `key` now and after each language switch (HTML with maths when `html`). */
function bind(e: HTMLElement, key: Key, params?: () => TextParams, html = false): void {
  const render = () => {
    const s = ch.t(key, params?.());
    if (html) e.innerHTML = proseHtml(s);
    else e.textContent = s;
  };
  render();
  ch.onLocale(render);
}

/** A labelled control: <div class="field"><label for=id>…</label>input</div>. */
function field(key: Key, input: HTMLElement, id: string): HTMLElement {
  const f = el('div', 'field');
  const l = el('label');
  l.htmlFor = id;
  input.id = id;
  bind(l, key);
  f.append(l, input);
  return f;
}

/** A segmented choice (radio buttons) in a fieldset. */
function segmented(key: Key, name: string, values: number[], value: number, onPick: (v: number) => void): HTMLElement {
  const fs = el('fieldset', 'field');
  const legend = el('legend');
  bind(legend, key);
  const seg = el('div', 'segmented');
  values.forEach((v) => {
    const r = el('input');
    r.type = 'radio';
    r.name = name;
    r.id = `${name}-${v}`;
    r.value = String(v);
    r.checked = v === value;
    r.addEventListener('change', () => { if (r.checked) onPick(v); });
    const l = el('label');
    l.htmlFor = r.id;
    l.textContent = String(v);
    seg.append(r, l);
  });
  fs.append(legend, seg);
  return fs;
}

const nf = () => new Intl.NumberFormat(locale());
const fmt = (v: number) => nf().format(v);
const pct = (v: number) => (Number.isFinite(v) ? new Intl.NumberFormat(locale(), { style: 'percent', maximumFractionDigits: 1 }).format(v) : '—');
const fixed = (v: number, d = 3) => (Number.isFinite(v) ? formatNumber(v, d) : '—');

/** An HTML table of a (rows, cols) block of numbers, for the figures' table alternatives. */
function numberTable(caption: string, rowLabels: string[], colLabels: string[], values: ArrayLike<number>, digits = 3): HTMLTableElement {
  const table = el('table');
  table.createCaption().textContent = caption;
  const head = table.createTHead().insertRow();
  head.append(el('th'));
  colLabels.forEach((c) => { const th = el('th'); th.scope = 'col'; th.textContent = c; head.append(th); });
  const body = table.createTBody();
  rowLabels.forEach((r, i) => {
    const tr = body.insertRow();
    const th = el('th');
    th.scope = 'row';
    th.textContent = r;
    tr.append(th);
    colLabels.forEach((_, j) => { tr.insertCell().textContent = formatNumber(values[i * colLabels.length + j]!, digits); });
  });
  return table;
}

/** (H, T, D) per-head rows side by side: (T, H·D), head h in columns [h·D, (h+1)·D).
 *  Data movement only — the engine's "concatenation" before W_O. */
function concatHeads(t: FloatTensor): Float32Array {
  const [H, T, D] = t.dims as [number, number, number];
  const out = new Float32Array(T * H * D);
  for (let h = 0; h < H; h++)
    for (let i = 0; i < T; i++) out.set(t.data.subarray((h * T + i) * D, (h * T + i + 1) * D), i * H * D + h * D);
  return out;
}

// =====================================================================================
// 1. One attention, h heads: the attention lab.
// =====================================================================================

const C_LAB = 8;
const lab = { words: 'the cat sat on the mat', heads: 2, seed: 1 };
let labResult: AttentionResult | null = null;

const s1 = ch.section('hSplit');
ch.prose(s1, 'introWhat');
ch.prose(s1, 'introConvention');

const labTokens = () => lab.words.trim().split(/\s+/).filter(Boolean).slice(0, 8);
const headOfCol = (c: number, D: number) => Math.floor(c / D);
const colLabels = (D: number) => Array.from({ length: C_LAB }, (_, c) => `${c}·h${headOfCol(c, D)}`);

const fig1 = ch.figure(s1, {
  caption: 'figLabCaption', label: 'figLabLabel',
  table: (host) => {
    if (!labResult) return;
    const r = labResult, T = r.tokens.length, H = r.probs.dims[0]!, D = C_LAB / H;
    host.replaceChildren(
      numberTable(ch.t('matQ'), r.tokens, colLabels(D), concatHeads(r.q)),
      ...Array.from({ length: H }, (_, h) => numberTable(ch.t('headMapTitle', { i: h, from: h * D, to: (h + 1) * D - 1 }),
        r.tokens, r.tokens, r.probs.data.subarray(h * T * T, (h + 1) * T * T))),
      numberTable(ch.t('matConcat'), r.tokens, colLabels(D), concatHeads(r.headOut)),
      numberTable(ch.t('matOut'), r.tokens, colLabels(C_LAB).map((_, c) => String(c)), r.out.data),
    );
  },
});
{
  const words = el('input');
  words.type = 'text';
  words.value = lab.words;
  words.autocomplete = 'off';
  words.spellcheck = false;
  words.addEventListener('input', () => { lab.words = words.value; void runLab(); });
  const seed = el('input');
  seed.type = 'number';
  seed.min = '0';
  seed.max = '999';
  seed.value = String(lab.seed);
  seed.addEventListener('input', () => {
    const v = Number(seed.value);
    if (Number.isInteger(v) && v >= 0) { lab.seed = v; void runLab(); }
  });
  fig1.controls.append(field('wordsLabel', words, 'mh-words'),
                       segmented('headsLabel', 'mh-heads', [1, 2, 4], lab.heads, (v) => { lab.heads = v; void runLab(); }),
                       field('seedLabel', seed, 'mh-seed'));
}
const shapeLine = el('p', 'mh-shape');
const qMatrix = new NumberMatrix(1, C_LAB, { label: () => ch.t('matQ'), sym: 'Q', digits: 2, heat: { map: 'viridis', domain: 'symmetric' } });
const mapsBox = el('div', 'mh-maps');
mapsBox.dataset.sym = 'A';
const mapsTitle = el('h3', 'mh-sub');
bind(mapsTitle, 'mapsTitle');
const headGrid = new HeadGrid();
mapsBox.append(mapsTitle, headGrid.element);
const concatMatrix = new NumberMatrix(1, C_LAB, { label: () => ch.t('matConcat'), sym: 'concat', digits: 2, heat: { map: 'viridis', domain: 'symmetric' } });
const outMatrix = new NumberMatrix(1, C_LAB, { label: () => ch.t('matOut'), sym: 'out', digits: 2, heat: { map: 'viridis', domain: 'symmetric' } });
const labFormula = el('div');
fig1.view.append(shapeLine, qMatrix.element, mapsBox, concatMatrix.element, outMatrix.element);
fig1.view.classList.add('mh-lab');
fig1.element.insertBefore(labFormula, fig1.view);
const f1 = ch.formula(labFormula, () => {
  const H = lab.heads, D = C_LAB / H;
  return String.raw`\begin{aligned}
\sym{Q}{Q_i} &= \text{columns } ${D}i \ldots ${D}(i+1) - 1 \text{ of } Q \;(K_i, V_i \text{ likewise}) \qquad i = 0 \ldots ${H - 1},\; d_k = ${C_LAB}/${H} = ${D}\\
\text{head}_i &= \sym{A}{\operatorname{softmax}\!\Big(\tfrac{Q_i K_i^\top}{\sqrt{${D}}}\Big)}\, V_i\\
\sym{out}{\operatorname{MultiHead}(X)} &= \sym{concat}{\operatorname{Concat}(\text{head}_0, \ldots, \text{head}_{${H - 1}})}\, W_O^\top + b_O
\end{aligned}`;
});

// Mistake: "each head sees only part of the tokens" — the engine's shapes, live.
const tokensDemo = el('div', 'mh-demo-lines');
ch.mistake(s1, { title: 'mTokensTitle', body: 'mTokensBody', demo: (host) => host.append(tokensDemo) });

function renderLab(): void {
  const r = labResult;
  if (!r) return;
  const T = r.tokens.length, H = r.probs.dims[0]!, D = r.q.dims[2]!;
  shapeLine.innerHTML = proseHtml(ch.t('shapeLine', { h: H, dk: D, T, C: C_LAB }));
  qMatrix.set(concatHeads(r.q), { rows: T, cols: C_LAB, rowLabels: r.tokens, colLabels: colLabels(D) });
  // Colour scale from 0 to the largest weight shown: seeded random weights give nearly
  // uniform rows, which a 0…1 scale would draw as one colour (the legend says the range).
  let top = 0;
  for (const v of r.probs.data) top = Math.max(top, v);
  headGrid.update({ tokens: r.tokens, probs: r.probs.data, heads: H, domain: [0, top || 1],
                    titleFor: (h) => ch.t('headMapTitle', { i: h, from: h * D, to: (h + 1) * D - 1 }) });
  concatMatrix.set(concatHeads(r.headOut), { rows: T, cols: C_LAB, rowLabels: r.tokens, colLabels: colLabels(D) });
  outMatrix.set(r.out.data, { rows: T, cols: C_LAB, rowLabels: r.tokens, colLabels: colLabels(C_LAB).map((_, c) => String(c)) });
  f1.update();
  tokensDemo.replaceChildren(...Array.from({ length: H }, (_, h) => {
    const p = el('p');
    const row = Array.from(r.probs.data.subarray((h * T + T - 1) * T, (h * T + T) * T), (v) => formatNumber(v, 2)).join(', ');
    p.innerHTML = proseHtml(ch.t('mTokensLine', { i: h, T: r.q.dims[1]!, dk: D, C: C_LAB, word: r.tokens[T - 1]!, row: `[${row}]` }));
    return p;
  }));
  fig1.refreshTable();
  ch.debug.renders++;
}
ch.onLocale(renderLab);
onThemeChange(() => headGrid.redraw());

let labRun = 0;
async function runLab(): Promise<void> {
  const tokens = labTokens();
  if (tokens.length === 0) return;
  const args = { tokens, dModel: C_LAB, heads: lab.heads, seed: lab.seed };
  const mine = ++labRun;
  try {
    const engine = await ch.engine();
    const r = await engine.attention(args);
    if (mine !== labRun) return;
    labResult = r;
    state['lab'] = { ...args, result: r };
    ch.setStatus(null);
    renderLab();
  } catch (e) {
    if (mine === labRun) ch.showError(e);
  }
}

// =====================================================================================
// 2. brown-gpt's heads on the reader's sentence.
// =====================================================================================

const MODEL = 'brown-gpt';
const brown = {
  text: 'The jury said it did not find any evidence that the election was unfair.',
  selected: { layer: 1, head: 0 },
};
interface Found { layer: number; head: number; share: number }
let brownView: {
  tokens: string[]; maps: Float32Array[]; stats: Float32Array[]; heads: number; T: number; total: number; max: number;
  prev: Found | null; first: Found | null; exLayer: number;
} | null = null;

const s2 = ch.section('hBrown');
ch.prose(s2, 'brownIntro');
const fig2 = ch.figure(s2, {
  caption: 'figBrownCaption', label: 'figBrownLabel',
  // The grid's pictures as numbers: every head of the selected layer.
  table: (host) => {
    const v = brownView;
    if (!v) return;
    const l = brown.selected.layer, T = v.T;
    host.replaceChildren(...Array.from({ length: v.heads }, (_, h) => numberTable(ch.t('selectedTitle', { layer: l + 1, head: h + 1 }),
      v.tokens, v.tokens, v.maps[l]!.subarray(h * T * T, (h + 1) * T * T))));
  },
});
const sentence = el('textarea');
sentence.rows = 2;
sentence.value = brown.text;
sentence.spellcheck = false;
sentence.addEventListener('input', () => { brown.text = sentence.value; scheduleBrown(); });
fig2.controls.append(field('sentenceLabel', sentence, 'mh-sentence'));
fig2.controls.classList.add('mh-sentence-controls');

const foundBox = el('div', 'mh-found');
const truncNote = el('p', 'mh-note');
truncNote.hidden = true;
const gridBox = el('div', 'mh-grid');
const bigMap = new Heatmap({ title: '', maxCell: 36, digits: 3 });
const bigBox = el('div', 'mh-big');
bigBox.append(bigMap.element);
const lhGrid = new LayerHeadGrid((l, h) => selectHead(l, h));
gridBox.append(lhGrid.element);
fig2.view.append(truncNote, foundBox, gridBox, bigBox);
fig2.view.classList.add('mh-brown');
const statsBox = el('div', 'mh-stats');
fig2.view.append(statsBox);
const link = ch.playgroundLink(s2, 'openPlayground', () => ({
  model: MODEL, text: brown.text.trim(), layer: brown.selected.layer, head: brown.selected.head,
}));
onThemeChange(() => { lhGrid.redraw(); bigMap.redraw(); });

const STAT_KEYS: Key[] = ['statsEntropy', 'statsDistance', 'statsFirst', 'statsPrev'];

function statsTable(): HTMLTableElement {
  const table = el('table', 'mh-stats-table');
  table.createCaption().textContent = ch.t('statsCaption');
  const head = table.createTHead().insertRow();
  for (const k of ['statsLayer', 'statsHead', ...STAT_KEYS] as Key[]) {
    const th = el('th');
    th.scope = 'col';
    th.textContent = ch.t(k);
    head.append(th);
  }
  const body = table.createTBody();
  const v = brownView;
  if (!v) return table;
  v.stats.forEach((s, l) => {
    for (let h = 0; h < v.heads; h++) {
      const tr = body.insertRow();
      tr.dataset.layer = String(l);
      tr.dataset.head = String(h);
      if (v.prev && v.prev.layer === l && v.prev.head === h) tr.classList.add('is-prev');
      if (v.first && v.first.layer === l && v.first.head === h) tr.classList.add('is-first');
      tr.insertCell().textContent = String(l + 1);
      tr.insertCell().textContent = String(h + 1);
      tr.insertCell().textContent = fixed(s[h * 4]!, 2);
      tr.insertCell().textContent = fixed(s[h * 4 + 1]!, 2);
      tr.insertCell().textContent = pct(s[h * 4 + 2]!);
      tr.insertCell().textContent = pct(s[h * 4 + 3]!);
    }
  });
  return table;
}

/** The (layer, head) with the largest engine statistic `col` (NaN never wins). */
function strongest(stats: Float32Array[], heads: number, col: number): Found | null {
  let best: Found | null = null;
  stats.forEach((s, layer) => {
    for (let head = 0; head < heads; head++) {
      const share = s[head * 4 + col]!;
      if (Number.isFinite(share) && (!best || share > best.share)) best = { layer, head, share };
    }
  });
  return best;
}

let causalCache: { T: number; mask: Float32Array } | null = null;
/** The causal mask (T, T) as the heatmap draws it (1 = key after the query). */
function causalMask(T: number): Float32Array {
  if (causalCache?.T !== T) {
    const mask = new Float32Array(T * T);
    for (let i = 0; i < T; i++) for (let j = i + 1; j < T; j++) mask[i * T + j] = 1;
    causalCache = { T, mask };
  }
  return causalCache.mask;
}

function renderBrown(): void {
  const v = brownView;
  if (!v) return;
  const { layer, head } = brown.selected;
  const T = v.T;
  const masked = causalMask(T);
  lhGrid.update({ layers: v.maps, heads: v.heads, rows: T, cols: T, masked, selected: brown.selected });
  bigMap.setTitle(ch.t('selectedTitle', { layer: layer + 1, head: head + 1 }));
  bigMap.update({ rowLabels: v.tokens, colLabels: v.tokens, values: v.maps[layer]!.subarray(head * T * T, (head + 1) * T * T), masked });
  truncNote.hidden = v.total <= v.T;
  truncNote.textContent = truncNote.hidden ? '' : ch.t('truncated', { n: v.total, max: v.max });
  foundBox.replaceChildren();
  const found = (f: Found | null, key: Key, kind: string) => {
    if (!f) return;
    const p = el('p');
    p.dataset.kind = kind;
    const span = el('span');
    span.innerHTML = proseHtml(ch.t(key, { layer: f.layer + 1, head: f.head + 1, share: pct(f.share) }));
    const b = el('button', 'mh-show');
    b.type = 'button';
    b.dataset.kind = kind;
    b.textContent = ch.t('showIt', { layer: f.layer + 1, head: f.head + 1 });
    b.addEventListener('click', () => selectHead(f.layer, f.head));
    p.append(span, ' ', b);
    foundBox.append(p);
  };
  found(v.prev, 'foundPrev', 'prev');
  found(v.first, 'foundFirst', 'first');
  statsBox.replaceChildren(statsTable());
  (link as HTMLAnchorElement & { update?: () => void }).update?.();
  fig2.refreshTable();
  ch.debug.renders++;
}
ch.onLocale(renderBrown);

function selectHead(layer: number, head: number): void {
  brown.selected = { layer, head };
  const b = state['brown'] as Record<string, unknown> | undefined;
  if (b) b['selected'] = { layer, head };
  renderBrown();
}

let brownTimer = 0;
let brownRun = 0;
function scheduleBrown(): void {
  window.clearTimeout(brownTimer);
  brownTimer = window.setTimeout(() => void runBrown(), 250);
}

async function runBrown(): Promise<void> {
  const text = brown.text.trim();
  if (!text) return;
  const mine = ++brownRun;
  try {
    const [engine, model] = await Promise.all([ch.engine(), ch.model(MODEL)]) as [Awaited<ReturnType<typeof ch.engine>>, Model];
    const enc = await model.tokenize(text);
    // The model's context is its limit; longer texts keep their first max_positions tokens.
    const n = Math.min(enc.ids.length, model.info.max_positions);
    const ids = enc.ids.slice(0, n);
    const out = await model.forward(ids, { attention: true });
    const layers = out.attention.filter((a) => /^dec\.\d+\.attn\.probs$/.test(a.name))
      .sort((a, b) => Number(a.name.split('.')[1]) - Number(b.name.split('.')[1]));
    const stats = await engine.headStats(layers, { causal: true });
    if (mine !== brownRun) return;
    const heads = layers[0]!.dims[0]!, T = layers[0]!.dims[1]!;
    const statData = stats.map((s) => s.data);
    const prev = strongest(statData, heads, 3), first = strongest(statData, heads, 2);
    const exLayer = prev?.layer ?? 1;
    brownView = { tokens: Array.from(enc.tokens.slice(0, n), (t) => visibleToken(t, true)), maps: layers.map((l) => l.data),
                  stats: statData, heads, T, total: enc.ids.length, max: model.info.max_positions, prev, first, exLayer };
    if (brown.selected.layer >= layers.length || brown.selected.head >= heads) brown.selected = { layer: 0, head: 0 };
    if (!state['brown']) brown.selected = prev ? { layer: prev.layer, head: prev.head } : brown.selected;
    state['brown'] = { text, ids: Array.from(ids), tokens: enc.tokens.slice(0, n), maps: layers, stats, prev, first,
                       exLayer, selected: { ...brown.selected } };
    renderBrown();
    refreshExercise();
  } catch (e) {
    if (mine === brownRun) ch.showError(e);
  }
}

// The exercise: which head of the layer holding the strongest previous-token head puts
// the most weight on the previous token? Answered from the engine's statistics.
const ex = ch.exercise(s2, {
  id: 'previous-token-head',
  question: 'exQuestion',
  questionParams: () => ({ layer: (brownView?.exLayer ?? 1) + 1 }),
  choices: () => Array.from({ length: brownView?.heads ?? 4 }, (_, h) => ch.t('exChoice', { head: h + 1 })),
  answer: async () => {
    const v = brownView;
    if (!v) throw new Error(ch.t('sentenceLabel'));
    // Ask the engine again for this layer's statistics: the answer is its numbers.
    const engine = await ch.engine();
    const [s] = await engine.headStats([{ data: v.maps[v.exLayer]!, dims: [v.heads, v.T, v.T] }], { causal: true });
    const shares = Array.from({ length: v.heads }, (_, h) => s!.data[h * 4 + 3]!);
    let correct = 0;
    shares.forEach((x, h) => { if (x > shares[correct]!) correct = h; });
    state['exercise'] = { layer: v.exLayer, shares, correct };
    const list = shares.map((x, h) => `${ch.t('exChoice', { head: h + 1 })} ${pct(x)}`).join(locale() === 'zh-CN' ? '，' : ', ');
    return { correct, explanation: ch.t('exExplain', { layer: v.exLayer + 1, list, head: correct + 1, share: pct(shares[correct]!) }) };
  },
});
function refreshExercise(): void {
  // The question names the layer: re-render it with the new one, then the choices.
  (ex.element.querySelector('.question') as (HTMLElement & { rerender?: () => void }) | null)?.rerender?.();
  ex.refresh();
}

// =====================================================================================
// 3. Parameters and FLOPs.
// =====================================================================================

const D_MODELS = [8, 64, 128, 256, 512, 768, 1024, 2048, 4096];
const cost = { dModel: 512, heads: 8, tokens: 128 };
let costResult: MhaCostResult | null = null;
let sweep: { heads: number; result: MhaCostResult }[] = [];

const s3 = ch.section('hCost');
ch.prose(s3, 'costIntro');
const ROWS: [Key, keyof MhaCostResult, string][] = [
  ['rowDk', 'headDim', String.raw`d_\text{model}/h`],
  ['rowParamsQ', 'paramsQ', String.raw`d_\text{model}^2 + d_\text{model}`],
  ['rowParamsTotal', 'paramsTotal', String.raw`4d_\text{model}^2 + 4d_\text{model}`],
  ['rowFlopsQkv', 'flopsQkv', String.raw`3 \cdot 2Td_\text{model}^2`],
  ['rowFlopsScores', 'flopsScores', String.raw`h \cdot 2T^2 d_k = 2T^2 d_\text{model}`],
  ['rowFlopsMix', 'flopsMix', String.raw`h \cdot 2T^2 d_k = 2T^2 d_\text{model}`],
  ['rowFlopsOut', 'flopsOut', String.raw`2Td_\text{model}^2`],
  ['rowFlopsTotal', 'flopsTotal', String.raw`8Td_\text{model}^2 + 4T^2 d_\text{model}`],
  ['rowMap', 'mapEntries', String.raw`hT^2`],
];

function costTable(): HTMLTableElement {
  const table = el('table', 'mh-cost-table');
  const head = table.createTHead().insertRow();
  for (const k of ['costWhat', 'costFormula', 'costValue'] as Key[]) {
    const th = el('th');
    th.scope = 'col';
    th.textContent = ch.t(k);
    head.append(th);
  }
  const body = table.createTBody();
  for (const [key, field, tex] of ROWS) {
    const tr = body.insertRow();
    tr.dataset.field = field;
    const th = el('th');
    th.scope = 'row';
    th.textContent = ch.t(key);
    tr.append(th);
    tr.insertCell().innerHTML = proseHtml(`$${tex}$`);
    const td = tr.insertCell();
    td.className = 'num';
    td.textContent = costResult ? fmt(costResult[field]) : '';
  }
  return table;
}

const fig3 = ch.figure(s3, { caption: 'figCostCaption', label: 'figCostLabel', table: (host) => host.replaceChildren(costTable()) });
const dSelect = el('select');
D_MODELS.forEach((d) => { const o = el('option'); o.value = o.textContent = String(d); dSelect.append(o); });
dSelect.value = String(cost.dModel);
const hSelect = el('select');
const tInput = el('input');
tInput.type = 'number';
tInput.min = '1';
tInput.max = '65536';
tInput.value = String(cost.tokens);
const divisors = (C: number) => Array.from({ length: Math.min(C, 64) }, (_, i) => i + 1).filter((h) => C % h === 0);
function fillHeads(): void {
  const hs = divisors(cost.dModel);
  if (!hs.includes(cost.heads)) cost.heads = hs.filter((h) => h <= cost.heads).pop() ?? 1;
  hSelect.replaceChildren(...hs.map((h) => { const o = el('option'); o.value = o.textContent = String(h); return o; }));
  hSelect.value = String(cost.heads);
}
fillHeads();
dSelect.addEventListener('change', () => { cost.dModel = Number(dSelect.value); fillHeads(); void runCost(); });
hSelect.addEventListener('change', () => { cost.heads = Number(hSelect.value); void runCost(); });
tInput.addEventListener('input', () => {
  const v = Number(tInput.value);
  if (Number.isInteger(v) && v >= 1 && v <= 65536) { cost.tokens = v; void runCost(); }
});
fig3.controls.append(field('dModelLabel', dSelect, 'mh-dmodel'), field('headsLabel', hSelect, 'mh-h'), field('tokensLabel', tInput, 'mh-tokens'));
const costFormulaBox = el('div');
const costTableBox = el('div', 'mh-cost');
fig3.view.append(costFormulaBox, costTableBox);
fig3.view.classList.add('mh-cost-view');
const f3 = ch.formula(costFormulaBox, () => {
  const { dModel: C, tokens: T } = cost;
  const r = costResult;
  const n = (v: number | undefined) => (v === undefined ? '?' : fmt(v).replace(/,/g, '{,}'));
  return String.raw`\begin{aligned}
\text{${ch.t('fParams')}} &= 4d_\text{model}^2 + 4d_\text{model}\\
&= 4 \cdot ${C}^2 + 4 \cdot ${C} = ${n(r?.paramsTotal)}\\[0.4em]
\text{${ch.t('fFlops')}} &= 8Td_\text{model}^2 + 4T^2 d_\text{model}\\
&= 8 \cdot ${T} \cdot ${C}^2 + 4 \cdot ${T}^2 \cdot ${C}\\
&= ${n(r?.flopsTotal)}
\end{aligned}`;
});

// Mistake: "more heads mean more parameters" — the engine's counts for every h.
const sweepBox = el('div', 'mh-sweep');
ch.mistake(s3, { title: 'mParamsTitle', body: 'mParamsBody', bodyParams: () => ({ C: cost.dModel, T: cost.tokens }),
                 demo: (host) => host.append(sweepBox) });

function renderCost(): void {
  costTableBox.replaceChildren(costTable());
  f3.update();
  const table = el('table', 'mh-sweep-table');
  table.createCaption().textContent = ch.t('mParamsCaption');
  const head = table.createTHead().insertRow();
  for (const text of ['h', 'd_k', ch.t('rowParamsTotal'), ch.t('rowFlopsTotal'), ch.t('rowMap')]) {
    const th = el('th');
    th.scope = 'col';
    th.textContent = text;
    head.append(th);
  }
  const body = table.createTBody();
  for (const { heads, result } of sweep) {
    const tr = body.insertRow();
    tr.dataset.heads = String(heads);
    if (heads === cost.heads) tr.classList.add('is-current');
    for (const v of [heads, result.headDim, result.paramsTotal, result.flopsTotal, result.mapEntries]) {
      const td = tr.insertCell();
      td.className = 'num';
      td.textContent = fmt(v);
    }
  }
  sweepBox.replaceChildren(table);
  // The box's prose names d_model and T.
  (sweepBox.parentElement?.parentElement?.querySelector('.prose') as (HTMLElement & { rerender?: () => void }) | null)?.rerender?.();
  fig3.refreshTable();
  ch.debug.renders++;
}
ch.onLocale(renderCost);

let costRun = 0;
async function runCost(): Promise<void> {
  const mine = ++costRun;
  const args = { dModel: cost.dModel, heads: cost.heads, tokens: cost.tokens };
  try {
    const engine = await ch.engine();
    const result = await engine.learn('mhaCost', args);
    const all = await Promise.all(divisors(cost.dModel).map(async (heads) =>
      ({ heads, result: await engine.learn('mhaCost', { ...args, heads }) })));
    if (mine !== costRun) return;
    costResult = result;
    sweep = all;
    state['cost'] = { ...args, result, sweep: all };
    renderCost();
  } catch (e) {
    if (mine === costRun) ch.showError(e);
  }
}

// The lab first (the first figure, drawn as soon as the module answers), then the rest.
void runLab().then(() => Promise.all([runCost(), runBrown()]));
