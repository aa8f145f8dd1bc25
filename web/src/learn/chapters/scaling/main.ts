// Learn chapter 5, "Why divide by √d_k": the random q·k experiment, run by the engine
// (tfp_learn_scaling_stats / _row through engine.learn('scalingStats' | 'scalingRow')).
// The page only arranges inputs and draws: every variance, weight and gradient size comes
// from the engine. The reference lines (theory d_k, 1/n, √(n−1)/n) are the formulas the
// prose derives, not measurements.
//
// State: the reader's d_k, keys per row n, samples per d_k, seed and the sample shown.
// window.tfpLearn.state carries the inputs and the engine's last results (tests read it).
import { growthExercise } from './growth_exercise';
import { bindText } from '../../../i18n/i18n';
import type { ScalingRowResult, ScalingStat, ScalingStatsResult } from '../../../engine/learn_calls/scaling';
import { LineChart, type Series } from '../../../widgets/line_chart';
import { NumberMatrix } from '../../../widgets/number_matrix';
import { startChapter } from '../../chapter';
import { TEXT, type ScalingKey } from './text';

const ch = startChapter('scaling', TEXT);
const t = (k: ScalingKey, p?: Record<string, string | number>) => ch.t(k, p);

/** The widths every run tries: 4, 8, ..., 1024; the reader's own joins them. */
const GRID = [4, 8, 16, 32, 64, 128, 256, 512, 1024];
const MAX_DK = 2048;
const KEY_CHOICES = [2, 4, 8, 16];
const SAMPLE_CHOICES = [250, 1000, 2000];
/** The exercise's fixed question: d_k = 512, 8 keys, no scaling. */
const EX_DK = 512, EX_KEYS = 8;
const EX_CHOICES = [0.125, 0.35, 0.6, 0.95];

interface Inputs { dK: number; nKeys: number; samples: number; seed: number; sample: number }

const params = new URLSearchParams(location.search);
const intParam = (name: string, lo: number, hi: number, fallback: number) => {
  const text = params.get(name);
  const v = text === null || text.trim() === '' ? NaN : Number(text);
  return Number.isInteger(v) && v >= lo && v <= hi ? v : fallback;
};
const oneOf = (name: string, choices: number[], fallback: number) => {
  const v = intParam(name, choices[0]!, choices[choices.length - 1]!, fallback);
  return choices.includes(v) ? v : fallback;
};
const inputs: Inputs = {
  dK: intParam('dk', 1, MAX_DK, 64),
  nKeys: oneOf('n', KEY_CHOICES, 8),
  samples: oneOf('samples', SAMPLE_CHOICES, 1000),
  seed: intParam('seed', 0, 0xffffffff, 1),
  sample: 0,
};
let stats: ScalingStatsResult | null = null;
let row: ScalingRowResult | null = null;
let rowFor: Inputs | null = null;
let tookMs = 0;

function publish(): void {
  ch.debug.state = { inputs: { ...inputs }, dks: dkList(), stats, row, rowFor, tookMs, noise };
}

// Sampling noise: the same experiment repeated with NOISE_REPEATS other seeds (seed + 1 …);
// the band spans the second-lowest to the second-highest variance at each d_k, where 18 of
// 20 repeats fall. Every value is the engine's.
const NOISE_REPEATS = 20;
interface Noise { seeds: number[]; dks: number[]; none: [number, number][]; sqrt: [number, number][] }
let noise: Noise | null = null;

async function measureNoise(asked: Inputs, dks: number[], gen: number): Promise<void> {
  const engine = await ch.engine();
  const seeds = Array.from({ length: NOISE_REPEATS }, (_, i) => (asked.seed + 1 + i) >>> 0);
  const runs: ScalingStatsResult[] = [];
  for (const seed of seeds) {
    runs.push(await engine.learn('scalingStats', { dks, nKeys: asked.nKeys, samples: asked.samples, seed }));
    if (gen !== generation) return;
  }
  const spread = (pick: (r: ScalingStatsResult, i: number) => number) => dks.map((_, i) => {
    const v = runs.map((r) => pick(r, i)).sort((a, b) => a - b);
    return [v[1]!, v[v.length - 2]!] as [number, number];
  });
  noise = { seeds, dks, none: spread((r, i) => r.stats[i]!.none.variance), sqrt: spread((r, i) => r.stats[i]!.sqrt.variance) };
  drawStats();
  publish();
}

