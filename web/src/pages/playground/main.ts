// The playground page: model picker (shipped models, bundled fixtures, your own files),
// text → tokens → outputs, and the attention inspector. All numbers come from the
// engine (web/src/engine/: the model, and rollout and statistics on its maps);
// this file wires state, controls and widgets together.
import { Engine, type ForwardResult, type Model, type TokenizeResult, type TranslateResult } from '../../engine/engine';
import { markSpan, TokenSpans } from '../../widgets/token_spans';
import { looksByteLevel, visibleToken } from '../../widgets/token_text';
import { CATALOG, DEFAULT_MODEL, LEFT_OUT } from './catalog';
import { exportJson, exportPng, exportSvg } from './export';
import { Inspector, type AttentionFamily, type Shown } from './inspector';
import { Outputs } from './outputs';
import { queryOf, stateFromQuery, VIEWS, type AttnSet, type PlayState, type View } from './state';

/** What tests (and curious users) can read back. */
export interface PlayDebug {
  state: PlayState;
  modelInfo: Model['info'] | null;
  modelLabel: string;
  encoding: { ids: number[]; tokens: string[]; offsets: number[]; truncated: boolean } | null;
  attention: { name: string; dims: number[]; data: Float32Array }[];
  shown: Shown | null;
  outputs: Outputs;
  renders: number;
  loads: number;
  errors: string[];
}

declare global {
  interface Window {
    tfpPlay: PlayDebug;
  }
}

function byId<T extends HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`playground: #${id} missing from the page`);
  return el as T;
}

const modelSelect = byId<HTMLSelectElement>('model-select');
const fileInput = byId<HTMLInputElement>('model-files');
const dropzone = byId('dropzone');
const progressBox = byId('load-progress');
const progressBar = byId<HTMLProgressElement>('load-bar');
const progressLabel = byId('load-label');
const loadError = byId('load-error');
const modelInfoLine = byId('model-info');
const textBox = byId<HTMLTextAreaElement>('text');
const textEcho = byId('text-echo');
const statusLine = byId('status');
const errorLine = byId('error');
const tabs = byId('view-tabs');
const setSelect = byId<HTMLSelectElement>('set-select');
const layerSelect = byId<HTMLSelectElement>('layer-select');
const headSelect = byId<HTMLSelectElement>('head-select');

let state: PlayState = stateFromQuery(location.search);
if (!state.model || (state.model !== 'local' && !CATALOG.some((c) => c.id === state.model))) state = { ...state, model: DEFAULT_MODEL };

const outputs = new Outputs({
  change: (patch) => setState({ ...state, ...patch }, false),
  error: (m) => showError(m),
  translated: (r, src) => void onTranslated(r, src),
  generationEvent: (kind) => { if (kind === 'done') document.body.dataset.generations = String(Number(document.body.dataset.generations ?? 0) + 1); },
});
byId('outputs').append(outputs.element);

const debug: PlayDebug = {
  state, modelInfo: null, modelLabel: '', encoding: null, attention: [], shown: null, outputs,
  renders: 0, loads: 0, errors: [],
};
window.tfpPlay = debug;

const inspector = new Inspector(byId('view'), {
  change: (patch) => setState({ ...state, ...patch }, false),
  rendered: (shown) => {
    debug.shown = shown;
    debug.renders += 1;
    document.body.dataset.renders = String(debug.renders);
  },
});

const strip = new TokenSpans('Tokens of the text', {
  onHover: (i) => {
    const enc = current.encoding;
    markSpan(textEcho, textBox.value, i === null || !enc ? null : [enc.offsets[2 * i]!, enc.offsets[2 * i + 1]!]);
  },
  onSelect: (i) => setState({ ...state, token: state.token === i ? null : i }, false),
});
byId('tokens').append(strip.element);

// ---- state --------------------------------------------------------------------------

interface Current {
  model: Model | null;
  label: string;
  encoding: TokenizeResult | null;
  forward: ForwardResult | null;
  translation: { result: TranslateResult; src: TokenizeResult } | null;
  families: AttentionFamily[];
}
const current: Current = { model: null, label: '', encoding: null, forward: null, translation: null, families: [] };

function setState(next: PlayState, recompute: boolean): void {
  state = next;
  debug.state = next;
  history.replaceState(null, '', `?${queryOf(next)}`);
  showInspectorControls();
  strip.setSelected(next.token);
  if (recompute) schedule();
  else inspector.update({ families: current.families }, state);
}

