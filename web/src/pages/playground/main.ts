// The playground page: model picker (shipped models, bundled fixtures, your own files),
// text → tokens → outputs, and the attention inspector. All numbers come from the
// engine (web/src/engine/: the model, and rollout and statistics on its maps);
// this file wires state, controls and widgets together.
import { onThemeChange } from '../../widgets/theme';
import { Engine, decoderStartId, type ForwardResult, type LoadProgress, type Model, type TokenizeResult, type TranslateResult } from 'transformer-playground';
import { applyMarkup, label as labelText, onLocaleChange, t, withLang, type Label, type MessageKey } from '../../i18n/i18n';
import { markSpan, TokenSpans, type TokenSpanData } from '../../widgets/token_spans';
import { looksByteLevel, visibleToken } from '../../widgets/token_text';
import { firstCatalogModel, takeCatalogFiles, type Fetched } from './first_model';
import { CATALOG, DEFAULT_MODEL, LEFT_OUT } from '../../shell/catalog';
import { catalogLabel } from '../../shell/catalog_label';
import { wireExports } from './export';
import { Inspector } from './inspector';
import { lastQueryRow, type AttentionFamily } from '../../widgets/attention_families';
import { Outputs } from './outputs';
import { Ablation } from './ablation';
import { queryOf, stateFromQuery, VIEWS, type AttnSet, type PlayState, type Precision, type View } from './state';
import { readHandover } from '../train/handover';
import { hasTarget, MAX_VECTOR_TOKENS, targetText, vectorArgs, vectorFamilies } from './vectors';
import { defaultIds, isIdsText, readsIds, tokenizeAsIds } from './ids_input';
import { showArchitecture } from './architecture';
import { machinery } from '../../widgets/attention_masks';
import { droppedFiles, estimateText, folderEstimate, NarrowerChoices, narrowerFits, refusalText } from './open_files';
import { WASM_HEAP_LIMIT, type LoadPrecision } from '../../engine/checkpoint_memory';
import type { ForwardOptions } from '../../engine/model';
import { watchRestarts } from '../../shell/engine_restart';
import { PrecisionSwitch } from './precision';
import { modelLine } from './model_line';
import type { PlayDebug } from './debug';
import { HubPicker } from './hub_picker';
import { throttledUrl } from './throttled_url';
import { ViewTabs } from './view_tabs';
import type { HubLoadOptions } from '../../engine/hub_load';


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
// Under a refusal, the precisions in which the folder would fit, each a button that opens it so.
const narrower = new NarrowerChoices();
loadError.after(narrower.element);
const modelInfoLine = byId('model-info');
const textBox = byId<HTMLTextAreaElement>('text');
const textEcho = byId('text-echo');
const statusLine = byId('status');
// The footer's "N threads": which build of the engine runs (engine/load_module.ts).
const threadsLine = byId('engine-threads');
let threadsText: (() => string) | null = null;
const errorLine = byId('error');
const tabs = byId('view-tabs');
const setSelect = byId<HTMLSelectElement>('set-select');
const layerSelect = byId<HTMLSelectElement>('layer-select');
const headSelect = byId<HTMLSelectElement>('head-select');
const stripHelp = byId('strip-help');
// The loaded model's architecture (architecture.ts), under the model line.
const archBox = document.createElement('section');
archBox.id = 'arch-summary';
archBox.className = 'arch-summary';
archBox.hidden = true;
modelInfoLine.after(archBox);

let state: PlayState = stateFromQuery(location.search);
const isHubModel = (id: string) => id.startsWith('hf:');
if (!state.model || (state.model !== 'local' && !isHubModel(state.model) && !CATALOG.some((c) => c.id === state.model))) state = { ...state, model: DEFAULT_MODEL };

const outputs = new Outputs({
  change: (patch) => setState({ ...state, ...patch }, false),
  error: (m) => showError(m),
  translated: (r, src) => void onTranslated(r, src),
  recompute: (patch) => setState({ ...state, ...patch }, true),
  generationEvent: (kind) => { if (kind === 'done') document.body.dataset.generations = String(Number(document.body.dataset.generations ?? 0) + 1); },
});
byId('outputs').append(outputs.element);

const debug: PlayDebug = {
  state, modelInfo: null, modelLabel: '', encoding: null, attention: [], shown: null, outputs,
  renders: 0, loads: 0, errors: [],
};
window.tfpPlay = debug;

const ablation = new Ablation({ change: (ablate) => setState({ ...state, ablate }, true) });
byId('outputs').append(ablation.changes);
debug.ablation = ablation;

const inspector = new Inspector(byId('view'), {
  change: (patch) => setState({ ...state, ...patch }, false),
  rendered: (shown) => {
    debug.shown = shown;
    debug.renders += 1;
    document.body.dataset.renders = String(debug.renders);
  },
});
inspector.ablation = ablation;

/** Where the echo under the text box stops (null: the whole text): a long paste is not
 *  repeated in full, only what the model read, then "…". */
let echoEnd: number | null = null;
const echoed = (text: string): string => (echoEnd === null || echoEnd >= text.length ? text : `${text.slice(0, echoEnd)} …`);

