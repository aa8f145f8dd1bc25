// The attention lab page: a text box and a few settings; every change asks the engine
// (in its worker) for one multi-head self-attention block over the words and draws each
// head's weights. All numbers come from the engine; this file only wires the page.
import { onThemeChange } from '../../widgets/theme';
import { Engine, EngineError, type AttentionResult } from 'transformer-playground';
import { onLocaleChange, t, withLang } from '../../i18n/i18n';
import { HeadGrid } from '../../widgets/head_grid';
import { TokenStrip } from '../../widgets/token_strip';
import { DEFAULT_STATE, MAX_TOKENS, queryOf, stateFromQuery, tokensOf, type LabState } from './state';
import { watchRestarts } from '../../shell/engine_restart';

/** What tests and curious users can read back: the state and the engine's last result. */
export interface LabDebug {
  state: LabState;
  result: AttentionResult | null;
  renders: number;
  engineInfo: { version: string; simdArch: string } | null;
}

declare global {
  interface Window {
    tfpLab: LabDebug;
  }
}

function byId<T extends HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`attention lab: #${id} missing from the page`);
  return el as T;
}

const form = byId<HTMLFormElement>('controls');
const textInput = byId<HTMLInputElement>('text');
const dModelSelect = byId<HTMLSelectElement>('d-model');
const causalBox = byId<HTMLInputElement>('causal');
const windowInput = byId<HTMLInputElement>('window');
const seedInput = byId<HTMLInputElement>('seed');
const statusLine = byId<HTMLElement>('status');
const errorLine = byId<HTMLElement>('error');

let state: LabState = stateFromQuery(location.search);
const debug: LabDebug = { state, result: null, renders: 0, engineInfo: null };
window.tfpLab = debug;

const grid = new HeadGrid('viridis');
byId('grid').append(grid.element);
const strip = new TokenStrip(byId('tokens'), (i) => {
  const padding = state.padding.includes(i) ? state.padding.filter((p) => p !== i) : [...state.padding, i].sort((a, b) => a - b);
  setState({ ...state, padding });
});

function showControls(s: LabState): void {
  if (textInput.value !== s.text) textInput.value = s.text;
  (form.elements.namedItem('heads') as RadioNodeList).value = String(s.heads);
  dModelSelect.value = String(s.dModel);
  causalBox.checked = s.causal;
  if (Number(windowInput.value) !== s.window || windowInput.value === '') windowInput.value = String(s.window);
  if (Number(seedInput.value) !== s.seed || seedInput.value === '') seedInput.value = String(s.seed);
  (form.elements.namedItem('scale') as RadioNodeList).value = s.scale;
  strip.update(tokensOf(s.text), s.padding, t('lab.padding'));
}

function readControls(): LabState {
  const num = (input: HTMLInputElement, lo: number, hi: number, fallback: number) => {
    const v = Math.floor(Number(input.value));
    return Number.isFinite(v) && input.value !== '' ? Math.max(lo, Math.min(hi, v)) : fallback;
  };
  const text = textInput.value;
  const T = tokensOf(text).length;
  return {
    text,
    heads: Number((form.elements.namedItem('heads') as RadioNodeList).value) as LabState['heads'],
    dModel: Number(dModelSelect.value) as LabState['dModel'],
    causal: causalBox.checked,
    window: num(windowInput, 0, MAX_TOKENS, 0),
    seed: num(seedInput, 0, 4294967295, DEFAULT_STATE.seed),
    padding: state.padding.filter((p) => p < T),
    scale: (form.elements.namedItem('scale') as RadioNodeList).value === 'max' ? 'max' : 'fixed',
  };
}

function setState(next: LabState): void {
  state = next;
  debug.state = next;
  history.replaceState(null, '', `?${withLang(queryOf(next))}`);
  showControls(next);
  schedule();
}

// One request at a time; while one runs, only the latest state waits its turn.
let engine: Engine | null = null;
let running = false;
let queued = false;

