// The training page: settings (checked beside each control), Train / Pause / Resume /
// Reset, live curves (training and held-out loss and accuracy), tokens per second, the
// probe's attention maps with a replay slider, the model's answer to the reader's input,
// export as a model folder and "Open in the playground". Training runs in this page's
// own worker (worker.ts); this file only shows what it reports.
import { bindText, locale, onLocaleChange, t, withLang, type MessageKey } from '../../i18n/i18n';
import { LineChart, type Series } from '../../widgets/line_chart';
import { DataTableToggle } from '../../widgets/data_table';
import { Heatmap } from '../../widgets/heatmap';
import { ColorLegend } from '../../widgets/color_legend';
import { onThemeChange } from '../../widgets/theme';
import {
  isWordTask, nativeCommand, STAT_COLUMNS, type EvalPoint, type FromWorker, type ProbeSnapshot, type ToWorker, type TrainerInfo,
  type TrainSettings,
} from './protocol';
import {
  defaultProbe, fieldOfEngineMessage, footprint, inputProblem, presetFor, queryOf, settingsFromQuery, solve, suggestedArch, taskShape,
  TRANSFORMER_ONLY, validate, type Field, type Problem,
} from './settings';
import { playgroundUrl, saveHandover } from './handover';
import { zipStore } from './zip';
import { MAX_RESTARTS, RESTART_WINDOW_MS } from '../../engine/restart_policy';

type RunState = 'starting' | 'creating' | 'idle' | 'running' | 'paused' | 'done' | 'failed';

/** What tests (and curious readers) can read back. */
export interface TrainDebug {
  state: RunState;
  settings: TrainSettings;
  info: TrainerInfo | null;
  simd: string;
  step: number;
  /** Per step s (index s − 1): training loss, batch token accuracy, learning rate, gradient norm. */
  losses: number[];
  trainAccuracy: number[];
  lrs: number[];
  gradNorms: number[];
  evals: EvalPoint[];
  snapshots: ProbeSnapshot[];
  shownSnapshot: number;
  tokensPerSecond: number;
  answers: { prompt: string; step: number; answer: string }[];
  progressMessages: number;
  chartDraws: number;
  /** Trains until `step` steps are done (tests: a pause at an exact step). */
  runUntil(step: number): void;
  /** Makes the worker's module trap for real (tests); the page then starts a new worker. */
  crashEngine(): void;
  /** Workers started after a trap. */
  restarts: number;
  /** The last files exported, for tests. */
  exported: { step: number; config: string; weights: ArrayBuffer; tokenizer: string } | null;
  /** The last zip exported, for tests. */
  zip?: { name: string; bytes: Uint8Array<ArrayBuffer> };
}

declare global {
  interface Window {
    tfpTrain: TrainDebug;
  }
}

function byId<T extends HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`train: #${id} missing from the page`);
  return el as T;
}

const form = byId<HTMLFormElement>('settings');
const runButton = byId<HTMLButtonElement>('run');
const resetButton = byId<HTMLButtonElement>('reset');
const paceSelect = byId<HTMLSelectElement>('pace');
const statusLine = byId('status');
const noteLine = byId('note');
const footprintLine = byId('footprint');
const warmupHelp = byId('f-warmup-help');
const probeInput = byId<HTMLInputElement>('probe');
const replay = byId<HTMLInputElement>('replay');
const replayValue = byId<HTMLOutputElement>('replay-value');
const mapsHost = byId('maps');
const tryInput = byId<HTMLInputElement>('try-input');
const tryOutput = byId('try-output');
const exportStatus = byId('export-status');
const commandLine = byId('native-command');

const FIELDS: Field[] = ['task', 'size', 'arch', 'positions', 'layers', 'dModel', 'heads', 'dFf', 'act', 'postLn', 'lr', 'warmup',
  'batch', 'steps', 'labelSmoothing', 'clip', 'dropout', 'seed'];
const control = (f: Field) => byId<HTMLInputElement | HTMLSelectElement>(`f-${f}`);

let settings: TrainSettings = settingsFromQuery(location.search);
/** The settings the current trainer was created with. */
let trained: TrainSettings | null = null;
let state: RunState = 'starting';
let info: TrainerInfo | null = null;
let evalEvery = 1;
/** Wall time spent running, and when the current run started. */
let runSeconds = 0;
let runStarted = 0;

const debug: TrainDebug = {
  state, settings, info: null, simd: '', step: 0, losses: [], trainAccuracy: [], lrs: [], gradNorms: [], evals: [],
  snapshots: [], shownSnapshot: -1, tokensPerSecond: 0, answers: [], progressMessages: 0, chartDraws: 0,
  runUntil: (step) => startRun(step), exported: null, crashEngine: () => send({ kind: 'crash' }), restarts: 0,
};
window.tfpTrain = debug;