const strip = new TokenSpans(() => t('play.tokensOfText'), {
  onHover: (i) => {
    const enc = current.encoding;
    markSpan(textEcho, echoed(textBox.value), i === null || !enc ? null : [enc.offsets[2 * i]!, enc.offsets[2 * i + 1]!]);
  },
  // The strip shows the source: where the queries are decoder positions it picks a key.
  onSelect: (i) => setState(stripPicksKeys(state) ? { ...state, key: state.key === i ? null : i }
    : { ...state, token: state.token === i ? null : i }, false),
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
  // "What changed" translates with the beam size: a new beam under an ablation re-runs it.
  const beamEffect = next.beam !== state.beam && next.ablate !== '' && current.model?.info.architecture === 'encoder_decoder';
  state = next;
  debug.state = next;
  if (recompute || beamEffect) schedule();  // first: compute() asks the worker before it awaits
  saveUrl();
  showInspectorControls();
  strip.setSelected(stripPicksKeys(next) ? next.key : next.token);
  if (!(recompute || beamEffect)) inspector.update({ families: current.families }, state);
}

const { save: saveUrl, flush: flushUrl } = throttledUrl(() => `?${withLang(queryOf(state))}`);

/** True where the shown set's queries are decoder positions (an encoder–decoder's 'dec'
 * and 'cross' sets, and the cross view): the token strip, which shows the source, then
 * picks a key, and the query is chosen in the drill-down, the matrix or the lines. */
function stripPicksKeys(s: PlayState): boolean {
  if (current.model?.info.architecture !== 'encoder_decoder') return false;
  return s.view === 'cross' || (inspector.family(s, current.families)?.decoderRows ?? s.set !== 'enc');
}

// The status, error and model lines are kept as functions of the locale: a language
// switch rewrites them from what the page has, without asking the engine again.
let statusText: () => string = () => statusLine.textContent ?? '';
let errorText: Label | null = null;
let loadErrorText: Label | null = null;
let modelInfoText: Label = '';

function showStatus(text: () => string): void {
  statusText = text;
  statusLine.textContent = text();
}

function showError(message: Label | null): void {
  errorText = message;
  errorLine.hidden = message === null;
  errorLine.textContent = message === null ? '' : labelText(message);
  if (message) debug.errors.push(labelText(message));
}

function showLoadError(message: Label): void {
  loadErrorText = message;
  loadError.textContent = labelText(message);
  loadError.hidden = false;
}

// ---- model picker -------------------------------------------------------------------

for (const c of CATALOG) modelSelect.add(new Option(catalogLabel(c), c.id));
const leftOut = byId('left-out');
const localOption = new Option(t('play.ownFiles'), 'local');
localOption.disabled = true;
modelSelect.add(localOption);
// The Hub's entry opens its panel (hub_picker.ts); the model opened from it gets its own option.
const hubEntry = new Option(t('play.hub.option'), 'hf');
modelSelect.add(hubEntry);
const hubOption = new Option('', '');
hubOption.hidden = true;
modelSelect.add(hubOption);

/** The picker's names and the note on models left out, in the page's language. */
function showPickerText(): void {
  CATALOG.forEach((c, i) => { modelSelect.options[i]!.text = catalogLabel(c); });
  localOption.text = t('play.ownFiles');
  hubEntry.text = t('play.hub.option');
  leftOut.hidden = LEFT_OUT.length === 0;
  if (LEFT_OUT.length > 0)
    leftOut.textContent = t('play.notOffered', { list: LEFT_OUT.map((m) => t('play.notOfferedItem', { id: m.id, reason: t(m.reason) })).join('; ') });
}
showPickerText();

// f32 / f16 / int8: the current model opened again in that precision (precision.ts).
const precisionSwitch = new PrecisionSwitch((precision) => {
  setState({ ...state, precision }, false);
  if (reopen && !restoring) void reopen();
});
modelSelect.parentElement!.after(precisionSwitch.element);
applyMarkup(precisionSwitch.element);


let engine: Engine | null = null;
debug.heapBytes = async () => (engine ? (await engine.memory()).heapBytes : 0);
/** The strip's help where it has parameters (a model that reads ids), else null (data-i18n). */
let stripHelpText: (() => string) | null = null;
/** The loaded model's name in the page's language (a fixture's name is translated). */
let currentName: () => string = () => current.label;

/** How to open the current model again after the engine's worker was replaced (its
 * weights may have been transferred to the old worker), and whether that is under way. */
let reopen: (() => Promise<void>) | null = null;
/** The precision the open model was asked for ('' = as stored): what a failed reopen returns to. */
let openedPrecision: PlayState['precision'] = '';
let restoring = false;

/** The first catalog model's load, asked of the engine as soon as the page has read its
 *  files, before the engine's module has answered (the request waits in the worker's queue
 *  and runs the moment the module is up, not a round trip through this page later);
 *  loadCatalog() takes it for those files. */
interface EarlyLoad { files: Fetched; model: Promise<Model>; progress: { to: ((p: LoadProgress) => void) | null } }
let earlyLoad: EarlyLoad | null = null;

async function loadModel(source: Parameters<Engine['load']>[0], name: () => string, id: string,
                         again?: () => Promise<void>, early?: EarlyLoad, asked?: Precision,
                         hubOptions?: (precision: Precision | '') => HubLoadOptions): Promise<void> {
  if (!engine) return;
  const label = name();
  loadError.hidden = true;
  loadErrorText = null;
  narrower.hide();
  progressBox.hidden = false;
  progressBar.removeAttribute('value');
  progressLabel.textContent = t('play.loadingModel', { label });
  // The URL's precision applies to the first model, the switch's to the model it reopens
  // (and after an engine restart); a different model opens as its checkpoint stores it.
  // `asked`: the reader opened their folder in a precision it fits in (open_files.ts).
  const precision = asked ?? (debug.loads === 0 || restoring || id === state.model ? state.precision : '');
  try {
    const onProgress = (p: LoadProgress) => {
      if (p.total > 0) progressBar.value = p.bytes / p.total;
      const kib = (p.bytes / 1024).toFixed(0);
      progressLabel.textContent = p.stage === 'reading'
        ? (p.total ? t('play.readingOf', { label, kib, total: (p.total / 1024).toFixed(0) }) : t('play.reading', { label, kib }))
        : p.stage === 'parsing' ? t('play.parsing', { label }) : t('play.binding', { label });
    };
    if (early) early.progress.to = onProgress;
    const model = await (early ? early.model
      : engine.load(source, { ...(precision ? { precision } : {}), onProgress, ...hubOptions?.(precision) }));
    // A token model without tokenizer.json reads the ids typed in the text box (ids_input.ts);
    // a model that reads vectors splits words (the engine's fallback).
    const idsOnly = readsIds(model.info);
    if (idsOnly) {
      tokenizeAsIds(model);
      if (!isIdsText(state.text, model.info.vocab_size)) {
        state = { ...state, text: defaultIds(model.info.vocab_size), token: null, key: null };
        textBox.value = state.text;
      }
    }
    const old = current.model;
    precisionSwitch.setModel(model.info);
    current.model = model;
    current.label = label;
    currentName = name;
    // The same model opened again after a restart keeps its translation (the decoder's input).
    if (!restoring) current.translation = null;
    reopen = again ?? (() => loadModel(source, name, id));
    if (old) void old.dispose();
    outputs.setModel(model, model.info.family === 'gpt2', state);
    // The attention set and the ablated heads belong to a model: the URL's apply to the
    // first one (a link with set=dec opens on dec, and translating keeps it: onTranslated
    // only fills an empty set); a model picked later starts clean, on its own first set.
    // The same model opened again in another precision keeps them.
    const fresh = debug.loads > 0 && !restoring && id !== state.model;  // loads counts this one below
    // compute() asks the worker for the text's tokens and pass now; the page sets itself up
    // for the model below while the worker runs them (the rest of this function is
    // synchronous, so none of compute()'s replies is handled before it is done).
    openedPrecision = precision;
    setState({ ...state, model: id, precision, ...(fresh ? { set: '', ablate: '' } : {}) }, true);
    debug.modelInfo = model.info;
    debug.modelLabel = label;
    debug.loads += 1;
    document.body.dataset.loads = String(debug.loads);
    localOption.disabled = id !== 'local';
    hubOption.hidden = !isHubModel(id);
    if (isHubModel(id)) hubOption.value = hubOption.text = id;
    modelSelect.value = id;
    const i = model.info;
    modelInfoText = () => modelLine(i, name());
    modelInfoLine.textContent = labelText(modelInfoText);
    // The strip's ids: vocabulary entries, or (the engine's words split) first-appearance
    // numbers of the words, each read as its seeded vector. A locale switch re-reads the key.
    if (idsOnly) {
      delete stripHelp.dataset.i18n;
      stripHelpText = () => t('play.stripHelpIds', { max: i.vocab_size - 1 });
      stripHelp.textContent = stripHelpText();
    } else {
      stripHelpText = null;
      stripHelp.dataset.i18n = i.tokenizer_fallback === 'words' && !i.tokenizer ? 'play.stripHelpWords' : 'play.stripHelp';
      applyMarkup(stripHelp);
    }
    showArchitecture(archBox, i);
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    const still = current.model ? currentName : null;
    // A failure on the Hub road is said beside the Hub's field (hub_picker.ts), once.
    if (isHubModel(id)) hubPicker.failed(e, still);
    else showLoadError(() => t('play.loadFailed', { label: name(), message: msg }) + (still ? t('play.stillUsing', { label: still() }) : ''));
    debug.errors.push(msg);
    if (current.model) {  // the open model stays: so do the picker, the switch and the URL's precision
      modelSelect.value = state.model;
      precisionSwitch.setModel(current.model.info);
      setState({ ...state, precision: openedPrecision }, false);
    }
    document.body.dataset.loadErrors = String(Number(document.body.dataset.loadErrors ?? 0) + 1);
  } finally {
    progressBox.hidden = true;
    if (isHubModel(id)) hubPicker.done();
  }
}

/** Opens "hf:owner/name[@revision]" from the Hub (or this browser's store of it). */
function loadHub(id: string, asked?: Precision): Promise<void> {
  hideMemoryEstimate();  // the Hub panel shows its own, before the weights come
  if (earlyLoad) void earlyLoad.model.then((m) => m.dispose(), () => undefined);  // the catalog's first model: not wanted
  earlyLoad = null;
  hubPicker.show(id);
  return loadModel(id, () => id, id, () => loadHub(id), undefined, asked, (precision) => hubPicker.begin(id, precision));
}

function loadCatalog(id: string, files: Fetched | null = null): Promise<void> {
  hideMemoryEstimate();  // the estimate is of a folder of the reader's own
  const c = CATALOG.find((x) => x.id === id) ?? CATALOG[0];
  if (!c) {
    showLoadError(() => t('play.noModel'));
    return Promise.resolve();
  }
  const base = location.href;
  // Files the page already read go to the worker as they are (the weights transferred).
  const source = files && c.id === id ? { name: c.id, ...files }
    : { name: c.id, config: new URL(c.config, base), weights: new URL(c.weights, base),
        ...(c.tokenizer ? { tokenizer: new URL(c.tokenizer, base) } : {}) };
  // The first model's load, already asked for (earlyLoad), when these are its files.
  const early = earlyLoad && files && earlyLoad.files === files && c.id === id ? earlyLoad : undefined;
  if (earlyLoad && !early) void earlyLoad.model.then((m) => m.dispose(), () => undefined);  // not wanted after all
  earlyLoad = null;
  // Transferred weights are gone after a load: opening it again reads the URLs.
  return loadModel(source, () => catalogLabel(c), c.id, files ? () => loadCatalog(c.id) : undefined, early);
}

/** The engine's worker was replaced (shell/engine_restart.ts): the model it held is gone.
 * Opens it again as it was opened; the text, the view (state), the ablated heads and the
 * translation stay, and the page computes them again. */
async function reloadAfterRestart(): Promise<void> {
  if (!reopen) return;
  const translated = current.translation !== null;
  restoring = true;
  try {
    await reopen();
  } finally {
    restoring = false;
  }
  if (translated) await outputs.translate();  // the same translation, shown again
}

modelSelect.addEventListener('change', () => {
  const v = modelSelect.value;
  if (v === 'hf') {  // the Hub's entry: its panel, the open model stays selected
    modelSelect.value = state.model;
    hubPicker.element.open = true;
    hubPicker.element.querySelector<HTMLInputElement>('#hub-repo')?.focus();
  } else if (isHubModel(v)) void loadHub(v);
  else if (v !== 'local') void loadCatalog(v);
});

const hubPicker = new HubPicker({
  open: (id, precision) => void loadHub(id, precision || undefined),
  hubChanged: (hub) => setState({ ...state, hub }, false),
  limitBytes: () => debug.heapLimitBytes ?? WASM_HEAP_LIMIT,
}, state.hub);
dropzone.after(hubPicker.element);
debug.hub = hubPicker;
fileInput.addEventListener('change', () => {
  if (fileInput.files && fileInput.files.length) void loadFiles(Array.from(fileInput.files));
  fileInput.value = '';
});

// The memory a folder will need, shown before it loads (open_files.ts); a locale switch
// rewrites it.
const memoryLine = document.createElement('p');
memoryLine.className = 'help';
memoryLine.id = 'memory-estimate';
memoryLine.hidden = true;
progressBox.before(memoryLine);
let memoryText: (() => string) | null = null;
function hideMemoryEstimate(): void {
  memoryText = null;
  memoryLine.hidden = true;
}

/** Opens a folder of the reader's own, as stored or with its matrices in `precision`. */
async function loadFiles(files: File[], precision: LoadPrecision = ''): Promise<void> {
  const label = files.map((f) => f.name).join(', ');
  const name = () => t('play.yourFiles', { names: label });
  const limit = debug.heapLimitBytes ?? WASM_HEAP_LIMIT;
  const estimate = await folderEstimate(files, precision, limit);
  memoryText = estimate ? () => estimateText(estimate) : null;
  memoryLine.hidden = !estimate;
  memoryLine.textContent = memoryText ? memoryText() : '';
  narrower.hide();
  if (estimate) {
    debug.memoryEstimate = estimate;
    // A folder that cannot fit is refused before anything is read into the heap: the
    // model already open stays as it is.
    if (refusalText(estimate, name())) {
      showLoadError(() => refusalText(estimate, name()) ?? '');
      if (!precision) narrower.show(await narrowerFits(files, limit), (p) => void loadFiles(files, p));
      document.body.dataset.loadErrors = String(Number(document.body.dataset.loadErrors ?? 0) + 1);
      return;
    }
  }
  return loadModel(files, name, 'local', undefined, undefined, precision || undefined);
}


dropzone.addEventListener('dragover', (e) => { e.preventDefault(); dropzone.classList.add('over'); });
dropzone.addEventListener('dragleave', () => dropzone.classList.remove('over'));
dropzone.addEventListener('drop', (e) => {
  e.preventDefault();
  dropzone.classList.remove('over');
  if (e.dataTransfer) void droppedFiles(e.dataTransfer).then(loadFiles);
});

// ---- text → tokens → forward ----------------------------------------------------------

const sameIds = (a: Int32Array | undefined, b: Int32Array): boolean =>
  a !== undefined && a.length === b.length && a.every((x, i) => x === b[i]);

let running = false;
let queued = false;
/** What the token strip shows (redrawn as is on a language switch). */
let lastStrip: TokenSpanData | null = null;

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
    const max = model.info.max_positions || MAX_VECTOR_TOKENS;  // nn.Transformer has no limit of its own
    const arch = model.info.architecture;
    // A masked LM's fillers come from this pass's logits (no second forward pass).
    const maskId = model.info.head === 'masked_lm' ? model.info.mask_token_id ?? model.info.tokenizer?.special.mask ?? -1 : -1;
    const passOptions = (ids: ArrayLike<number>): ForwardOptions => ({
      attention: true, ...(arch === 'encoder_decoder' ? { tgtIds: decoderInput().ids } : {}),
      ...(maskId >= 0 && Array.from(ids).includes(maskId) ? { fillMask: { topK: 10, maskId } } : {}),
      // Only an encoder's outputs read this pass's logits (labels, fillers); an LM's next-token
      // bars are its last row's candidates, reported by the engine: no (T, V) logits are made.
      ...(arch === 'decoder_only' ? { next: { topN: Outputs.NEXT_TOP_N } } : {}),
      logits: arch === 'encoder_only' ? 'all' : 'none' });
    // The ablated heads (URL) apply to every call below: asked for first, as the worker
    // answers in order.
    const synced = model.info.has_embeddings ? ablation.sync(model, state) : Promise.resolve(0);
    const tokenized = model.tokenize(text);
    // The pass is asked for right behind the tokens, not a round trip after them, when its
    // options do not depend on them (no [MASK] to look for) and the worker tokenizes as this
    // page does; the tokens still come first (the strip is shown while the pass runs).
    const ahead = model.info.has_embeddings && !readsIds(model.info) && maskId < 0
      ? model.forwardText(text, max, passOptions([])) : null;
    ahead?.catch(() => undefined);  // an empty text, a text the tokenizer refuses: reported below
    const enc = await tokenized;
    const truncated = enc.ids.length > max;
    const T = Math.min(enc.ids.length, max);
    const ids = enc.ids.slice(0, T);
    const tokens = enc.tokens.slice(0, T);
    const offsets = enc.offsets.slice(0, 2 * T);
    const byteLevel = model.info.family === 'gpt2' || looksByteLevel(enc.tokens);
    current.encoding = { ids, tokens, offsets, specialMask: enc.specialMask.slice(0, T) };
    debug.encoding = { ids: Array.from(ids), tokens, offsets: Array.from(offsets), truncated };
    lastStrip = { tokens, ids, offsets, special: current.encoding.specialMask, byteLevel };
    strip.update(lastStrip, stripPicksKeys(state) ? state.key : state.token);
    // A text past the context is echoed up to the last character the model read.
    echoEnd = truncated ? Math.max(0, ...Array.from(offsets).filter((_, k) => k % 2 === 1)) : null;
    markSpan(textEcho, echoed(text), null);
    if (T === 0) {
      current.families = [];
      current.forward = null;
      showError(null);
      showStatus(() => t('play.typeText'));
      inspector.update({ families: [] }, state);
      return;
    }
    if (!model.info.has_embeddings) {
      await computeVectors(model, tokens, started, enc.ids.length, truncated, max);
      return;
    }
    await synced;
    // Encoder-decoder: the decoder reads the start token and then the translation so
    // far (teacher forcing), so its rows are labelled with those tokens.
    const early = ahead ? await ahead.catch(() => null) : null;  // if it failed, the pass below says why
    const fwd = early && sameIds(early.ids, ids) ? early : await model.forward(ids, passOptions(ids));
    current.forward = fwd;
    precisionSwitch.noteForward(fwd.workerMs, ids.length);
    debug.attention = fwd.attention.map((a) => ({ name: a.name, dims: a.dims, data: a.data }));
    current.families = families(fwd, tokens.map((t) => visibleToken(t, byteLevel)), byteLevel);
    // The drill-down replays rows of this same pass (same ids, same decoder input).
    const stepOpts = arch === 'encoder_decoder' ? { tgtIds: decoderInput().ids } : {};
    inspector.steps = (pick) => model.attentionSteps(ids, pick, stepOpts);
    outputs.noteByteLevel(byteLevel);
    if (arch === 'decoder_only') outputs.showNext(fwd.next);
    if (arch === 'encoder_only') outputs.showPerToken(model.info, tokens, fwd);
    if (arch === 'encoder_only') await outputs.showFillMask(ids, tokens, fwd.fillMask);
    // The logit lens reads this same input (a decoder's; the encoder-decoder's decoder
    // reads the start mark and the translation so far); "what changed" under ablation.
    const lensInput = arch === 'encoder_decoder' ? decoderInput() : null;
    const lensCols = lensInput ? lensInput.tokens.map((x, i) => (i === 0 ? x : visibleToken(x, byteLevel)))
      : tokens.map((x) => visibleToken(x, byteLevel));
    inspector.lens = arch === 'encoder_only' ? async () => 'play.lens.noDecoder'
      : model.info.recurrent ? async () => 'play.lens.noLayers' : async () => ({
      result: await model.logitLens(ids, { topK: 5, ...(lensInput ? { tgtIds: lensInput.ids } : {}) }), inputs: lensCols, byteLevel });
    inspector.heads = model.info.recurrent ? async () => 'play.hf.noSelf' : (o) => model.headFinders(o);
    inspector.patching = arch !== 'decoder_only' || model.info.head !== 'lm' ? 'play.patch.noDecoder' : {
      model, text: state.text, clean: Int32Array.from(ids), tokens: tokens.map((x) => visibleToken(x, byteLevel)),
      next: fwd.next ?? [], show: (x) => visibleToken(x, byteLevel), attentionRow: (layer, head) => lastQueryRow(current.families, layer, head) };
    await ablation.showEffect(model, ids, state, byteLevel);
    if (queued) return;
    showError(null);
    const workerMs = fwd.workerMs.toFixed(1), totalMs = (performance.now() - started).toFixed(0), total = enc.ids.length;
    showStatus(() => t('common.tokens', { count: T }) + (truncated ? t('play.truncated', { total, max, dropped: total - max }) : '') +
      t('play.forwardTime', { workerMs, totalMs }));
    showInspectorControls();
    inspector.update({ families: current.families }, state);
  } catch (e) {
    // The engine's message stays as it is (English); the frame around it is ours.
    const message = e instanceof Error ? e.message : String(e);
    showError(() => t('common.engineRefused', { message }));
  } finally {
    running = false;
    if (queued) schedule();
  }
}

