// The playground's state: one object, mirrored in the URL's query string so that a
// link reproduces the view (model, text, attention set, layer, head, view, ...).
// Parsing clamps every field; layer/head are clamped again once the model is known.
import { canonicalAblation } from './ablation_text';
import { SETS, type AttnSet } from '../../widgets/attention_families';
import { PATCH_SWEEPS, type PatchSweep } from 'transformer-playground';

export const VIEWS = ['model', 'matrix', 'lines', 'qk', 'cross', 'stats', 'heads', 'rollout', 'compare', 'analyse', 'pca'] as const;
export type View = (typeof VIEWS)[number];
export { SETS, type AttnSet } from '../../widgets/attention_families';

/** What the Analyse view shows (analyse.ts): the logit lens (logit_lens.ts), or what the
 * patching view draws (patching.ts): a patching sweep, the direct logit attribution, a
 * head ablation table, or the gradient attribution (gradients.ts). */
export type PatchViewKind = PatchSweep | 'dla' | 'ablate_zero' | 'ablate_mean' | 'gradients';
export type AnalyseKind = 'lens' | PatchViewKind;
export const ANALYSE_KINDS: readonly AnalyseKind[] = ['lens', ...PATCH_SWEEPS, 'dla', 'ablate_zero', 'ablate_mean', 'gradients'];

/** Views of earlier links: the logit lens and the patching view are now the Analyse view. */
const OLD_VIEWS: Record<string, Partial<PlayState>> = { lens: { view: 'analyse', patchSweep: 'lens' }, patch: { view: 'analyse' } };

/** The precisions the playground can hold a model's matrices in (precision.ts). */
export const PRECISIONS = ['f32', 'f16', 'int8'] as const;
export type Precision = (typeof PRECISIONS)[number];

export interface PlayState {
  model: string;       // catalog id, "local" for files the user opened, or "hf:owner/name[@revision]"
  hub: string;         // the Hub's address for hf: models; '' = https://huggingface.co
  precision: Precision | '';  // the matrices held as; '' = as the checkpoint stores them
  text: string;
  set: AttnSet | '';   // '' = the model's first set
  layer: number;       // 0-based
  head: number;        // 0-based
  view: View;
  token: number | null;// selected query token: a row of the shown set (a decoder position in 'dec'/'cross')
  key: number | null;  // a source token picked in the token strip while the set's queries are decoder positions
  layer2: number;      // the compare view's second head
  head2: number;
  // generation and translation
  temperature: number;
  topK: number;
  topP: number;
  maxTokens: number;
  seed: number;
  beam: number;
  // models that read vectors (PyTorch nn.Transformer checkpoints, vectors.ts)
  tgtText: string;     // the decoder's input text; '' = the same as `text`
  positions: boolean;  // add the sinusoidal encoding to each token's vector
  causal: boolean;     // causal mask on the decoder's self-attention
  /** Ablated / scaled heads, canonical text of ablation.ts ("dec.1.2=0,enc.2.1=0.5",
   *  1-based layer and head); '' = every head as trained. */
  ablate: string;
  // the head finders view (head_finders.ts): the random tokens' seed, R (0 = the model's default)
  hfSeed: number;
  hfRepeat: number;
  hfExclude: number;   // TransformerLens detect_head flags: 1 exclude_bos, 2 exclude_current_token
  // the activation-patching view (patching.ts)
  patchText: string;   // the corrupted prompt; '' = the text itself
  patchSweep: AnalyseKind;  // the Analyse view's kind: the logit lens, a patching sweep, DLA, ...
  patchMetric: 'diff' | 'logprob';
  patchRaw: boolean;   // the raw metric instead of the normalised one
  patchAnswer: number; // token ids; -1 = the clean run's first candidate
  patchFoil: number;   // -1 = the corrupted run's first candidate other than the answer
  patchSteps: number;  // integrated gradients' midpoints
}

export const DEFAULT_TEXT = 'The cat sat on the mat.';

export const DEFAULT_STATE: PlayState = {
  model: '', hub: '', precision: '', text: DEFAULT_TEXT, set: '', layer: 0, head: 0, view: 'model', token: null, key: null,
  layer2: 0, head2: 1, temperature: 0.8, topK: 40, topP: 0.95, maxTokens: 24, seed: 1, beam: 4,
  tgtText: '', positions: true, causal: true, ablate: '', hfSeed: 0, hfRepeat: 0, hfExclude: 0,
  patchText: '', patchSweep: 'resid', patchMetric: 'diff', patchRaw: false, patchAnswer: -1, patchFoil: -1, patchSteps: 64,
};

function int(s: string | null, lo: number, hi: number, fallback: number): number {
  if (s === null || !/^-?\d+$/.test(s)) return fallback;
  const v = Number(s);
  return v >= lo && v <= hi ? v : fallback;
}

function num(s: string | null, lo: number, hi: number, fallback: number): number {
  if (s === null || s === '') return fallback;
  const v = Number(s);
  return Number.isFinite(v) && v >= lo && v <= hi ? v : fallback;
}