// ---- the worker ----------------------------------------------------------------------------
// Replaced after a trap (the module's memory is then unknown): the new worker says
// 'ready' and the page creates the model again from its settings.
let worker: Worker;
const send = (m: ToWorker) => worker.postMessage(m);
function startWorker(): void {
  worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module', name: 'tfp-trainer' });
  worker.onerror = (e) => showStatus(() => t('common.engineDidNotStart') + ' ' + e.message);
  worker.onmessage = (ev: MessageEvent<FromWorker>) => onWorker(ev.data);
}
startWorker();
/** Why the worker was replaced, said once the new model exists. */
let restartedAfter: string | null = null;
/** When workers were replaced: the page gives up after MAX_RESTARTS within a minute (as the
 *  shared engine does, engine.ts). */
let restartTimes: number[] = [];

// ---- settings form ---------------------------------------------------------------------------
function showSettings(s: TrainSettings): void {
  for (const f of FIELDS) {
    const c = control(f);
    const v = s[f];
    if (c instanceof HTMLInputElement && c.type === 'checkbox') c.checked = Boolean(v);
    else c.value = v === null ? '' : String(v);
  }
}

function readSettings(): TrainSettings {
  const s: TrainSettings = { ...settings };
  for (const f of FIELDS) {
    const c = control(f);
    if (c instanceof HTMLInputElement && c.type === 'checkbox') (s[f] as boolean) = c.checked;
    else if (f === 'task' || f === 'arch' || f === 'act' || f === 'positions') (s[f] as string) = c.value;
    else if (f === 'warmup' && c.value.trim() === '') s.warmup = null;
    else (s[f] as number) = c.value.trim() === '' ? Number.NaN : Number(c.value);
  }
  return s;
}

/** The problems shown beside the controls (functions: re-rendered on a language switch). */
let problems: Problem[] = [];
let engineProblem: { field: Field; message: string } | null = null;

function showProblems(): void {
  for (const f of FIELDS) {
    const err = document.getElementById(`f-${f}-err`);
    const c = control(f);
    const p = problems.find((x) => x.field === f);
    const text = p ? t(p.key, p.params) : engineProblem?.field === f ? t('train.err.engine', { message: engineProblem.message }) : '';
    if (err) {
      err.textContent = text;
      err.hidden = text === '';
    }
    c.setAttribute('aria-invalid', text ? 'true' : 'false');
  }
}

function showFootprint(): void {
  const s = settings;
  if (problems.length > 0) {
    footprintLine.textContent = '';
    return;
  }
  const f = footprint(s);
  // The engine's count once it has built this model; the estimate before.
  const parameters = info && trained && sameModel(s, trained) ? info.parameters : f.parameters;
  footprintLine.textContent = t('train.footprint', { parameters: parameters.toLocaleString(locale()), mib: Math.max(1, Math.round(f.bytes / 2 ** 20)) });
  warmupHelp.textContent = t('train.warmupHelp', { auto: Math.min(50, Math.floor(s.steps / 10) + 1) });
}

function sameModel(a: TrainSettings, b: TrainSettings): boolean {
  return FIELDS.every((f) => f === 'lr' || (a.arch === 'gru' && b.arch === 'gru' && TRANSFORMER_ONLY.includes(f)) || a[f] === b[f]);
}

/** The GRU's sizes all follow d_model: the Transformer's own controls are switched off.
 *  The word tasks have one size: its control too. */
function showArchitecture(): void {
  const gru = settings.arch === 'gru';
  for (const f of TRANSFORMER_ONLY) control(f).disabled = gru;
  byId('gru-note').hidden = !gru;
  control('size').disabled = isWordTask(settings.task);
  showTaskHelp();
}

const TASK_DESCRIPTIONS: Record<TrainSettings['task'], MessageKey> = {
  copy: 'train.descCopy', reverse: 'train.descReverse', sort: 'train.descSort', add: 'train.descAdd',
  numbers: 'train.descNumbers', 'dates-iso': 'train.descDates', induction: 'train.descInduction',
};
/** The task's one-line description, and the size's help (fixed for the word tasks). */
function showTaskHelp(): void {
  byId('f-task-help').textContent = t(TASK_DESCRIPTIONS[settings.task]);
  byId('f-size-help').textContent = isWordTask(settings.task)
    ? t('train.sizeFixed', { size: taskShape(settings).answer }) : t('train.sizeHelp');
}