/** A model that reads vectors (vectors.ts): the text's tokens (and the decoder input's)
 * become the engine's seeded vectors (+ sinusoidal positions); one pass gives every map,
 * and the drill-down replays rows of that same pass. */
async function computeVectors(model: Model, tokens: string[], started: number, total: number, truncated: boolean,
                              max: number): Promise<void> {
  const info = model.info;
  const tgt = hasTarget(info) ? (await model.tokenize(targetText(state))).tokens.slice(0, max) : [];
  const args = vectorArgs(info, state, tokens, tgt.length ? tgt : tokens);
  await ablation.sync(model, state);  // the ablated heads (URL) apply to the pass and the drill-down
  const fwd = await model.forwardEmbeddings(args);
  current.forward = null;
  debug.attention = fwd.attention.map((a) => ({ name: a.name, dims: a.dims, data: a.data }));
  current.families = vectorFamilies(info, state, fwd, tokens, tgt.length ? tgt : tokens, familyLabel);
  inspector.steps = (pick) => model.attentionStepsEmbeddings(args, pick);
  inspector.lens = async () => 'play.lens.noHead';  // vectors in, vectors out: no LM head to read through
  inspector.heads = async () => 'play.hf.noTokens';  // the sequence is token ids; this model reads vectors
  inspector.patching = 'play.patch.noDecoder';  // no LM head to read a metric from
  outputs.vectors?.show(hasTarget(info) ? (tgt.length ? tgt : tokens) : tokens, fwd, hasTarget(info));
  await ablation.showEffect(model, current.encoding?.ids ?? [], state, false);  // no head: a note only
  if (queued) return;
  showError(null);
  const T = tokens.length, workerMs = fwd.workerMs.toFixed(1), totalMs = (performance.now() - started).toFixed(0);
  showStatus(() => t('common.tokens', { count: T }) + (truncated ? t('play.truncated', { total, max, dropped: total - max }) : '') +
    t('play.forwardTime', { workerMs, totalMs }));
  showInspectorControls();
  inspector.update({ families: current.families }, state);
}