function dkList(): number[] {
  return [...new Set([...GRID, inputs.dK])].sort((a, b) => a - b);
}

// ---- small DOM helpers ------------------------------------------------------------------

function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

/** A labelled control: <label class="field"><span>text</span>control</label>. */
function field(key: ScalingKey, control: HTMLElement): HTMLLabelElement {
  const l = el('label', 'field');
  const s = el('span');
  bindText(s, () => t(key));
  l.append(s, control);
  return l;
}

function select(values: number[], current: number): HTMLSelectElement {
  const s = el('select');
  for (const v of values) {
    const o = el('option', undefined, String(v));
    o.value = String(v);
    o.selected = v === current;
    s.append(o);
  }
  return s;
}

const fmtVar = (v: number) => (Math.abs(v) >= 1e4 || (v !== 0 && Math.abs(v) < 1e-3) ? v.toExponential(3) : v.toPrecision(4));
const fmtP = (v: number) => v.toFixed(3);
const fmtSqrt = (d: number) => Math.sqrt(d).toFixed(2);

/** A plain table (rebuilt on every change, so no locale bindings). `boxed`: cell borders
 *  of its own, for a table outside a figure's data-table (which styles its tables). */
function table(caption: string, head: string[], rows: (string | number)[][], marked = -1, boxed = false): HTMLTableElement {
  const tb = el('table');
  tb.createCaption().textContent = caption;
  if (boxed) {
    tb.style.cssText = 'border-collapse:collapse;font-size:0.85rem;font-variant-numeric:tabular-nums';
    tb.caption!.style.cssText = 'text-align:left;color:var(--muted);padding-bottom:0.2rem';
  }
  const hr = tb.createTHead().insertRow();
  head.forEach((h) => {
    const th = el('th', undefined, h);
    th.scope = 'col';
    if (boxed) th.style.cssText = 'border:1px solid var(--border);padding:0.12rem 0.5rem';
    hr.append(th);
  });
  const body = tb.createTBody();
  rows.forEach((r, i) => {
    const tr = body.insertRow();
    if (i === marked) tr.className = 'marked';
    r.forEach((v, j) => {
      const c = j === 0 ? el('th', undefined, String(v)) : el('td', undefined, String(v));
      if (j === 0) (c as HTMLTableCellElement).scope = 'row';
      if (boxed) c.style.cssText = `border:1px solid var(--border);padding:0.12rem 0.5rem;text-align:${j === 0 ? 'left' : 'right'}${i === marked ? ';font-weight:700' : ''}`;
      tr.append(c);
    });
  });
  return tb;
}

// ---- 1. the idea and the derivation -------------------------------------------------------

const sIdea = ch.section('hIdea');
ch.prose(sIdea, 'idea');

const sVar = ch.section('hVariance');
ch.prose(sVar, 'variance');

const exercise = ch.exercise(sVar, {
  id: 'max-weight-512',
  question: 'exQuestion',
  choices: () => [t('exEven'), t('exLow'), t('exMid'), t('exHigh')],
  answer: async () => {
    const engine = await ch.engine();
    const r = await engine.learn('scalingStats', { dks: [EX_DK], nKeys: EX_KEYS, samples: inputs.samples, seed: inputs.seed });
    const s = r.stats[0]!;
    const v = s.none.maxProb;
    let correct = 0;
    EX_CHOICES.forEach((c, i) => { if (Math.abs(c - v) < Math.abs(EX_CHOICES[correct]! - v)) correct = i; });
    ch.debug.state.exercise = { unscaled: v, scaled: s.sqrt.maxProb, correct, samples: inputs.samples, seed: inputs.seed };
    return { correct, explanation: t('exWhy', { samples: inputs.samples, seed: inputs.seed, unscaled: fmtP(v), scaled: fmtP(s.sqrt.maxProb) }) };
  },
});

// ---- 2. the experiment ----------------------------------------------------------------

const sExp = ch.section('hExperiment');
const expProse = ch.prose(sExp, 'experiment', () => ({ samples: inputs.samples, n: inputs.nKeys, uniform: fmtP(1 / inputs.nKeys) })) as HTMLElement & { rerender?: () => void };

const figStats = ch.figure(sExp, { caption: 'figStats', label: 'figStatsLabel', table: (host) => renderStatsTable(host) });