function onSettingsInput(): void {
  const before = settings;
  settings = readSettings();
  if (settings.task !== before.task) {
    // A new task: the architecture that fits it (number words and dates: an encoder–decoder
    // rather than decoder-only), and a probe and placeholder it accepts.
    settings = { ...settings, ...presetFor(settings.task) };
    settings.arch = suggestedArch(settings.task, settings.arch);
    showSettings(settings);
    // (always a new probe: number words can pass a date's character check, and so on).
    probeInput.value = defaultProbe(settings);
    tryInput.placeholder = defaultProbe(settings);
  }
  debug.settings = settings;
  showArchitecture();
  problems = validate(settings);
  engineProblem = null;
  showProblems();
  showFootprint();
  history.replaceState(history.state, '', `?${withLang(queryOf(settings))}`);
  commandLine.textContent = nativeCommand(settings);
  if (problems.length > 0) {
    showNote(null);
    return;
  }
  if (!trained || state === 'creating') return;
  // A new learning rate while paused applies to the current run from the next step on.
  if (sameModel(settings, trained) && settings.lr !== trained.lr && state !== 'running') {
    send({ kind: 'set-lr', lr: settings.lr });
    trained = { ...trained, lr: settings.lr };
    return;
  }
  if (!sameModel(settings, trained)) {
    if (debug.step === 0 && state !== 'running') create();  // nothing trained yet: take them at once
    else showNote(() => t('train.settingsChanged'));
  } else {
    showNote(null);
  }
}
form.addEventListener('input', onSettingsInput);
form.addEventListener('change', onSettingsInput);
form.addEventListener('submit', (e) => e.preventDefault());

// ---- status lines -----------------------------------------------------------------------------
let statusText: () => string = () => statusLine.textContent ?? '';
let noteText: (() => string) | null = null;
function showStatus(text: () => string): void {
  statusText = text;
  statusLine.textContent = text();
}
function showNote(text: (() => string) | null): void {
  noteText = text;
  noteLine.hidden = text === null;
  noteLine.textContent = text ? text() : '';
}

function setState(s: RunState): void {
  state = s;
  debug.state = s;
  document.body.dataset.trainState = s;
  const key: MessageKey = s === 'running' ? 'train.pause' : s === 'paused' ? 'train.resume' : s === 'done' ? 'train.trainOn' : 'train.start';
  runButton.dataset.i18n = key;
  runButton.textContent = t(key);
  runButton.disabled = s === 'starting' || s === 'creating' || s === 'failed';
  resetButton.disabled = s === 'starting' || s === 'creating';
  (control('lr') as HTMLInputElement).readOnly = s === 'running';
  const steps = info?.steps ?? settings.steps;
  showStatus(s === 'starting' ? () => t('common.starting')
    : s === 'creating' ? () => t('train.creating')
    : s === 'idle' ? () => t('train.statusIdle', { parameters: (info?.parameters ?? 0).toLocaleString(locale()) })
    : s === 'running' ? () => t('train.statusRunning')
    : s === 'paused' ? () => t('train.statusPaused', { step: debug.step })
    : s === 'done' ? () => t('train.statusDone', { steps })
    : () => t('train.statusFailed'));
}

// ---- creating, running, pausing ------------------------------------------------------------------
function create(): void {
  problems = validate(settings);
  showProblems();
  if (problems.length > 0) return;
  // `trained` changes only once the worker has built the new model: a refusal keeps the
  // model trained so far (and the settings it was trained with).
  creating = { ...settings };
  const probe = probeInput.value && !inputProblem(settings, probeInput.value) ? probeInput.value : defaultProbe(settings);
  probeInput.value = probe;
  stateBeforeCreate = state;
  setState('creating');
  showNote(null);
  exportStatus.textContent = '';
  send({ kind: 'create', settings: creating, probe: padAdd(probe, creating) });
}
let creating: TrainSettings | null = null;
let stateBeforeCreate: RunState = 'idle';

function startRun(stopAt?: number): void {
  if (!trained || state === 'running' || state === 'creating') return;
  if (!sameModel(settings, trained)) {
    create();  // the settings changed: start over with them (the note said so)
    pendingRun = stopAt ?? 0;
    return;
  }
  runStarted = performance.now();
  setState('running');
  send({ kind: 'pace', stepsPerSecond: paceSelect.value === 'full' ? null : Number(paceSelect.value) });
  send({ kind: 'run', ...(stopAt !== undefined ? { stopAt } : {}) });
}
/** A run asked for while a trainer was being created (0: to the schedule's end). */
let pendingRun: number | null = null;