/** The decoder's input for an encoder-decoder forward pass: start token + translation. */
function decoderInput(): { ids: number[]; tokens: string[] } {
  const start = decoderStartId(current.model!.info);  // the same start mark as translate
  const r = current.translation?.result;
  return { ids: [start, ...(r ? Array.from(r.ids) : [])], tokens: ['⟨start⟩', ...(r ? r.tokens : [])] };
}

/** The name of a family of attention maps, in the page's language. */
function familyLabel(set: AttnSet): string {
  if (set === 'enc') return t('play.setEncoder');
  if (set === 'cross') return t('play.setCross');
  return current.model?.info.architecture === 'decoder_only' ? t('play.setCausal') : t('play.setDecoder');
}

/** True when the shown translation ended with the model's end token. */
function translationEnded(): boolean {
  const out = current.translation?.result;
  const eos = current.model?.info.eos_token_id ?? -1;
  return !!out && out.ids.length > 0 && out.ids[out.ids.length - 1] === eos;
}

/** Cross-attention rows as alignment is taught (output token ↔ source token): row i is the
 * decoder step that read input i (the start mark, then the translation) and produced the
 * translation's token i, so it is labelled "→ token i", its input in the hint. The row
 * after the end token (the teacher-forced pass reads the whole translation) says so. */