function showError(message: string | null): void {
  errorLine.hidden = message === null;
  errorLine.textContent = message ?? '';
  if (message) debug.errors.push(message);
}

// ---- model picker -------------------------------------------------------------------

for (const c of CATALOG) modelSelect.add(new Option(c.label, c.id));
if (LEFT_OUT.length > 0) {
  const leftOut = byId('left-out');
  leftOut.hidden = false;
  leftOut.textContent = `Not offered: ${LEFT_OUT.map((m) => `${m.id} (${m.reason})`).join('; ')}.`;
}
const localOption = new Option('Your own files', 'local');
localOption.disabled = true;
modelSelect.add(localOption);

let engine: Engine | null = null;

async function loadModel(source: Parameters<Engine['load']>[0], label: string, id: string): Promise<void> {
  if (!engine) return;
  loadError.hidden = true;
  progressBox.hidden = false;
  progressBar.removeAttribute('value');
  progressLabel.textContent = `Loading ${label}…`;
  try {
    const model = await engine.load(source, {
      onProgress: (p) => {
        if (p.total > 0) progressBar.value = p.bytes / p.total;
        progressLabel.textContent = p.stage === 'reading'
          ? `Reading ${label}: ${(p.bytes / 1024).toFixed(0)}${p.total ? ` of ${(p.total / 1024).toFixed(0)}` : ''} KiB`
          : p.stage === 'parsing' ? `Parsing ${label}…` : `Binding the weights of ${label}…`;
      },
    });
    if (!model.info.tokenizer) {
      void model.dispose();
      throw new Error(`${label} has no tokenizer.json: the playground needs one to turn text into tokens`);
    }
    const old = current.model;
    current.model = model;
    current.label = label;
    current.translation = null;
    if (old) void old.dispose();
    debug.modelInfo = model.info;
    debug.modelLabel = label;
    debug.loads += 1;
    document.body.dataset.loads = String(debug.loads);
    localOption.disabled = id !== 'local';
    modelSelect.value = id;
    const i = model.info;
    const layers = i.architecture === 'encoder_decoder' ? `${i.n_encoder_layers}+${i.n_decoder_layers}` : String(i.n_encoder_layers + i.n_decoder_layers);
    modelInfoLine.textContent = `${label}: ${i.architecture.replace('_', '-')} (${i.family}), ${layers} layers, ` +
      `${i.n_heads} heads, d_model ${i.d_model}, ${i.parameters.toLocaleString('en')} parameters, ` +
      `context ${i.max_positions} tokens, vocabulary ${i.vocab_size}.`;
    const r = i.recurrent;  // a GRU encoder–decoder: say what its "1 layer, 1 head" is
    if (r) modelInfoLine.textContent = `${label}: recurrent encoder–decoder: ${r.bidirectional_encoder ? 'bidirectional ' : ''}` +
      `GRU encoder (${r.encoder_hidden} per direction), GRU decoder (${r.decoder_hidden}), ${r.attention} (Bahdanau) ` +
      `attention — no self-attention; ${i.parameters.toLocaleString('en')} parameters, source up to ${i.max_positions} ` +
      `tokens, vocabulary ${i.vocab_size}.`;
    outputs.setModel(model, model.info.family === 'gpt2', state);
    setState({ ...state, model: id, set: '' }, true);
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    loadError.textContent = `Could not load ${label}: ${msg}.` + (current.model ? ` Still using ${current.label}.` : '');
    loadError.hidden = false;
    debug.errors.push(msg);
    if (current.model) modelSelect.value = state.model;
    document.body.dataset.loadErrors = String(Number(document.body.dataset.loadErrors ?? 0) + 1);
  } finally {
    progressBox.hidden = true;
  }
}

function loadCatalog(id: string): Promise<void> {
  const c = CATALOG.find((x) => x.id === id) ?? CATALOG[0];
  if (!c) {
    loadError.textContent = 'No model is bundled with this build.';
    loadError.hidden = false;
    return Promise.resolve();
  }
  const base = location.href;
  return loadModel({ name: c.id, config: new URL(c.config, base), weights: new URL(c.weights, base),
                     ...(c.tokenizer ? { tokenizer: new URL(c.tokenizer, base) } : {}) }, c.label, c.id);
}