const dkNumber = el('input');
dkNumber.type = 'number';
dkNumber.min = '1';
dkNumber.max = String(MAX_DK);
dkNumber.step = '1';
dkNumber.value = String(inputs.dK);
dkNumber.id = 'scaling-dk';
const dkSlider = el('input');
dkSlider.type = 'range';
dkSlider.min = '0';
dkSlider.max = String(Math.log2(MAX_DK));
dkSlider.step = '0.25';
dkSlider.value = String(Math.log2(inputs.dK));
dkSlider.id = 'scaling-dk-slider';
const sayDk = () => dkSlider.setAttribute('aria-valuetext', `d_k = ${inputs.dK}`);
sayDk();
const keysSelect = select(KEY_CHOICES, inputs.nKeys);
keysSelect.id = 'scaling-keys';
const samplesSelect = select(SAMPLE_CHOICES, inputs.samples);
samplesSelect.id = 'scaling-samples';
const seedInput = el('input');
seedInput.type = 'number';
seedInput.min = '0';
seedInput.step = '1';
seedInput.value = String(inputs.seed);
seedInput.id = 'scaling-seed';
seedInput.style.width = '7rem';
dkNumber.style.width = '6rem';
const dkSliderField = field('dkSlider', dkSlider);
figStats.controls.append(field('dk', dkNumber), dkSliderField, field('keys', keysSelect), field('samples', samplesSelect), field('seed', seedInput));

const statsFormula = ch.formula(figStats.view, () => {
  const s = stats && statOf(stats, inputs.dK);
  if (!s) return String.raw`\operatorname{Var}(q\cdot k)=d_k,\qquad \operatorname{Var}\big(q\cdot k/\sqrt{d_k}\big)=1`;
  // Two lines, so that it fits 390 px.
  return String.raw`\begin{gathered}\sym{Var}{\operatorname{Var}(q\cdot k)}\approx ${fmtVar(s.none.variance)}\quad (d_k=${inputs.dK})\\ ` +
    String.raw`\sym{Var}{\operatorname{Var}\big(q\cdot k/\sqrt{d_k}\big)}\approx ${fmtVar(s.sqrt.variance)}\end{gathered}`;
});

const chartRow = el('div', 'scaling-charts');
chartRow.style.cssText = 'display:flex;flex-wrap:wrap;gap:0.5rem 1rem;width:100%';
const dkFormat = (v: number) => String(v);
/** Log-axis ticks: 1024, 32, 1, 1/32, 1/1024 (the powers of two the widths are). */
const powFormat = (v: number) => (v >= 1 ? String(Math.round(v)) : `1/${Math.round(1 / v)}`);
const varChart = new LineChart({ label: () => t('chartVar'), xLabel: () => t('axisDk'), yLabel: () => t('axisVar'), xLog: true, yLog: true, xFormat: dkFormat, yFormat: powFormat });
const maxChart = new LineChart({ label: () => t('chartMaxP'), xLabel: () => t('axisDk'), yLabel: () => t('axisMaxP'), xLog: true, yDomain: [0, 1], xFormat: dkFormat });
const jacChart = new LineChart({ label: () => t('chartJac'), xLabel: () => t('axisDk'), yLabel: () => t('axisJac'), xLog: true, xFormat: dkFormat });
varChart.element.dataset.sym = 'Var';
for (const c of [varChart, maxChart, jacChart]) {
  c.element.style.flex = '1 1 400px';
  c.element.style.maxWidth = '560px';
  chartRow.append(c.element);
}
const statsNote = el('p', 'help');
statsNote.setAttribute('aria-live', 'polite');
// The band at the reader's d_k in words (on log axes a 2 % band is a hairline).
const noiseLine = el('p', 'help');
noiseLine.id = 'scaling-noise';
figStats.view.append(chartRow, noiseLine, statsNote);

function statOf(r: ScalingStatsResult, dK: number): Record<'none' | 'sqrt' | 'dk', ScalingStat> | null {
  const i = r.dks.indexOf(dK);
  return i >= 0 ? r.stats[i]! : null;
}