runButton.addEventListener('click', () => {
  if (state === 'running') {
    send({ kind: 'pause' });
    runButton.disabled = true;  // until the worker says it stopped (within one chunk)
  } else {
    startRun();
  }
});
resetButton.addEventListener('click', () => {
  if (state === 'running') send({ kind: 'pause' });
  create();
});
paceSelect.addEventListener('change', () => {
  send({ kind: 'pace', stepsPerSecond: paceSelect.value === 'full' ? null : Number(paceSelect.value) });
});

function onWorker(m: FromWorker): void {
  switch (m.kind) {
    case 'ready':
      debug.simd = m.simd;
      create();
      return;
    case 'created':
      trained = creating;
      if (restartedAfter !== null) {
        const message = restartedAfter;
        restartedAfter = null;
        showNote(() => t('train.restarted', { message }));
      }
      info = m.info;
      debug.info = info;
      showFootprint();
      evalEvery = m.evalEvery;
      clearRun();
      debug.evals.push(...m.evals);
      addSnapshot(m.snapshot);
      setState('idle');
      drawStats();
      scheduleDraw();
      void answer();
      if (pendingRun !== null) {
        const stopAt = pendingRun;
        pendingRun = null;
        startRun(stopAt > 0 ? stopAt : undefined);
      }
      return;
    case 'create-failed':
      engineProblem = { field: fieldOfEngineMessage(m.message), message: m.message };
      showProblems();
      pendingRun = null;
      // The worker kept the model it had (paused if it was running).
      setState(!trained ? 'failed' : stateBeforeCreate === 'running' ? 'paused' : stateBeforeCreate === 'creating' ? 'idle' : stateBeforeCreate);
      showStatus(() => t('train.statusRefused'));
      return;
    case 'progress': {
      debug.progressMessages += 1;
      const n = m.stats.length / STAT_COLUMNS;
      for (let i = 0; i < n; i++) {
        const r = m.stats.subarray(i * STAT_COLUMNS, (i + 1) * STAT_COLUMNS);
        debug.losses[m.firstStep - 1 + i] = r[0]!;
        debug.trainAccuracy[m.firstStep - 1 + i] = r[1]!;
        debug.lrs[m.firstStep - 1 + i] = r[2]!;
        debug.gradNorms[m.firstStep - 1 + i] = r[3]!;
      }
      debug.evals.push(...m.evals);
      debug.step = m.step;
      debug.tokensPerSecond = m.tokensPerSecond;
      for (const snap of m.snapshots) addSnapshot(snap);
      drawStats();
      scheduleDraw();
      return;
    }
    case 'stopped':
      runSeconds += (performance.now() - runStarted) / 1000;
      debug.step = m.step;
      setState(m.reason === 'schedule-end' ? 'done' : 'paused');
      drawStats();
      void answer();
      return;
    case 'lr-set':
      if (info) info.lr = m.lr;
      drawStats();
      showNote(() => t('train.lrSet', { lr: m.lr, step: debug.step + 1 }));
      return;
    case 'probe':
      probeError(null);
      addSnapshot(m.snapshot, true);
      return;
    case 'answer': {
      const a = { prompt: m.prompt, step: m.step, answer: m.answer };
      debug.answers.push(a);
      if (debug.answers.length > 100) debug.answers.splice(0, debug.answers.length - 100);  // the latest 100
      const pending = answerWaiters.get(m.id);
      answerWaiters.delete(m.id);
      pending?.(a);
      return;
    }
    case 'files': {
      const f = { step: m.step, config: m.config, weights: m.weights, tokenizer: m.tokenizer };
      debug.exported = f;
      fileWaiters.get(m.id)?.(f);
      fileWaiters.delete(m.id);
      return;
    }
    case 'crashed': {
      // Requests in flight died with the worker; the run and the model with it.
      worker.terminate();
      answerWaiters.clear();
      fileWaiters.clear();
      pendingRun = null;
      const now = performance.now();
      restartTimes = restartTimes.filter((at) => now - at < RESTART_WINDOW_MS);
      if (restartTimes.length >= MAX_RESTARTS) {  // the same settings trap again and again
        setState('failed');
        showStatus(() => t('common.engineRestartFailed', { reason: m.message }));
        return;
      }
      restartTimes.push(now);
      restartedAfter = m.message;
      debug.restarts += 1;
      setState('starting');
      startWorker();
      return;
    }
    case 'error':
      if (m.request === 'probe') probeError(m.message);
      else if (m.request === 'generate') {
        tryError(() => t('train.err.engine', { message: m.message }));
        if (m.id !== undefined) answerWaiters.delete(m.id);
      } else if (m.request === 'export' && m.id !== undefined) {
        fileWaiters.delete(m.id);
        exportStatus.textContent = t('train.err.engine', { message: m.message });
      } else if (m.request === 'set-lr') {
        engineProblem = { field: 'lr', message: m.message };
        showProblems();
      } else {
        showStatus(() => t('train.err.engine', { message: m.message }));
      }
      return;
  }
}