function crossRows(Tq: number, byteLevel: boolean): { rowTokens: string[]; rowHints: string[] } {
  const input = decoderInput();
  const out = current.translation?.result;
  const ended = translationEnded();
  const rowTokens: string[] = [], rowHints: string[] = [];
  for (let i = 0; i < Tq; i++) {
    const inTok = i === 0 ? input.tokens[0]! : i < input.tokens.length ? visibleToken(input.tokens[i]!, byteLevel) : `#${i + 1}`;
    if (out && i < out.tokens.length) {
      rowTokens.push(t('play.cross.produced', { token: visibleToken(out.tokens[i]!, byteLevel) }));
      rowHints.push(t('play.cross.inputHint', { token: inTok }));
    } else if (ended) {
      rowTokens.push(t('play.cross.afterEnd'));
      rowHints.push(t('play.cross.afterEndHint', { token: inTok }));
    } else {
      rowTokens.push(t('play.cross.pending'));
      rowHints.push(t(out ? 'play.cross.inputHint' : 'play.cross.pendingHint', { token: inTok }));
    }
  }
  return { rowTokens, rowHints };
}

/** Groups the forward pass's attention tensors by kind, in layer order. */
function families(fwd: ForwardResult, shown: string[], byteLevel: boolean): AttentionFamily[] {
  const out: AttentionFamily[] = [];
  const info = current.model?.info;
  const mach = info ? machinery(info) : null;
  const tgtTokens = current.model?.info.architecture === 'encoder_decoder'
    ? decoderInput().tokens.map((t, i) => (i === 0 ? t : visibleToken(t, byteLevel))) : [];
  const spec: { set: AttnSet; re: RegExp; label: string }[] = [
    { set: 'enc', re: /^enc\.(\d+)\.attn\.probs$/, label: familyLabel('enc') },
    { set: 'dec', re: /^dec\.(\d+)\.attn\.probs$/, label: familyLabel('dec') },
    { set: 'cross', re: /^dec\.(\d+)\.cross\.probs$/, label: familyLabel('cross') },
  ];
  for (const s of spec) {
    const found = fwd.attention.map((a) => ({ a, m: s.re.exec(a.name) })).filter((x) => x.m)
      .sort((x, y) => Number(x.m![1]) - Number(y.m![1]));
    if (!found.length) continue;
    const [H, Tq, Tk] = found[0]!.a.dims as [number, number, number];
    const rows = s.set === 'enc' ? shown : s.set === 'dec' && current.model?.info.architecture === 'decoder_only' ? shown : tgtTokens.slice(0, Tq);
    const cols = s.set === 'cross' || s.set === 'enc' ? shown : rows;
    const label = (n: number, l: string[]) => (l.length === n ? l : Array.from({ length: n }, (_, i) => l[i] ?? `#${i + 1}`));
    const decoderRows = current.model?.info.architecture === 'encoder_decoder' && s.set !== 'enc';
    // Grouped-query heads (self-attention) and local windows (the decoder's layers, or an
    // encoder-only model's encoder: where the engine applies them).
    const windowed = s.set === 'dec' || (s.set === 'enc' && info?.architecture === 'encoder_only');
    const marks = { ...(mach?.kvHeads && s.set !== 'cross' ? { kvHeads: mach.kvHeads } : {}),
                    ...(mach?.windows && windowed ? { windows: mach.windows } : {}),
                    ...(mach ? { positional: mach.positional } : {}),
                    ...(mach?.attnScale !== undefined ? { attnScale: mach.attnScale } : {}) };
    out.push({ set: s.set, label: s.label, names: found.map((x) => x.a.name), layers: found.map((x) => x.a.data), heads: H,
               rowTokens: label(Tq, rows), colTokens: label(Tk, cols), causal: s.set === 'dec', decoderRows, ...marks,
               // The last row read the end token: the drill-down opens on the one that produced it.
               ...(decoderRows && translationEnded() && Tq >= 2 ? { defaultRow: Tq - 2 } : {}),
               ...(s.set === 'cross' ? crossRows(Tq, byteLevel) : {}) });
  }
  return out;
}

