// Chapter 3, self-attention step by step: three tokens, d = 4, the reader edits X, W_Q,
// W_K and W_V; the engine's attention lab (tfp_attn_lab_*, the multi-head attention the
// models run, one head here) returns Q, K, V, the scores, the scaled scores, the softmax
// and the output, each drawn as a matrix. This file wires inputs to the engine and
// formats its numbers; it computes none of them.
//
// The page writes Q = X W_Q with W_Q of shape (d_model, d_k), as the literature does; the
// engine takes nn.Linear's (out, in) layout, so the weights cross transposed (a layout
// change, no arithmetic). W_O is the identity, so the block's output is Z = A V itself.
import type { AttentionResult } from 'transformer-playground';
import { locale } from '../../../i18n/i18n';
import { formatNumber, NumberMatrix } from '../../../widgets/number_matrix';
import { startChapter } from '../../chapter';
import { TEXT } from './text';

const T = 3, D = 4;
const ch = startChapter('self-attention', TEXT);

// The example: chosen so that every number can be checked by hand (the chapter's
// browser test does) and no query has two equally strong keys.
const EXAMPLE = {
  x: [1, 0, 1, 0, 0, 2, 0, 2, 1, 1, 1, 1],
  wQ: [1, 0, 1, 1, 1, 0, 0, 0, 0, 0, 1, 0, 0, 1, 1, 0],
  wK: [0, 0, 1, 0, 1, 1, 0, 0, 0, 1, 0, 1, 1, 1, 0, 0],
  wV: [0, 2, 0, 0, 0, 3, 0, 0, 1, 0, 3, 0, 1, 1, 0, 0],
};
const IDENTITY = Float32Array.from({ length: D * D }, (_, i) => (i % (D + 1) === 0 ? 1 : 0));

/** (rows, cols) → (cols, rows): the engine's (out, in) layout of a (in, out) matrix. */
function transposed(m: Float32Array, rows: number, cols: number): Float32Array {
  const out = new Float32Array(m.length);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[c * rows + r] = m[r * cols + c]!;
  return out;
}

const state = {
  tokens: locale() === 'zh-CN' ? ['我', '爱', '你'] : ['I', 'love', 'you'],
  query: 2,
  result: null as AttentionResult | null,
  wrong: null as AttentionResult | null,
};
ch.debug.state = state;

const tokenLabels = () => state.tokens.map((t, i) => () => `${i + 1} ${t}`);
const dims = Array.from({ length: D }, (_, i) => () => `${ch.t('axisDim')} ${i + 1}`);

// ---- the idea -----------------------------------------------------------------------
const idea = ch.section('hIdea');
ch.prose(idea, 'idea');
ch.formula(idea, () => String.raw`\sym{Z}{Z} = \sym{A}{\mathrm{softmax}}\!\left(\frac{\sym{Q}{Q}\,\sym{K}{K}^{\top}}{\sqrt{d_k}}\right)\sym{V}{V},\qquad \sym{Q}{Q} = \sym{X}{X}\sym{WQ}{W_Q},\;\; \sym{K}{K} = \sym{X}{X}\sym{WK}{W_K},\;\; \sym{V}{V} = \sym{X}{X}\sym{WV}{W_V}`);

// ---- the live figure ------------------------------------------------------------------
const live = ch.section('hLive');
ch.prose(live, 'live');
const fig = ch.figure(live, { caption: 'figCaption', label: 'figLabel', table: (host) => rowTable(host) });

// Controls: token names, the followed query, reset / random.
const tokenField = document.createElement('div');
tokenField.className = 'field';
const tokenLabel = document.createElement('label');
const tokenInput = document.createElement('input');
tokenInput.type = 'text';
tokenInput.id = 'sa-tokens';
tokenInput.value = state.tokens.join(' ');
tokenInput.autocomplete = 'off';
tokenLabel.htmlFor = tokenInput.id;
const tokenHelp = document.createElement('p');
tokenHelp.className = 'help';
tokenHelp.id = 'sa-tokens-help';
tokenInput.setAttribute('aria-describedby', tokenHelp.id);
tokenField.append(tokenLabel, tokenInput, tokenHelp);