function clearRun(): void {
  Object.assign(debug, { step: 0, losses: [], trainAccuracy: [], lrs: [], gradNorms: [], evals: [], snapshots: [],
    shownSnapshot: -1, tokensPerSecond: 0 });
  runSeconds = 0;
  followLatest = true;
}

// ---- numbers ---------------------------------------------------------------------------------------
const fmtLr = (v: number) => (v === 0 ? '0' : v.toExponential(2));
function drawStats(): void {
  const running = state === 'running' ? (performance.now() - runStarted) / 1000 : 0;
  byId('stat-step').textContent = t('train.stepOf', { step: debug.step, steps: info?.steps ?? settings.steps });
  byId('stat-elapsed').textContent = t('train.seconds', { s: (runSeconds + running).toFixed(1) });
  byId('stat-tps').textContent = debug.tokensPerSecond > 0 ? Math.round(debug.tokensPerSecond).toLocaleString(locale()) : '–';
  const lastLr = debug.lrs[debug.step - 1];
  byId('stat-lr').textContent = lastLr !== undefined ? fmtLr(lastLr) : '–';
  const e = debug.evals[debug.evals.length - 1];
  byId('stat-acc').textContent = e ? `${(100 * e.sequenceAccuracy).toFixed(1)} %` : '–';
}
window.setInterval(() => { if (state === 'running') drawStats(); }, 200);

// ---- curves ----------------------------------------------------------------------------------------
const lossChart = new LineChart({
  label: () => t('train.lossChart'), xLabel: () => t('train.xStep'), yLabel: () => t('train.yLoss'), yLog: true,
  xIntegers: true, xFormat: (v) => String(v), yFormat: (v) => String(Number(v.toPrecision(2))),
});
const accChart = new LineChart({
  label: () => t('train.accChart'), xLabel: () => t('train.xStep'), yLabel: () => t('train.yAcc'), yDomain: [0, 1],
  xIntegers: true, xFormat: (v) => String(v), yFormat: (v) => `${Math.round(100 * v)} %`,
});
byId('charts').append(lossChart.element, accChart.element);
const curveTable = new DataTableToggle(() => t('train.tableWhat'), (host) => renderCurveTable(host));
byId('curve-table').append(curveTable.element);

/** A long per-step series as at most `max` points: the mean of each run of steps. */
function thin(values: number[], max = 240): [number, number][] {
  const n = values.length;
  if (n <= max) return values.map((v, i) => [i + 1, v]);
  const k = Math.ceil(n / max), out: [number, number][] = [];
  for (let i = 0; i < n; i += k) {
    const part = values.slice(i, i + k);
    out.push([i + part.length, part.reduce((a, b) => a + b, 0) / part.length]);
  }
  return out;
}

let drawPending = false;
function scheduleDraw(): void {
  if (drawPending) return;
  drawPending = true;
  requestAnimationFrame(() => {
    drawPending = false;
    drawCharts();
    showSnapshot();
  });
}

function drawCharts(): void {
  debug.chartDraws += 1;
  const evals = debug.evals;
  const loss: Series[] = [
    { name: () => t('train.sTrainLoss'), points: thin(debug.losses), markers: false },
    { name: () => t('train.sHeldLoss'), points: evals.map((e) => [Math.max(e.step, 0.5), e.loss]), dashed: true },
  ];
  const acc: Series[] = [
    { name: () => t('train.sTrainAcc'), points: thin(debug.trainAccuracy), markers: false },
    { name: () => t('train.sHeldTok'), points: evals.map((e) => [e.step, e.tokenAccuracy]) },
    { name: () => t('train.sHeldSeq'), points: evals.map((e) => [e.step, e.sequenceAccuracy]) },
  ];
  lossChart.update(loss, debug.step || null);
  accChart.update(acc, debug.step || null);
  curveTable.refresh();
}