async function onTranslated(r: TranslateResult, src: TokenizeResult): Promise<void> {
  // Without tokenizer.json the output tokens have no spelling: they show as their ids.
  if (current.model && !current.model.info.tokenizer) r = { ...r, tokens: Array.from(r.ids, (id, k) => r.tokens[k] || String(id)) };
  current.translation = { result: r, src };
  // A first translation opens on its cross-attention; a set already chosen (from the URL
  // or the set menu) stays, with its view.
  setState(state.set ? { ...state } : { ...state, set: 'cross', view: state.view === 'model' ? 'cross' : state.view }, true);
}

// ---- inspector controls ----------------------------------------------------------------

const viewTabs = new ViewTabs(tabs, (view) => setState({ ...state, view }, false));

function fill(sel: HTMLSelectElement, n: number, value: number, label: (i: number) => string): void {
  if (sel.options.length !== n) {
    sel.replaceChildren();
    for (let i = 0; i < n; i++) sel.add(new Option(label(i), String(i)));
  }
  sel.value = String(value);
}

function showInspectorControls(): void {
  viewTabs.show(state.view);
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
    saveUrl();
  }
  fill(layerSelect, L, layer, (i) => String(i + 1));
  fill(headSelect, H, head, (i) => String(i + 1));
}

setSelect.addEventListener('change', () => {
  const set = setSelect.value as AttnSet;
  // A query index means a source position in one set and a decoder position in another.
  const same = inspector.family(state, current.families)?.decoderRows === current.families.find((f) => f.set === set)?.decoderRows;
  setState({ ...state, set, token: same ? state.token : null }, false);
});
layerSelect.addEventListener('change', () => setState({ ...state, layer: Number(layerSelect.value) }, false));
headSelect.addEventListener('change', () => setState({ ...state, head: Number(headSelect.value) }, false));