const queryField = document.createElement('fieldset');
queryField.className = 'field';
const queryLegend = document.createElement('legend');
const queryGroup = document.createElement('div');
queryGroup.className = 'segmented';
queryField.append(queryLegend, queryGroup);

const buttons = document.createElement('div');
buttons.className = 'field';
const resetButton = document.createElement('button');
resetButton.type = 'button';
const randomButton = document.createElement('button');
randomButton.type = 'button';
const tieButton = document.createElement('button');
tieButton.type = 'button';
tieButton.id = 'sa-tie';
buttons.append(resetButton, randomButton, tieButton);
fig.controls.append(tokenField, queryField, buttons);

function renderControlText(): void {
  tokenLabel.textContent = ch.t('tokens');
  tokenHelp.textContent = ch.t('tokensHelp');
  queryLegend.textContent = ch.t('query');
  resetButton.textContent = ch.t('resetValues');
  randomButton.textContent = ch.t('randomValues');
  tieButton.textContent = ch.t('tieWeights');
}

function renderQueryChoices(): void {
  queryGroup.replaceChildren();
  state.tokens.forEach((tok, i) => {
    const r = document.createElement('input');
    r.type = 'radio';
    r.name = 'sa-query';
    r.id = `sa-query-${i}`;
    r.value = String(i);
    r.checked = i === state.query;
    r.addEventListener('change', () => {
      state.query = i;
      show();
      exercise.refresh();
    });
    const l = document.createElement('label');
    l.htmlFor = r.id;
    l.textContent = tok;
    queryGroup.append(r, l);
  });
}

// Inputs (editable) and the engine's intermediates (read-only).
const onEdit = () => void compute();
const X = new NumberMatrix(T, D, { label: () => ch.t('lblX'), sym: 'X', rowLabels: tokenLabels(), colLabels: dims,
                                   editable: true, step: 0.5, digits: 2, onChange: onEdit });
const WQ = new NumberMatrix(D, D, { label: () => ch.t('lblWQ'), sym: 'WQ', rowLabels: dims, colLabels: dims, editable: true, step: 0.5, digits: 2, onChange: onEdit });
const WK = new NumberMatrix(D, D, { label: () => ch.t('lblWK'), sym: 'WK', rowLabels: dims, colLabels: dims, editable: true, step: 0.5, digits: 2, onChange: onEdit });
const WV = new NumberMatrix(D, D, { label: () => ch.t('lblWV'), sym: 'WV', rowLabels: dims, colLabels: dims, editable: true, step: 0.5, digits: 2, onChange: onEdit });
const out = (label: 'lblQ' | 'lblK' | 'lblV' | 'lblZ', sym: string) =>
  new NumberMatrix(T, D, { label: () => ch.t(label), sym, rowLabels: tokenLabels(), colLabels: dims, digits: 3,
                           rowAxis: () => ch.t(label === 'lblQ' || label === 'lblZ' ? 'axisQuery' : 'axisKey') });
const Q = out('lblQ', 'Q'), K = out('lblK', 'K'), V = out('lblV', 'V'), Z = out('lblZ', 'Z');
const square = (label: 'lblScores' | 'lblScaled' | 'lblProbs', sym: string, heat: boolean) =>
  new NumberMatrix(T, T, { label: () => ch.t(label), sym, rowLabels: tokenLabels(), colLabels: tokenLabels(), digits: 4,
                           rowAxis: () => ch.t('axisQuery'), colAxis: () => ch.t('axisKey'),
                           ...(heat ? { heat: { domain: [0, 1] as [number, number] } } : {}) });
const S = square('lblScores', 'S', false), SS = square('lblScaled', 'SS', false), A = square('lblProbs', 'A', true);