function renderCurveTable(host: HTMLElement): void {
  const evals = debug.evals;
  const page = curveTable.pageOf(evals.length);
  const table = document.createElement('table');
  const cap = table.createCaption();
  cap.textContent = t('train.tableCaption', { every: evalEvery });
  const head = table.createTHead().insertRow();
  for (const k of ['train.colStep', 'train.colTrainLoss', 'train.colHeldLoss', 'train.colHeldTok', 'train.colHeldSeq'] as MessageKey[]) {
    const th = document.createElement('th');
    th.scope = 'col';
    th.textContent = t(k);
    head.append(th);
  }
  const body = table.createTBody();
  for (let i = page.from; i < page.to; i++) {
    const e = evals[i]!;
    const r = body.insertRow();
    const th = document.createElement('th');
    th.scope = 'row';
    th.textContent = String(e.step);
    r.append(th);
    // The training loss around this step: the mean of the steps since the previous evaluation.
    const from = i > 0 ? evals[i - 1]!.step : 0;
    const part = debug.losses.slice(from, e.step);
    const mean = part.length ? part.reduce((a, b) => a + b, 0) / part.length : Number.NaN;
    for (const v of [Number.isNaN(mean) ? '–' : mean.toFixed(4), e.loss.toFixed(4), `${(100 * e.tokenAccuracy).toFixed(1)} %`,
      `${(100 * e.sequenceAccuracy).toFixed(1)} %`]) r.insertCell().textContent = v;
  }
  const pager = curveTable.pager(page);
  host.replaceChildren(...(pager ? [pager] : []), table);
}

// ---- attention maps and their replay -----------------------------------------------------------------
const MAX_SNAPSHOTS = 400;
let followLatest = true;

function addSnapshot(s: ProbeSnapshot, replaceProbe = false): void {
  const list = debug.snapshots;
  if (replaceProbe) {
    // A new probe: the old snapshots show another input; start its replay here.
    list.length = 0;
    followLatest = true;
  }
  if (list.length > 0 && list[list.length - 1]!.step === s.step && list[list.length - 1]!.prompt === s.prompt) list.pop();
  list.push(s);
  // Keep at most MAX_SNAPSHOTS: drop every other one of the older half (the start stays).
  if (list.length > MAX_SNAPSHOTS) {
    const half = Math.floor(list.length / 2);
    debug.snapshots = list.filter((_, i) => i >= half || i % 2 === 0);
  }
  replay.max = String(debug.snapshots.length - 1);
  if (followLatest) replay.value = replay.max;
  scheduleDraw();
}

replay.addEventListener('input', () => {
  followLatest = Number(replay.value) >= debug.snapshots.length - 1;
  showSnapshot();
});

interface MapView { name: string; section: HTMLElement; title: HTMLElement; heads: Heatmap[] }
let mapViews: MapView[] = [];
const legend = new ColorLegend(() => t('w.attentionWeight'));
mapsHost.before(legend.element);
legend.update([0, 1], 'viridis');

function mapTitle(name: string): string {
  if (info?.architecture === 'gru_attention') return t('train.setAdditive');
  const [set, layer] = name.split('.') as [string, string];
  const kind = name.includes('.cross.') ? 'train.setCross' : set === 'enc' ? 'train.setEnc' : 'train.setDec';
  return t('train.mapTitle', { set: t(kind as MessageKey), layer: Number(layer) + 1 });
}

function showSnapshot(): void {
  const i = Math.min(Number(replay.value), debug.snapshots.length - 1);
  const s = debug.snapshots[i];
  if (!s) return;
  debug.shownSnapshot = i;
  replayValue.textContent = t('train.replayValue', { step: s.step, count: debug.snapshots.length });
  replay.setAttribute('aria-valuetext', replayValue.textContent);
  if (mapViews.length !== s.maps.length || mapViews.some((v, k) => v.name !== s.maps[k]!.name || v.heads.length !== s.maps[k]!.heads)) {
    mapViews.forEach((v) => v.heads.forEach((h) => h.destroy()));
    mapsHost.replaceChildren();
    mapViews = s.maps.map((m) => {
      const section = document.createElement('section');
      section.className = 'map-group';
      const title = document.createElement('h3');
      section.append(title);
      const grid = document.createElement('div');
      grid.className = 'map-heads';
      const heads = Array.from({ length: m.heads }, () => new Heatmap({ title: '', maxCell: 28, digits: 2 }));
      heads.forEach((h) => grid.append(h.element));
      section.append(grid);
      mapsHost.append(section);
      return { name: m.name, section, title, heads };
    });
  }
  s.maps.forEach((m, k) => {
    const v = mapViews[k]!;
    v.title.textContent = mapTitle(m.name);
    const Tq = m.rows.length, Tk = m.cols.length;
    const masked = m.name.startsWith('dec.') && !m.name.includes('.cross.') ? causalMask(Tq) : null;
    v.heads.forEach((h, head) => {
      h.setTitle(t('train.headTitle', { head: head + 1, heads: m.heads }));
      h.update({ rowLabels: m.rows, colLabels: m.cols, values: m.data.subarray(head * Tq * Tk, (head + 1) * Tq * Tk), domain: [0, 1],
        masked });
    });
  });
}