wireExports({ svg: byId('export-svg'), png: byId('export-png'), json: byId('export-json') }, {
  svg: () => inspector.svg(),
  name: () => {
    const f = inspector.family(state, current.families);
    return `${state.model || 'model'}-${state.view}-${f?.set ?? ''}-L${state.layer + 1}H${state.head + 1}`;
  },
  tensor: () => {
    const f = inspector.family(state, current.families);
    if (!f) return null;
    const layer = Math.min(state.layer, f.layers.length - 1);
    return {
      model: current.label, text: state.text, name: f.names[layer], dims: [f.heads, f.rowTokens.length, f.colTokens.length],
      queries: f.rowTokens, keys: f.colTokens, data: Array.from(f.layers[layer]!),
      view: state.view, shown: debug.shown ? Object.fromEntries(Object.entries(debug.shown.panels).map(([k, v]) => [k, { dims: v.dims, data: Array.from(v.data) }])) : null,
    };
  },
  error: (message) => showError(message),
});
byId('copy-link').addEventListener('click', () => {
  flushUrl();
  const url = location.href;
  void navigator.clipboard?.writeText(url).then(() => showStatus(() => t('play.linkCopied')),
    () => showStatus(() => t('play.link', { url })));
});

// ---- text box ----------------------------------------------------------------------------