function renderStatsTable(host: HTMLElement): void {
  if (!stats) { host.replaceChildren(); return; }
  const rows = stats.dks.map((d, i) => {
    const s = stats!.stats[i]!;
    return [d === inputs.dK ? `★ ${d}` : d, fmtVar(s.none.variance), fmtVar(s.sqrt.variance), fmtP(s.none.maxProb),
      fmtP(s.sqrt.maxProb), fmtP(s.none.jacobian), fmtP(s.sqrt.jacobian)];
  });
  host.replaceChildren(table(t('statsTable', { samples: inputs.samples, n: inputs.nKeys, seed: inputs.seed }),
    [t('colDk'), t('colVarNone'), t('colVarSqrt'), t('colMaxNone'), t('colMaxSqrt'), t('colJacNone'), t('colJacSqrt')],
    rows, stats.dks.indexOf(inputs.dK)));
}

function series(r: ScalingStatsResult, pick: (s: ScalingStat) => number, scalings: ('none' | 'sqrt' | 'dk')[],
                bands: Partial<Record<'none' | 'sqrt', [number, number][]>> = {}): Series[] {
  const name = { none: () => t('seriesNone'), sqrt: () => t('seriesSqrt'), dk: () => t('seriesDk') };
  return scalings.map((sc) => {
    const b = sc === 'dk' ? undefined : bands[sc];
    return { name: name[sc], points: r.dks.map((d, i) => [d, pick(r.stats[i]![sc])] as [number, number]),
             ...(b ? { band: r.dks.map((d, i) => [d, b[i]![0], b[i]![1]] as [number, number, number]) } : {}) };
  });
}

function drawStats(): void {
  if (!stats) return;
  const r = stats;
  const theory: Series = { name: () => t('seriesTheory'), dashed: true, points: r.dks.map((d) => [d, d] as [number, number]) };
  const bands = noise && noise.dks.join() === r.dks.join() ? { none: noise.none, sqrt: noise.sqrt } : {};
  varChart.update([...series(r, (s) => s.variance, ['none', 'sqrt'], bands), theory], inputs.dK);
  const at = noise ? noise.dks.indexOf(inputs.dK) : -1;
  noiseLine.textContent = noise && at >= 0 && 'none' in bands
    ? t('noiseLine', { dk: inputs.dK, n: noise.seeds.length, lo: fmtVar(noise.none[at]![0]), hi: fmtVar(noise.none[at]![1]),
                       slo: fmtVar(noise.sqrt[at]![0]), shi: fmtVar(noise.sqrt[at]![1]), main: fmtVar(r.stats[r.dks.indexOf(inputs.dK)]!.none.variance) })
    : '';
  maxChart.update(series(r, (s) => s.maxProb, ['none', 'sqrt']), inputs.dK);
  jacChart.update(series(r, (s) => s.jacobian, ['none', 'sqrt']), inputs.dK);
  statsFormula.update();
  statsNote.textContent = t('took', { ms: Math.round(tookMs) });
  figStats.refreshTable();
}

growthExercise(ch, sExp, () => inputs);

// ---- 3. one row ----------------------------------------------------------------------------

const sRow = ch.section('hRow');
ch.prose(sRow, 'row');
const figRow = ch.figure(sRow, { caption: 'figRow', label: 'figRowLabel', table: (host) => renderRowTable(host) });
const sampleInput = el('input');
sampleInput.type = 'number';
sampleInput.min = '0';
sampleInput.max = '999999';
sampleInput.step = '1';
sampleInput.value = '0';
sampleInput.id = 'scaling-sample';
sampleInput.style.width = '6rem';
const anotherButton = el('button');
anotherButton.type = 'button';
anotherButton.id = 'scaling-another';
bindText(anotherButton, () => t('another'));
figRow.controls.append(field('sample', sampleInput), anotherButton);

const rowFormula = ch.formula(figRow.view, () =>
  String.raw`\begin{aligned}p&=\operatorname{softmax}\Big(\frac{\sym{S}{q\cdot k_j}}{\sqrt{d_k}}\Big)\\` +
  String.raw`&=\operatorname{softmax}\Big(\frac{q\cdot k_j}{\sqrt{${inputs.dK}}}\Big)\\&=\operatorname{softmax}\Big(\frac{q\cdot k_j}{${fmtSqrt(inputs.dK)}}\Big)\end{aligned}`);