/** (T, T): 1 above the diagonal, the keys a causal decoder position may not see (its
 *  weights there are 0 by the mask, not learned), hatched by the heatmap. */
const causalMasks = new Map<number, Float32Array>();
function causalMask(T: number): Float32Array {
  let m = causalMasks.get(T);
  if (!m) {
    m = new Float32Array(T * T);
    for (let i = 0; i < T; i++) for (let j = i + 1; j < T; j++) m[i * T + j] = 1;
    causalMasks.set(T, m);
  }
  return m;
}

let probeTimer = 0;
probeInput.addEventListener('input', () => {
  window.clearTimeout(probeTimer);
  probeTimer = window.setTimeout(() => {
    const p = inputProblem(trained ?? settings, probeInput.value);
    if (p) return probeError(t(p.key, p.params));
    probeError(null);
    send({ kind: 'probe', prompt: padAdd(probeInput.value) });
  }, 150);
});
function probeError(message: string | null): void {
  const e = byId('probe-err');
  e.textContent = message ?? '';
  e.hidden = message === null;
  probeInput.setAttribute('aria-invalid', message ? 'true' : 'false');
}

/** add's operands are fixed-width (zero-padded), as the task trains them: 12+3 → 012+003. */
function padAdd(text: string, s: TrainSettings = trained ?? settings): string {
  if (s.task !== 'add' || !text.includes('+')) return text;
  const [a, b] = text.split('+') as [string, string];
  return `${a.padStart(s.size, '0')}+${b.padStart(s.size, '0')}`;
}

// ---- the reader's input ----------------------------------------------------------------------------
let nextId = 1;
const answerWaiters = new Map<number, (a: { prompt: string; step: number; answer: string }) => void>();
let tryText: (() => string) | null = null;


function tryError(text: (() => string) | null): void {
  const e = byId('try-err');
  e.textContent = text ? text() : '';
  e.hidden = text === null;
  tryInput.setAttribute('aria-invalid', text ? 'true' : 'false');
}

async function answer(): Promise<void> {
  if (!trained) return;
  const raw = tryInput.value.trim();
  if (raw === '') {
    tryOutput.textContent = '';
    tryText = null;
    return;
  }
  const p = inputProblem(trained, raw);
  if (p) {
    tryError(() => t(p.key, p.params));
    return;
  }
  tryError(null);
  const prompt = padAdd(raw);
  const task = trained.task;  // the model answering; settings may change before it replies
  const id = nextId++;
  const a = await new Promise<{ prompt: string; step: number; answer: string }>((resolve) => {
    answerWaiters.set(id, resolve);
    send({ kind: 'generate', id, prompt });
  });
  const expected = solve(task, a.prompt);
  tryText = () => t('train.tryAnswer', { step: a.step, prompt: a.prompt, answer: a.answer || '∅' }) +
    (expected === null ? '' : ' ' + (a.answer === expected ? t('train.tryRight') : t('train.tryWrong', { expected })));
  tryOutput.textContent = tryText();
  tryOutput.dataset.answer = a.answer;
  tryOutput.dataset.step = String(a.step);
}
let tryTimer = 0;
tryInput.addEventListener('input', () => {
  window.clearTimeout(tryTimer);
  tryTimer = window.setTimeout(() => void answer(), 120);
});
// While training, the answer follows the model (at most every half second).
window.setInterval(() => { if (state === 'running' && tryInput.value.trim()) void answer(); }, 500);

// ---- export and the playground -------------------------------------------------------------------------
type Files = { step: number; config: string; weights: ArrayBuffer; tokenizer: string };
const fileWaiters = new Map<number, (f: Files) => void>();
function exportFiles(): Promise<Files> {
  const id = nextId++;
  return new Promise((resolve) => {
    fileWaiters.set(id, resolve);
    send({ kind: 'export', id });
  });
}