textBox.value = state.text;
markSpan(textEcho, state.text, null);
let typing = 0;
textBox.addEventListener('input', () => {
  window.clearTimeout(typing);
  typing = window.setTimeout(() => setState({ ...state, text: textBox.value, token: null }, true), 150);
});

onThemeChange(() => inspector.redraw());

// A language switch rewrites the page's text from what it already has: the model, its
// tokens and attention maps stay; only labels, status lines and views are redrawn.
onLocaleChange(() => {
  showPickerText();
  hubPicker.text();
  applyMarkup(precisionSwitch.element);
  precisionSwitch.text();
  statusLine.textContent = statusText();
  if (errorText !== null) errorLine.textContent = labelText(errorText);
  if (loadErrorText !== null) loadError.textContent = labelText(loadErrorText);
  if (memoryText) memoryLine.textContent = memoryText();
  narrower.text();
  if (threadsText) threadsLine.textContent = threadsText();
  if (current.model) modelInfoLine.textContent = labelText(modelInfoText);
  if (stripHelpText) stripHelp.textContent = stripHelpText();
  showArchitecture(archBox, current.model?.info ?? null);
  // A translation's cross rows are labelled in words; a decoder input text's are its tokens.
  current.families = current.families.map((f) => ({ ...f, label: familyLabel(f.set),
    ...(f.set === 'cross' && !f.decoderText ? crossRows(f.rowTokens.length, lastStrip?.byteLevel ?? false) : {}) }));
  if (lastStrip) strip.update(lastStrip, stripPicksKeys(state) ? state.key : state.token);
  showInspectorControls();
  inspector.update({ families: current.families }, state);
});

showInspectorControls();
// Time to the first map: the first model's files are read while the engine's module
// compiles, instead of after (the worker streams weights into its heap, so it can only
// start once the module runs), and its load is asked for as soon as they are here.
const firstModel = firstCatalogModel(location.search);  // the rule entry.ts read early by
const begun = Engine.start();  // first: the worker's script and module are asked for before the model
const starting = begun.ready;
// A model handed over by the training page (train.html opens ?from=train): read from this
// browser's IndexedDB (pages/train/handover.ts), loaded as files the reader opened.
const fromTrain = new URLSearchParams(location.search).get('from') === 'train';
const handedOver = fromTrain ? readHandover().catch(() => null) : Promise.resolve(null);
const prefetched = fromTrain ? Promise.resolve(null) : takeCatalogFiles(firstModel);  // entry.ts began reading it
// The first model is asked for the moment its files are read (earlyLoad; loadModel shows it
// once the engine has answered, as before). The precision is the address's, as loadModel's
// rule gives the first load.
void prefetched.then((files) => {
  const c = CATALOG.find((x) => x.id === firstModel);
  if (!files || !c || debug.loads > 0 || current.model) return;
  const progress: EarlyLoad['progress'] = { to: null };
  const model = begun.engine.load({ name: c.id, ...files }, { ...(state.precision ? { precision: state.precision } : {}),
    onProgress: (p) => progress.to?.(p) });
  model.catch(() => undefined);  // loadModel reports it (or the engine did not start: that is reported)
  earlyLoad = { files, model, progress };
});
starting.then(
  async (e) => {
    engine = e;
    inspector.maths = e;
    watchRestarts(e, { reload: reloadAfterRestart });
    debug.crashEngine = () => e.crash();
    debug.threads = e.info.threads;
    debug.engineInfo = () => e.currentInfo();
    threadsText = () => t('play.threads', { count: e.info.threads });
    threadsLine.textContent = threadsText();
    showStatus(() => t('play.loadingTheModel'));
    const handed = await handedOver;
    // The handed-over weights are transferred to the worker: opening it again reads them again.
    const openHandover = (h: NonNullable<typeof handed>): Promise<void> => loadModel(
      { name: h.name, config: h.config, weights: h.weights, tokenizer: h.tokenizer },
      () => t('train.handoverLabel', { name: h.name }), 'local',
      () => readHandover().then((again) => (again ? openHandover(again) : undefined)));
    if (handed) return openHandover(handed);
    if (fromTrain) showLoadError(() => t('train.handoverMissing'));
    // A link to a Hub model (?model=hf:…): the reader asked for it by opening the link.
    if (isHubModel(state.model)) return loadHub(state.model, state.precision || undefined);
    return loadCatalog(firstModel, await prefetched);
  },
  (e: unknown) => {
    showStatus(() => t('common.engineDidNotStart'));
    showError(String(e instanceof Error ? e.message : e));
  },
);