const group = (...items: HTMLElement[]) => {
  const g = document.createElement('div');
  g.className = 'fig-view';
  g.append(...items);
  return g;
};
// How far S and A are from their transposes (the reader's symmetry question, §conventions).
const symLine = document.createElement('p');
symLine.className = 'help';
symLine.id = 'sa-symmetry';
fig.view.append(group(X.element), group(WQ.element, WK.element, WV.element), group(Q.element, K.element, V.element),
                group(S.element, SS.element, A.element), symLine, group(Z.element));
fig.view.style.flexDirection = 'column';

function resetValues(): void {
  X.set(EXAMPLE.x);
  WQ.set(EXAMPLE.wQ);
  WK.set(EXAMPLE.wK);
  WV.set(EXAMPLE.wV);
}

// ---- one row, slowly ----------------------------------------------------------------------
const rowSection = ch.section('hRow');
const fmtList = (v: ArrayLike<number>, d: number) => Array.from(v, (x) => formatNumber(x, d)).join(', ');
const rowProse = ch.prose(rowSection, 'row', () => rowParams());

function rowOf(t: { data: Float32Array }, i: number, n: number): Float32Array {
  return t.data.subarray(i * n, (i + 1) * n);
}

function rowParams(): Record<string, string | number> {
  const r = state.result;
  const i = state.query;
  if (!r) return { token: state.tokens[i] ?? '', i: i + 1, q: '', scores: '', scaled: '', weights: '', sum: '', mix: '', best: '' };
  const w = rowOf(r.probs, i, T);
  const best = bestKey(w);
  // The sum is the engine's weights added for display, as the reader would add them.
  const sum = Array.from(w).reduce((a, b) => a + b, 0);
  const mix = Array.from(w, (p, j) => `${formatNumber(p, 3)}·v_${j + 1}`).join(' + ');
  return {
    token: state.tokens[i] ?? '', i: i + 1,
    q: fmtList(rowOf(r.q, i, D), 2),
    scores: fmtList(rowOf(r.scores, i, T), 2),
    scaled: fmtList(rowOf(r.scaledScores, i, T), 2),
    weights: fmtList(w, 4),
    sum: formatNumber(sum, 4),
    mix: `$${mix} = (${fmtList(rowOf(r.headOut, i, D), 3)})$`,
    best: state.tokens[best] ?? '',
  };
}

function bestKey(w: ArrayLike<number>): number {
  let best = 0;
  for (let j = 1; j < w.length; j++) if (w[j]! > w[best]!) best = j;
  return best;
}

function rowTable(host: HTMLElement): void {
  const r = state.result;
  if (!r) return;
  const i = state.query;
  const table = document.createElement('table');
  table.createCaption().textContent = ch.t('tableCaption', { token: state.tokens[i] ?? '' });
  const head = table.createTHead().insertRow();
  for (const k of ['tableStep', 'tableScore', 'tableScaled', 'tableWeight'] as const) {
    const th = document.createElement('th');
    th.scope = 'col';
    th.textContent = ch.t(k);
    head.append(th);
  }
  const body = table.createTBody();
  for (let j = 0; j < T; j++) {
    const tr = body.insertRow();
    const th = document.createElement('th');
    th.scope = 'row';
    th.textContent = state.tokens[j] ?? '';
    tr.append(th);
    tr.insertCell().textContent = formatNumber(r.scores.data[i * T + j]!, 4);
    tr.insertCell().textContent = formatNumber(r.scaledScores.data[i * T + j]!, 4);
    tr.insertCell().textContent = formatNumber(r.probs.data[i * T + j]!, 4);
  }
  host.replaceChildren(table);
}

// ---- conventions, exercise, mistake ------------------------------------------------------------
const convention = ch.section('hConvention');
ch.prose(convention, 'convention');