function download(name: string, data: BlobPart, type: string): void {
  const url = URL.createObjectURL(new Blob([data], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

byId('export-files').addEventListener('click', async () => {
  if (!trained) return;
  const f = await exportFiles();
  download('config.json', f.config, 'application/json');
  download('model.safetensors', f.weights, 'application/octet-stream');
  download('tokenizer.json', f.tokenizer, 'application/json');
  exportStatus.textContent = t('train.exported', { step: f.step });
});

/** The model folder as one zip (stored, not compressed: the weights hardly compress), named
 *  as the handover names it: task-architecture-stepN.zip holding task-architecture-stepN/. */
byId('export-zip').addEventListener('click', async () => {
  if (!trained) return;
  const f = await exportFiles();
  const name = `${trained.task}-${trained.arch}-step${f.step}`;
  const enc = new TextEncoder();
  const zip = zipStore([
    { name: `${name}/config.json`, data: enc.encode(f.config) },
    { name: `${name}/model.safetensors`, data: new Uint8Array(f.weights) },
    { name: `${name}/tokenizer.json`, data: enc.encode(f.tokenizer) },
  ]);
  debug.zip = { name: `${name}.zip`, bytes: zip };
  download(`${name}.zip`, zip, 'application/zip');
  exportStatus.textContent = t('train.exportedZip', { step: f.step, name: `${name}.zip` });
});

// Where the browser lets the page write into a folder the reader picks (Chromium's File
// System Access API), the three files go there as one model folder.
interface DirectoryHandle {
  getFileHandle(name: string, o: { create: boolean }): Promise<{ createWritable(): Promise<{ write(d: BlobPart): Promise<void>; close(): Promise<void> }> }>;
}
const picker = (window as unknown as { showDirectoryPicker?: (o: object) => Promise<DirectoryHandle> }).showDirectoryPicker;
const folderButton = byId<HTMLButtonElement>('export-folder');
folderButton.hidden = !picker;
folderButton.addEventListener('click', async () => {
  if (!trained || !picker) return;
  try {
    const dir = await picker.call(window, { mode: 'readwrite' });
    const f = await exportFiles();
    for (const [name, data] of [['config.json', f.config], ['model.safetensors', f.weights], ['tokenizer.json', f.tokenizer]] as const) {
      const w = await (await dir.getFileHandle(name, { create: true })).createWritable();
      await w.write(data);
      await w.close();
    }
    exportStatus.textContent = t('train.exportedFolder', { step: f.step });
  } catch (e) {
    if (e instanceof DOMException && e.name === 'AbortError') return;  // the reader closed the picker
    exportStatus.textContent = t('train.handoverFailed', { message: e instanceof Error ? e.message : String(e) });
  }
});

byId('open-playground').addEventListener('click', async () => {
  if (!trained) return;
  // The tab opens in the click (a pop-up blocker allows it then), the address once stored.
  const tab = window.open('', '_blank');
  try {
    const f = await exportFiles();
    const probe = padAdd(probeInput.value || defaultProbe(trained));
    const sep = trained.task === 'add' ? '=' : '>';
    // Induction: the sequence twice, as it trained, and the head finders to find its head.
    const induction = trained.task === 'induction';
    const text = trained.arch !== 'decoder' ? probe : induction ? `${probe}${probe}` : `${probe}${sep}`;
    await saveHandover({ name: `${trained.task}-${trained.arch}-step${f.step}`, config: f.config, weights: f.weights,
      tokenizer: f.tokenizer, step: f.step, task: trained.task, text, savedAt: Date.now() });
    const url = playgroundUrl(text, new URLSearchParams(location.search).get('lang'), induction ? 'heads' : undefined);
    exportStatus.textContent = t('train.handedOver', { step: f.step });
    if (tab) tab.location.href = url;
    else location.href = url;
  } catch (e) {
    tab?.close();
    exportStatus.textContent = t('train.handoverFailed', { message: e instanceof Error ? e.message : String(e) });
  }
});

// ---- language and theme -------------------------------------------------------------------------------
onLocaleChange(() => {
  statusLine.textContent = statusText();
  if (noteText) noteLine.textContent = noteText();
  if (tryText) tryOutput.textContent = tryText();
  runButton.textContent = t((runButton.dataset.i18n ?? 'train.start') as MessageKey);
  showTaskHelp();
  showProblems();
  showFootprint();
  drawStats();
  curveTable.refresh();
  showSnapshot();
});
onThemeChange(() => mapViews.forEach((v) => v.heads.forEach((h) => h.redraw())));
bindText(byId('replay-label'), () => t('train.replay'));

// ---- start --------------------------------------------------------------------------------------------
showSettings(settings);
showArchitecture();
problems = validate(settings);
showProblems();
showFootprint();
commandLine.textContent = nativeCommand(settings);
probeInput.value = defaultProbe(settings);
tryInput.placeholder = defaultProbe(settings);
setState('starting');