const keyLabels = (n: number) => Array.from({ length: n }, (_, j) => () => t('keyN', { n: j + 1 }));
const scoresMatrix = new NumberMatrix(2, inputs.nKeys, {
  label: () => t('scoresLabel', { sample: rowFor?.sample ?? 0, dk: rowFor?.dK ?? inputs.dK }), sym: 'S',
  rowLabels: [() => t('rowNone'), () => t('rowSqrt', { dk: rowFor?.dK ?? inputs.dK, sqrt: fmtSqrt(rowFor?.dK ?? inputs.dK) })],
  colLabels: keyLabels(inputs.nKeys), rowAxis: () => t('rowAxis'), colAxis: () => t('keyAxis'), digits: 2,
  heat: { map: 'cividis', domain: 'auto' },
});
const probsMatrix = new NumberMatrix(2, inputs.nKeys, {
  label: () => t('probsLabel'), sym: 'p',
  rowLabels: [() => t('rowNone'), () => t('rowSqrt', { dk: rowFor?.dK ?? inputs.dK, sqrt: fmtSqrt(rowFor?.dK ?? inputs.dK) })],
  colLabels: keyLabels(inputs.nKeys), rowAxis: () => t('rowAxis'), colAxis: () => t('keyAxis'), digits: 3,
  heat: { domain: [0, 1] },
});
figRow.view.append(scoresMatrix.element, probsMatrix.element);

function renderRowTable(host: HTMLElement): void {
  if (!row || !rowFor) { host.replaceChildren(); return; }
  const n = rowFor.nKeys;
  const rows = Array.from({ length: n }, (_, j) => [t('keyN', { n: j + 1 }), row!.scores[j]!.toFixed(3), fmtP(row!.probs[j]!),
    row!.scores[n + j]!.toFixed(3), fmtP(row!.probs[n + j]!)]);
  host.replaceChildren(table(t('scoresLabel', { sample: rowFor.sample, dk: rowFor.dK }),
    [t('keyAxis'), `${t('rowNone')}`, 'p', t('rowSqrt', { dk: rowFor.dK, sqrt: fmtSqrt(rowFor.dK) }), 'p'], rows));
}

function drawRow(): void {
  if (!row || !rowFor) return;
  const n = rowFor.nKeys;
  const shape = { rows: 2, cols: n, colLabels: keyLabels(n) };
  scoresMatrix.set([...row.scores.subarray(0, 2 * n)], shape);
  probsMatrix.set([...row.probs.subarray(0, 2 * n)], shape);
  demoProbs.set([...row.probs.subarray(n, 3 * n)], { rows: 2, cols: n, colLabels: keyLabels(n) });
  rowFormula.update();
  figRow.refreshTable();
}

// ---- 4. the gradient, the mistake, the summary ------------------------------------------------

const sGrad = ch.section('hGradient');
const gradProse = ch.prose(sGrad, 'gradient', () => ({ uniformNorm: fmtP(Math.sqrt(inputs.nKeys - 1) / inputs.nKeys) })) as HTMLElement & { rerender?: () => void };

const demoTableHost = el('div', 'table-scroll scaling-demo-table');
demoTableHost.tabIndex = 0;
const demoChart = new LineChart({ label: () => t('demoChart'), xLabel: () => t('axisDk'), yLabel: () => t('axisVar'), xLog: true, yLog: true, xFormat: dkFormat, yFormat: powFormat });
demoChart.element.style.maxWidth = '490px';
const demoProbs = new NumberMatrix(2, inputs.nKeys, {
  label: () => t('demoProbs', { sample: rowFor?.sample ?? 0, dk: rowFor?.dK ?? inputs.dK }),
  rowLabels: [() => t('rowSqrt', { dk: rowFor?.dK ?? inputs.dK, sqrt: fmtSqrt(rowFor?.dK ?? inputs.dK) }), () => t('demoRowDk', { dk: rowFor?.dK ?? inputs.dK })],
  colLabels: keyLabels(inputs.nKeys), rowAxis: () => t('rowAxis'), colAxis: () => t('keyAxis'), digits: 3,
  heat: { domain: [0, 1] },
});
const mistakeBox = ch.mistake(sGrad, {
  title: 'mistakeTitle', body: 'mistake', bodyParams: () => ({ dk: inputs.dK }),
  demo: (host) => host.append(demoTableHost, demoChart.element, demoProbs.element),
});