const exercise = ch.exercise(convention, {
  id: 'strongest-key',
  question: 'exQuestion',
  questionParams: () => ({ token: state.tokens[state.query] ?? '' }),
  choices: () => [...state.tokens],
  answer: async () => {
    const r = state.result ?? (await compute());
    if (!r) throw new Error('no result');
    const i = state.query;
    const w = rowOf(r.probs, i, T);
    const best = bestKey(w);
    const tie = Array.from(w).some((p, j) => j !== best && p === w[best]);
    return {
      correct: best,
      explanation: ch.t('exExplain', {
        token: state.tokens[i] ?? '', weights: fmtList(w, 4), best: state.tokens[best] ?? '',
        p: formatNumber(w[best]!, 4), score: formatNumber(r.scores.data[i * T + best]!, 2),
      }) + (tie ? ch.t('exTie', { best: state.tokens[best] ?? '' }) : ''),
    };
  },
});

/** The largest |m_ij − m_ji| of a (T, T) matrix and where it is (i < j). */
function asymmetry(m: Float32Array): { d: number; i: number; j: number } {
  let best = { d: 0, i: 0, j: 1 };
  for (let i = 0; i < T; i++)
    for (let j = i + 1; j < T; j++) {
      const d = Math.abs(m[i * T + j]! - m[j * T + i]!);
      if (d > best.d) best = { d, i, j };
    }
  return best;
}

// Is A symmetric when W_K = W_Q? The engine answers with the reader's W_Q and X.
const symExercise = ch.exercise(convention, {
  id: 'symmetric-attention',
  question: 'exSymQuestion',
  choices: () => [ch.t('exSymYes'), ch.t('exSymNo')],
  answer: async () => {
    const engine = await ch.engine();
    const wQ = transposed(WQ.values, D, D), wV = transposed(WV.values, D, D);
    const r = await engine.attention({ tokens: state.tokens, dModel: D, heads: 1, seed: 0, x: X.values,
                                       weights: { kind: 'separate', wQ, wK: wQ, wV, wOut: IDENTITY } });
    const s = asymmetry(r.scores.data), a = asymmetry(r.probs.data);
    const asym = a.d > 1e-6;
    const tok = (k: number) => state.tokens[k] ?? '';
    return {
      correct: asym ? 1 : 0,
      explanation: asym
        ? ch.t('exSymExplain', { s: formatNumber(s.d, 4), a: formatNumber(a.d, 4), i: tok(a.i), j: tok(a.j),
                                 aij: formatNumber(r.probs.data[a.i * T + a.j]!, 4), aji: formatNumber(r.probs.data[a.j * T + a.i]!, 4) })
        : ch.t('exSymExplainEqual', { a: formatNumber(a.d, 4) }),
    };
  },
});

const right = new NumberMatrix(T, T, { label: () => ch.t('lblRight'), rowLabels: tokenLabels(), colLabels: tokenLabels(), digits: 4,
                                       rowAxis: () => ch.t('axisQuery'), colAxis: () => ch.t('axisKey'), heat: { domain: [0, 1] } });
const wrong = new NumberMatrix(T, T, { label: () => ch.t('lblWrong'), rowLabels: tokenLabels(), colLabels: tokenLabels(), digits: 4,
                                       rowAxis: () => ch.t('axisQuery'), colAxis: () => ch.t('axisKey'), heat: { domain: [0, 1] } });
const sumsLine = document.createElement('p');
sumsLine.className = 'help';
ch.mistake(convention, {
  title: 'mistakeTitle',
  body: 'mistakeBody',
  demo: (host) => {
    host.append(right.element, wrong.element, sumsLine);
    sumsLine.style.flexBasis = '100%';
  },
});

// ---- the same in a real model ------------------------------------------------------------
const model = ch.section('hModel');
ch.prose(model, 'model');
ch.playgroundLink(model, 'playLink', () => ({ model: 'brown-gpt', text: state.tokens.join(' '), layer: 0, head: 0, view: 'qk', token: state.query }));

// ---- the engine ----------------------------------------------------------------------------
let pending: Promise<AttentionResult | null> | null = null;
let again = false;