export function stateFromQuery(query: string): PlayState {
  const p = new URLSearchParams(query);
  const d = DEFAULT_STATE;
  const view = p.get('view') as View | null;
  const set = p.get('set') as AttnSet | null;
  const token = p.get('token');
  const key = p.get('key');
  const precision = p.get('precision') as Precision | null;
  const s: PlayState = {
    model: p.get('model') ?? d.model,
    hub: p.get('hub') ?? d.hub,
    precision: precision && PRECISIONS.includes(precision) ? precision : '',
    text: p.get('text') ?? d.text,
    set: set && SETS.includes(set) ? set : '',
    layer: int(p.get('layer'), 1, 1000, 1) - 1,
    head: int(p.get('head'), 1, 1000, 1) - 1,
    view: view && VIEWS.includes(view) ? view : d.view,
    token: token === null ? null : int(token, 1, 100000, 0) > 0 ? int(token, 1, 100000, 0) - 1 : null,
    key: key === null ? null : int(key, 1, 100000, 0) > 0 ? int(key, 1, 100000, 0) - 1 : null,
    layer2: int(p.get('layer2'), 1, 1000, d.layer2 + 1) - 1,
    head2: int(p.get('head2'), 1, 1000, d.head2 + 1) - 1,
    temperature: num(p.get('temp'), 0, 5, d.temperature),
    topK: int(p.get('topk'), 0, 100000, d.topK),
    topP: num(p.get('topp'), 0, 1, d.topP),
    maxTokens: int(p.get('max'), 1, 512, d.maxTokens),
    seed: int(p.get('seed'), 0, 4294967295, d.seed),
    beam: int(p.get('beam'), 1, 16, d.beam),
    tgtText: p.get('tgt') ?? d.tgtText,
    positions: p.get('pos') !== '0',
    causal: p.get('causal') !== '0',
    ablate: canonicalAblation(p.get('ablate') ?? ''),
    hfSeed: int(p.get('hfseed'), 0, 4294967295, d.hfSeed),
    hfRepeat: int(p.get('hfr'), 0, 100000, d.hfRepeat),
    hfExclude: int(p.get('hfx'), 0, 3, d.hfExclude),
    patchText: p.get('pt') ?? d.patchText,
    patchSweep: ANALYSE_KINDS.find((x) => x === p.get('ps')) ?? d.patchSweep,
    patchMetric: p.get('pm') === 'logprob' ? 'logprob' : d.patchMetric,
    patchRaw: p.get('praw') === '1',
    patchAnswer: int(p.get('pa'), 0, 1 << 30, d.patchAnswer),
    patchFoil: int(p.get('pf'), 0, 1 << 30, d.patchFoil),
    patchSteps: int(p.get('pn'), 1, 1024, d.patchSteps),
  };
  return view !== null && Object.hasOwn(OLD_VIEWS, view) ? { ...s, ...OLD_VIEWS[view] } : s;
}

/** Layer, head and token numbers are 1-based in the URL, as the page shows them. */
export function queryOf(s: PlayState): string {
  const p = new URLSearchParams();
  if (s.model) p.set('model', s.model);
  if (s.hub) p.set('hub', s.hub);
  if (s.precision) p.set('precision', s.precision);
  p.set('text', s.text);
  if (s.set) p.set('set', s.set);
  p.set('view', s.view);
  p.set('layer', String(s.layer + 1));
  p.set('head', String(s.head + 1));
  if (s.token !== null) p.set('token', String(s.token + 1));
  if (s.key !== null) p.set('key', String(s.key + 1));
  if (s.view === 'compare') {
    p.set('layer2', String(s.layer2 + 1));
    p.set('head2', String(s.head2 + 1));
  }
  const d = DEFAULT_STATE;
  if (s.temperature !== d.temperature) p.set('temp', String(s.temperature));
  if (s.topK !== d.topK) p.set('topk', String(s.topK));
  if (s.topP !== d.topP) p.set('topp', String(s.topP));
  if (s.maxTokens !== d.maxTokens) p.set('max', String(s.maxTokens));
  if (s.seed !== d.seed) p.set('seed', String(s.seed));
  if (s.beam !== d.beam) p.set('beam', String(s.beam));
  if (s.ablate) p.set('ablate', s.ablate);
  if (s.tgtText !== d.tgtText) p.set('tgt', s.tgtText);
  if (!s.positions) p.set('pos', '0');
  if (!s.causal) p.set('causal', '0');
  if (s.hfSeed !== d.hfSeed) p.set('hfseed', String(s.hfSeed));
  if (s.hfRepeat !== d.hfRepeat) p.set('hfr', String(s.hfRepeat));
  if (s.hfExclude !== d.hfExclude) p.set('hfx', String(s.hfExclude));
  if (s.patchText !== d.patchText) p.set('pt', s.patchText);
  if (s.patchSweep !== d.patchSweep) p.set('ps', s.patchSweep);
  if (s.patchMetric !== d.patchMetric) p.set('pm', s.patchMetric);
  if (s.patchRaw) p.set('praw', '1');
  if (s.patchAnswer >= 0) p.set('pa', String(s.patchAnswer));
  if (s.patchFoil >= 0) p.set('pf', String(s.patchFoil));
  if (s.patchSteps !== d.patchSteps) p.set('pn', String(s.patchSteps));
  return p.toString();
}