function drawDemo(): void {
  if (!stats) return;
  const s = statOf(stats, inputs.dK);
  if (s) {
    const d = inputs.dK;
    const rows = ([['none', t('seriesNone'), String(d)], ['sqrt', t('seriesSqrt'), '1'], ['dk', t('seriesDk'), `1/${d}`]] as const)
      .map(([k, name, theory]) => [name, fmtVar(s[k].variance), theory, fmtP(s[k].maxProb), fmtP(s[k].jacobian)]);
    demoTableHost.replaceChildren(table(t('demoTable', { dk: d, samples: inputs.samples, n: inputs.nKeys }),
      [t('demoScaling'), t('demoVar'), t('demoTheory'), t('demoMaxP'), t('demoJac')], rows, 2, true));
  }
  demoChart.update(series(stats, (x) => x.variance, ['none', 'sqrt', 'dk']), inputs.dK);
}

const sSum = ch.section('hSummary');
ch.prose(sSum, 'summary');

// ---- running the engine ------------------------------------------------------------------

let generation = 0;

/** Asks the engine for the statistics (unless only the sample changed) and the row. */
async function recompute(what: 'all' | 'row'): Promise<void> {
  const gen = ++generation;
  const asked = { ...inputs };
  statsNote.textContent = t('computing');
  try {
    const engine = await ch.engine();
    const started = performance.now();
    const [s, r] = await Promise.all([
      what === 'all' ? engine.learn('scalingStats', { dks: dkList(), nKeys: asked.nKeys, samples: asked.samples, seed: asked.seed }) : Promise.resolve(stats),
      engine.learn('scalingRow', { dK: asked.dK, nKeys: asked.nKeys, sample: asked.sample, seed: asked.seed }),
    ]);
    if (gen !== generation) return;  // the reader changed something meanwhile
    if (what === 'all') tookMs = performance.now() - started;
    stats = s;
    row = r;
    rowFor = asked;
    ch.setStatus(null);
    if (what === 'all') noise = null;
    drawStats();
    drawRow();
    drawDemo();
    ch.debug.renders++;
    publish();
    if (what === 'all' && s) void measureNoise(asked, s.dks, gen).catch((e: unknown) => ch.showError(e));
  } catch (e) {
    if (gen === generation) {
      statsNote.textContent = '';
      ch.showError(e);
    }
  }
}

function readInt(input: HTMLInputElement, lo: number, hi: number, fallback: number): number {
  const v = Math.round(Number(input.value));
  const x = Number.isFinite(v) && input.value.trim() !== '' ? Math.max(lo, Math.min(hi, v)) : fallback;
  input.value = String(x);
  return x;
}

function inputsChanged(): void {
  expProse.rerender?.();
  gradProse.rerender?.();
  mistakeBox.rerender();
  exercise.refresh();
  const u = new URL(location.href);
  u.searchParams.set('dk', String(inputs.dK));
  u.searchParams.set('n', String(inputs.nKeys));
  u.searchParams.set('samples', String(inputs.samples));
  u.searchParams.set('seed', String(inputs.seed));
  history.replaceState(history.state, '', u);
  publish();
  void recompute('all');
}

dkNumber.addEventListener('change', () => {
  inputs.dK = readInt(dkNumber, 1, MAX_DK, inputs.dK);
  dkSlider.value = String(Math.log2(inputs.dK));
  sayDk();
  inputsChanged();
});
dkSlider.addEventListener('input', () => {
  const d = Math.max(1, Math.min(MAX_DK, Math.round(2 ** Number(dkSlider.value))));
  if (d === inputs.dK) return;
  inputs.dK = d;
  dkNumber.value = String(d);
  sayDk();
  inputsChanged();
});
keysSelect.addEventListener('change', () => { inputs.nKeys = Number(keysSelect.value); inputsChanged(); });
samplesSelect.addEventListener('change', () => { inputs.samples = Number(samplesSelect.value); inputsChanged(); });
seedInput.addEventListener('change', () => { inputs.seed = readInt(seedInput, 0, 0xffffffff, inputs.seed); inputsChanged(); });
sampleInput.addEventListener('change', () => { inputs.sample = readInt(sampleInput, 0, 999999, inputs.sample); publish(); void recompute('row'); });
anotherButton.addEventListener('click', () => {
  inputs.sample = Math.min(999999, inputs.sample + 1);
  sampleInput.value = String(inputs.sample);
  publish();
  void recompute('row');
});

ch.onLocale(() => { drawStats(); drawDemo(); });
publish();
void recompute('all');