function schedule(): void {
  if (!engine) return;
  if (running) {
    queued = true;
    return;
  }
  void compute();
}

async function compute(): Promise<void> {
  if (!engine) return;
  running = true;
  queued = false;
  const s = state;
  const tokens = tokensOf(s.text);
  try {
    if (tokens.length === 0) {
      showError(() => t('lab.typeWord'));
      return;
    }
    const padding = new Uint8Array(tokens.length);
    s.padding.forEach((i) => (padding[i] = 1));
    const started = performance.now();
    const result = await engine.attention({
      tokens, dModel: s.dModel, heads: s.heads, seed: s.seed,
      causal: s.causal, window: s.window, padding,
    });
    const roundTrip = performance.now() - started;
    if (s !== state && queued) return;  // stale: a newer state is about to be drawn
    draw(result, s);
    showError(null);
    const info = engine.info;
    showStatus(() => t('lab.status', {
      tokens: t('common.tokens', { count: tokens.length }),
      heads: t('lab.heads.count', { count: s.heads, dims: s.dModel / s.heads }),
      version: info.version, arch: info.simdArch,
      workerMs: result.workerMs.toFixed(1), roundTripMs: roundTrip.toFixed(1),
    }));
  } catch (e) {
    // The engine's own message stays as it is (English); the frame around it is ours.
    showError(() => (e instanceof EngineError ? t('common.engineRefused', { message: e.message })
                                              : t('common.unexpected', { message: String(e) })));
  } finally {
    running = false;
    if (queued) schedule();
  }
}

/** The state the shown result was computed for (a language switch repaints it as is). */
let drawnState: LabState = state;

function draw(result: AttentionResult, s: LabState): void {
  paint(result, s);
  debug.result = result;
  debug.renders += 1;
  document.body.dataset.renders = String(debug.renders);
}

function paint(result: AttentionResult, s: LabState): void {
  drawnState = s;
  const [H] = result.probs.dims as [number, number, number];
  let max = 0;
  for (const v of result.probs.data) max = Math.max(max, v);
  grid.update({
    tokens: result.tokens,
    probs: result.probs.data,
    heads: H,
    masked: result.masked.data,
    domain: s.scale === 'max' && max > 0 ? [0, max] : [0, 1],
  });
}

// The status and error lines are kept as functions of the locale, so a language switch
// rewrites them without asking the engine again.
let statusText: () => string = () => statusLine.textContent ?? '';
let errorText: (() => string) | null = null;

function showStatus(text: () => string): void {
  statusText = text;
  statusLine.textContent = text();
}

function showError(message: (() => string) | null): void {
  errorText = message;
  errorLine.hidden = message === null;
  errorLine.textContent = message ? message() : '';
}

// A language switch redraws the text from what the page already has: the controls,
// the last result (head titles, legend), the status and the error.
onLocaleChange(() => {
  showControls(state);
  if (debug.result) paint(debug.result, drawnState);
  statusLine.textContent = statusText();
  if (errorText) errorLine.textContent = errorText();
});

// Controls → state. Typing is debounced a little; everything else applies at once.
let typingTimer = 0;
form.addEventListener('input', (e) => {
  if (e.target === textInput) {
    window.clearTimeout(typingTimer);
    typingTimer = window.setTimeout(() => setState(readControls()), 120);
  } else {
    setState(readControls());
  }
});
form.addEventListener('submit', (e) => e.preventDefault());

// Canvases read colours from CSS: redraw when the theme flips.
onThemeChange(() => grid.redraw());

showControls(state);
Engine.create().then(
  (e) => {
    engine = e;
    watchRestarts(e, { reload: () => schedule() });  // a new worker after a trap: compute again
    debug.engineInfo = { ...e.info };
    showStatus(() => t('common.computing'));
    schedule();
  },
  (e: unknown) => {
    showStatus(() => t('common.engineDidNotStart'));
    showError(() => String(e instanceof Error ? e.message : e));
  },
);