modelSelect.addEventListener('change', () => { if (modelSelect.value !== 'local') void loadCatalog(modelSelect.value); });
fileInput.addEventListener('change', () => {
  if (fileInput.files && fileInput.files.length) void loadFiles(Array.from(fileInput.files));
  fileInput.value = '';
});

function loadFiles(files: File[]): Promise<void> {
  const label = files.map((f) => f.name).join(', ');
  return loadModel(files, `your files (${label})`, 'local');
}

/** Files of a dropped folder (one level deep) or the dropped files themselves. */
async function droppedFiles(dt: DataTransfer): Promise<File[]> {
  const entries = Array.from(dt.items).map((it) => it.webkitGetAsEntry?.()).filter((e): e is FileSystemEntry => !!e);
  const files: File[] = [];
  const fileOf = (e: FileSystemFileEntry) => new Promise<File>((res, rej) => e.file(res, rej));
  for (const e of entries) {
    if (e.isFile) files.push(await fileOf(e as FileSystemFileEntry));
    else if (e.isDirectory) {
      const reader = (e as FileSystemDirectoryEntry).createReader();
      const children = await new Promise<FileSystemEntry[]>((res, rej) => reader.readEntries(res, rej));
      for (const c of children) if (c.isFile) files.push(await fileOf(c as FileSystemFileEntry));
    }
  }
  return files.length ? files : Array.from(dt.files);
}

dropzone.addEventListener('dragover', (e) => { e.preventDefault(); dropzone.classList.add('over'); });
dropzone.addEventListener('dragleave', () => dropzone.classList.remove('over'));
dropzone.addEventListener('drop', (e) => {
  e.preventDefault();
  dropzone.classList.remove('over');
  if (e.dataTransfer) void droppedFiles(e.dataTransfer).then(loadFiles);
});

// ---- text → tokens → forward ----------------------------------------------------------

let running = false;
let queued = false;

function schedule(): void {
  if (!current.model) return;
  if (running) {
    queued = true;
    return;
  }
  void compute();
}

async function compute(): Promise<void> {
  const model = current.model;
  if (!model) return;
  running = true;
  queued = false;
  const text = state.text;
  try {
    const started = performance.now();
    const enc = await model.tokenize(text);
    const max = model.info.max_positions;
    const truncated = enc.ids.length > max;
    const T = Math.min(enc.ids.length, max);
    const ids = enc.ids.slice(0, T);
    const tokens = enc.tokens.slice(0, T);
    const offsets = enc.offsets.slice(0, 2 * T);
    const byteLevel = model.info.family === 'gpt2' || looksByteLevel(enc.tokens);
    current.encoding = { ids, tokens, offsets, specialMask: enc.specialMask.slice(0, T) };
    debug.encoding = { ids: Array.from(ids), tokens, offsets: Array.from(offsets), truncated };
    strip.update({ tokens, ids, offsets, special: current.encoding.specialMask, byteLevel }, state.token);
    markSpan(textEcho, text, null);
    if (T === 0) {
      current.families = [];
      current.forward = null;
      showError(null);
      statusLine.textContent = 'Type some text to see its tokens.';
      inspector.update({ families: [] }, state);
      return;
    }
    const arch = model.info.architecture;
    // Encoder-decoder: the decoder reads the start token and then the translation so
    // far (teacher forcing), so its rows are labelled with those tokens.
    const fwd = await model.forward(ids, { attention: true, ...(arch === 'encoder_decoder' ? { tgtIds: decoderInput().ids } : {}) });
    current.forward = fwd;
    debug.attention = fwd.attention.map((a) => ({ name: a.name, dims: a.dims, data: a.data }));
    current.families = families(fwd, tokens.map((t) => visibleToken(t, byteLevel)), byteLevel);
    // The drill-down replays rows of this same pass (same ids, same decoder input).
    const stepOpts = arch === 'encoder_decoder' ? { tgtIds: decoderInput().ids } : {};
    inspector.steps = (pick) => model.attentionSteps(ids, pick, stepOpts);
    outputs.noteByteLevel(byteLevel);
    if (arch === 'decoder_only') await outputs.showNext(ids);
    if (arch === 'encoder_only') outputs.showPerToken(model.info, tokens, fwd);
    if (arch === 'encoder_only') await outputs.showFillMask(ids, tokens);
    if (queued) return;
    showError(null);
    statusLine.textContent = `${T} tokens` + (truncated ? ` (the text has ${enc.ids.length}; the model's context holds ${max}, so only the first ${max} are used)` : '') +
      `. Forward pass ${fwd.workerMs.toFixed(1)} ms in the engine worker, ${(performance.now() - started).toFixed(0)} ms in all.`;
    showInspectorControls();
    inspector.update({ families: current.families }, state);
  } catch (e) {
    showError(`The engine refused: ${e instanceof Error ? e.message : String(e)}`);
  } finally {
    running = false;
    if (queued) schedule();
  }
}