/** Asks the engine for every step with the current inputs (latest wins). */
async function compute(): Promise<AttentionResult | null> {
  if (pending) {
    again = true;
    return pending;
  }
  pending = (async () => {
    let result: AttentionResult | null = null;
    do {
      again = false;
      const engine = await ch.engine();
      const x = X.values;
      const wQ = transposed(WQ.values, D, D), wK = transposed(WK.values, D, D), wV = transposed(WV.values, D, D);
      try {
        result = await engine.attention({ tokens: state.tokens, dModel: D, heads: 1, seed: 0, x,
                                          weights: { kind: 'separate', wQ, wK, wV, wOut: IDENTITY } });
        // The wrong axis: keys attend to queries (W_Q and W_K swapped): softmax over each
        // column of Q Kᵀ, read transposed.
        state.wrong = await engine.attention({ tokens: state.tokens, dModel: D, heads: 1, seed: 0, x,
                                               weights: { kind: 'separate', wQ: wK, wK: wQ, wV, wOut: IDENTITY } });
        state.result = result;
        ch.setStatus(null);
      } catch (e) {
        ch.showError(e);
      }
    } while (again);
    pending = null;
    show();
    exercise.refresh();
    symExercise.refresh();
    return result;
  })();
  return pending;
}

function show(): void {
  const r = state.result;
  // Query rows only: K and V rows belong to keys.
  [Q, Z, S, SS, A].forEach((m) => m.mark(state.query));
  right.mark(null);
  if (r) {
    Q.set(r.q.data);
    K.set(r.k.data);
    V.set(r.v.data);
    S.set(r.scores.data);
    SS.set(r.scaledScores.data);
    A.set(r.probs.data);
    Z.set(r.headOut.data);
    right.set(r.probs.data);
    symLine.textContent = ch.t('symLine', { s: formatNumber(asymmetry(r.scores.data).d, 4), a: formatNumber(asymmetry(r.probs.data).d, 4) });
  }
  if (state.wrong) {
    wrong.set(transposed(state.wrong.probs.data, T, T));
    const rowSums = (m: Float32Array) => Array.from({ length: T }, (_, i) => formatNumber(m.subarray(i * T, (i + 1) * T).reduce((a, b) => a + b, 0), 3)).join(', ');
    sumsLine.textContent = ch.t('sums', { right: r ? rowSums(r.probs.data) : '', wrong: rowSums(transposed(state.wrong.probs.data, T, T)) });
  }
  rowProse.rerender();
  fig.refreshTable();
  ch.debug.renders++;
  document.body.dataset.renders = String(ch.debug.renders);
}

tokenInput.addEventListener('input', () => {
  const words = tokenInput.value.split(/\s+/).filter(Boolean);
  state.tokens = [0, 1, 2].map((i) => words[i] ?? `t${i + 1}`);
  const labels = tokenLabels();
  for (const m of [X, Q, K, V, Z]) m.set(m.values, { rows: T, cols: D, rowLabels: labels });
  for (const m of [S, SS, A, right, wrong]) m.set(m.values, { rows: T, cols: T, rowLabels: labels, colLabels: labels });
  renderQueryChoices();
  exercise.refresh();
  void compute();
});
tieButton.addEventListener('click', () => {
  WK.set(WQ.values);
  void compute();
});
resetButton.addEventListener('click', () => {
  resetValues();
  void compute();
});
// Random weights from the engine's seeded generator (a new seed each press); X is kept.
let seed = 1;
randomButton.addEventListener('click', async () => {
  const engine = await ch.engine();
  // The engine's seeded weights, read back by running the identity as X: with one-hot
  // inputs, row i of Q is row i of W_Q (in the page's (d_model, d_k) layout).
  const probe = await engine.attention({ tokens: ['1', '2', '3', '4'], dModel: D, heads: 1, seed: seed++, x: IDENTITY });
  const round = (v: Float32Array) => Float32Array.from(v, (x) => Math.round(x * 100) / 100);
  WQ.set(round(probe.q.data));
  WK.set(round(probe.k.data));
  WV.set(round(probe.v.data));
  void compute();
});

renderControlText();
renderQueryChoices();
ch.onLocale(() => {
  renderControlText();
  show();
});
resetValues();
void compute();