/** The decoder's input for an encoder-decoder forward pass: start token + translation. */
function decoderInput(): { ids: number[]; tokens: string[] } {
  const info = current.model!.info;
  const bos = info.tokenizer?.special.bos ?? -1;
  // The same start mark as translate (engine/models.ts): the config's, else bos, else eos.
  const start = info.decoder_start_token_id >= 0 ? info.decoder_start_token_id : bos >= 0 ? bos : info.eos_token_id;
  const r = current.translation?.result;
  return { ids: [start, ...(r ? Array.from(r.ids) : [])], tokens: ['⟨start⟩', ...(r ? r.tokens : [])] };
}

/** Groups the forward pass's attention tensors by kind, in layer order. */
function families(fwd: ForwardResult, shown: string[], byteLevel: boolean): AttentionFamily[] {
  const out: AttentionFamily[] = [];
  const tgtTokens = current.model?.info.architecture === 'encoder_decoder'
    ? decoderInput().tokens.map((t, i) => (i === 0 ? t : visibleToken(t, byteLevel))) : [];
  const spec: { set: AttnSet; re: RegExp; label: string }[] = [
    { set: 'enc', re: /^enc\.(\d+)\.attn\.probs$/, label: 'Encoder self-attention' },
    { set: 'dec', re: /^dec\.(\d+)\.attn\.probs$/, label: current.model?.info.architecture === 'decoder_only' ? 'Self-attention (causal)' : 'Decoder self-attention' },
    { set: 'cross', re: /^dec\.(\d+)\.cross\.probs$/, label: 'Cross-attention' },
  ];
  for (const s of spec) {
    const found = fwd.attention.map((a) => ({ a, m: s.re.exec(a.name) })).filter((x) => x.m)
      .sort((x, y) => Number(x.m![1]) - Number(y.m![1]));
    if (!found.length) continue;
    const [H, Tq, Tk] = found[0]!.a.dims as [number, number, number];
    const rows = s.set === 'enc' ? shown : s.set === 'dec' && current.model?.info.architecture === 'decoder_only' ? shown : tgtTokens.slice(0, Tq);
    const cols = s.set === 'cross' || s.set === 'enc' ? shown : rows;
    const label = (n: number, l: string[]) => (l.length === n ? l : Array.from({ length: n }, (_, i) => l[i] ?? `#${i + 1}`));
    out.push({ set: s.set, label: s.label, names: found.map((x) => x.a.name), layers: found.map((x) => x.a.data), heads: H,
               rowTokens: label(Tq, rows), colTokens: label(Tk, cols), causal: s.set === 'dec' });
  }
  return out;
}

async function onTranslated(r: TranslateResult, src: TokenizeResult): Promise<void> {
  current.translation = { result: r, src };
  setState({ ...state, set: state.set || 'cross', view: state.view === 'model' ? 'cross' : state.view }, true);
}

// ---- inspector controls ----------------------------------------------------------------

const VIEW_LABELS: Record<View, string> = {
  model: 'Model', matrix: 'Matrix', lines: 'Lines', qk: 'Query·key', cross: 'Cross', stats: 'Head stats', rollout: 'Rollout', compare: 'Compare',
};
const tabButtons = VIEWS.map((v) => {
  const b = document.createElement('button');
  b.type = 'button';
  b.role = 'tab';
  b.id = `tab-${v}`;
  b.textContent = VIEW_LABELS[v];
  b.addEventListener('click', () => setState({ ...state, view: v }, false));
  b.addEventListener('keydown', (e) => {
    const k = VIEWS.indexOf(v);
    const next = e.key === 'ArrowRight' ? (k + 1) % VIEWS.length : e.key === 'ArrowLeft' ? (k + VIEWS.length - 1) % VIEWS.length : -1;
    if (next < 0) return;
    e.preventDefault();
    setState({ ...state, view: VIEWS[next]! }, false);
    tabButtons[next]!.focus();
  });
  tabs.append(b);
  return b;
});

function fill(sel: HTMLSelectElement, n: number, value: number, label: (i: number) => string): void {
  if (sel.options.length !== n) {
    sel.replaceChildren();
    for (let i = 0; i < n; i++) sel.add(new Option(label(i), String(i)));
  }
  sel.value = String(value);
}

function showInspectorControls(): void {
  tabButtons.forEach((b, k) => {
    const on = VIEWS[k] === state.view;
    b.setAttribute('aria-selected', String(on));
    b.tabIndex = on ? 0 : -1;
  });
  const fams = current.families;
  const f = inspector.family(state, fams);
  const wanted = state.view === 'cross' ? fams.find((x) => x.set === 'cross') ?? f : f;
  setSelect.replaceChildren(...fams.map((x) => new Option(x.label, x.set, false, x.set === wanted?.set)));
  setSelect.disabled = fams.length < 2;
  if (!wanted) return;  // nothing computed yet: keep the layer and head the URL asked for
  const L = wanted.layers.length, H = wanted.heads;
  const layer = Math.min(state.layer, L - 1), head = Math.min(state.head, H - 1);
  if (layer !== state.layer || head !== state.head) {
    state = { ...state, layer, head };
    debug.state = state;
    history.replaceState(null, '', `?${queryOf(state)}`);
  }
  fill(layerSelect, L, layer, (i) => String(i + 1));
  fill(headSelect, H, head, (i) => String(i + 1));
}

setSelect.addEventListener('change', () => setState({ ...state, set: setSelect.value as AttnSet }, false));
layerSelect.addEventListener('change', () => setState({ ...state, layer: Number(layerSelect.value) }, false));
headSelect.addEventListener('change', () => setState({ ...state, head: Number(headSelect.value) }, false));

function exportName(): string {
  const f = inspector.family(state, current.families);
  return `${state.model || 'model'}-${state.view}-${f?.set ?? ''}-L${state.layer + 1}H${state.head + 1}`;
}
byId('export-svg').addEventListener('click', () => {
  const svg = inspector.svg();
  if (svg) exportSvg(svg, exportName());
  else showError('This view has no picture to export.');
});
byId('export-png').addEventListener('click', () => {
  const svg = inspector.svg();
  if (svg) exportPng(svg, exportName()).catch((e: unknown) => showError(String(e)));
  else showError('This view has no picture to export.');
});
byId('export-json').addEventListener('click', () => {
  const f = inspector.family(state, current.families);
  if (!f) return;
  const layer = Math.min(state.layer, f.layers.length - 1);
  exportJson({
    model: current.label, text: state.text, name: f.names[layer], dims: [f.heads, f.rowTokens.length, f.colTokens.length],
    queries: f.rowTokens, keys: f.colTokens, data: Array.from(f.layers[layer]!),
    view: state.view, shown: debug.shown ? Object.fromEntries(Object.entries(debug.shown.panels).map(([k, v]) => [k, { dims: v.dims, data: Array.from(v.data) }])) : null,
  }, exportName());
});
byId('copy-link').addEventListener('click', () => {
  void navigator.clipboard?.writeText(location.href).then(() => (statusLine.textContent = 'Link copied: it reproduces this view.'),
    () => (statusLine.textContent = `Link: ${location.href}`));
});

// ---- text box ----------------------------------------------------------------------------

textBox.value = state.text;
markSpan(textEcho, state.text, null);
let typing = 0;
textBox.addEventListener('input', () => {
  window.clearTimeout(typing);
  typing = window.setTimeout(() => setState({ ...state, text: textBox.value, token: null }, true), 150);
});

window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => inspector.redraw());

showInspectorControls();
Engine.create().then(
  (e) => {
    engine = e;
    inspector.maths = e;
    statusLine.textContent = 'Loading the model…';
    return state.model === 'local' ? loadCatalog(DEFAULT_MODEL) : loadCatalog(state.model);
  },
  (e: unknown) => {
    statusLine.textContent = 'The engine did not start.';
    showError(String(e instanceof Error ? e.message : e));
  },
);
