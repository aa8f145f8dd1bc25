// Models that read vectors (PyTorch nn.Transformer / TransformerEncoder /
// TransformerDecoder checkpoints, info.has_embeddings false) in the playground. They have
// no vocabulary and no embedding layer, so the page says what it feeds them: the engine
// splits the text into words (its "words" fallback), gives every token the seeded vector
// of its text (same text, same vector) and, unless switched off, adds the sinusoidal
// encoding of its position — nn.Transformer has none of its own. The outputs panel shows
// the length of each output vector (from the engine): there is no head, so nothing is
// "predicted". This file builds those controls and that table; the worker asks the engine
// for the vectors and the pass (engine/embeddings.ts). No maths here.
import type { ForwardEmbeddingsArgs, ForwardEmbeddingsResult, ModelInfo } from 'transformer-playground';
import { bindAttr, bindText, t as tr, type MessageKey } from '../../i18n/i18n';
import { visibleToken } from '../../widgets/token_text';
import type { AttentionFamily } from '../../widgets/attention_families';
import { perTokenTable } from './per_token_table';
import type { AttnSet, PlayState } from './state';

/** The seed of the token vectors (tfp_seeded_token_embeddings); fixed so a link and the
 * tests reproduce the maps. */
export const VECTOR_SEED = 1;
/** These modules have no context limit of their own; the page stops here. */
export const MAX_VECTOR_TOKENS = 512;

/** Which PyTorch module the checkpoint is (from the engine's description). */
export type TorchModule = 'transformer' | 'encoder' | 'decoder';

export function torchModule(info: ModelInfo): TorchModule {
  if (info.architecture === 'encoder_only') return 'encoder';
  return info.n_encoder_layers > 0 ? 'transformer' : 'decoder';
}

export function moduleName(m: TorchModule): string {
  return m === 'transformer' ? 'nn.Transformer' : m === 'encoder' ? 'nn.TransformerEncoder' : 'nn.TransformerDecoder';
}

/** True when the model has a decoder input (tgt): a second text, a causal mask. */
export const hasTarget = (info: ModelInfo): boolean => torchModule(info) !== 'encoder';

/** The decoder's input text: its own box, or the page's text when that box is empty. */
export const targetText = (s: PlayState): string => (s.tgtText.trim() === '' ? s.text : s.tgtText);

/** The request for one pass: src = the text's tokens (a bare decoder's memory), tgt = the
 * decoder input's tokens, each made into vectors by the engine. */
export function vectorArgs(info: ModelInfo, s: PlayState, src: string[], tgt: string[]): ForwardEmbeddingsArgs {
  const input = (tokens: string[]) => ({ kind: 'tokens' as const, tokens, seed: VECTOR_SEED, positions: s.positions });
  return hasTarget(info) ? { src: input(src), tgt: input(tgt), causalTgt: s.causal } : { src: input(src) };
}

/** The pass's maps grouped as the inspector shows them: encoder self-attention (rows and
 * columns: the text's tokens), decoder self-attention (the decoder input's tokens; causal
 * when the mask is on) and cross-attention (decoder input → text), in layer order. */
export function vectorFamilies(info: ModelInfo, s: PlayState, r: ForwardEmbeddingsResult, src: string[], tgt: string[],
                               label: (set: AttnSet) => string): AttentionFamily[] {
  const spec: { set: AttnSet; re: RegExp; rows: string[]; cols: string[] }[] = [
    { set: 'enc', re: /^enc\.(\d+)\.attn\.probs$/, rows: src, cols: src },
    { set: 'dec', re: /^dec\.(\d+)\.attn\.probs$/, rows: tgt, cols: tgt },
    { set: 'cross', re: /^dec\.(\d+)\.cross\.probs$/, rows: tgt, cols: src },
  ];
  const out: AttentionFamily[] = [];
  for (const f of spec) {
    const found = r.attention.map((a) => ({ a, m: f.re.exec(a.name) })).filter((x) => x.m)
      .sort((x, y) => Number(x.m![1]) - Number(y.m![1]));
    if (!found.length) continue;
    const [H, Tq, Tk] = found[0]!.a.dims as [number, number, number];
    const fit = (n: number, l: string[]) => Array.from({ length: n }, (_, i) => visibleToken(l[i] ?? `#${i + 1}`, false));
    out.push({ set: f.set, label: label(f.set), names: found.map((x) => x.a.name), layers: found.map((x) => x.a.data),
               heads: H, rowTokens: fit(Tq, f.rows), colTokens: fit(Tk, f.cols), causal: f.set === 'dec' && s.causal,
               ...(hasTarget(info) && f.set !== 'enc'
                 ? { decoderRows: true, decoderText: torchModule(info) === 'decoder' ? 'memory' as const : 'src' as const } : {}) });
  }
  return out;
}

export interface VectorEvents {
  /** A control changed what goes in: recompute. */
  recompute(patch: Partial<PlayState>): void;
}

function checkbox(id: string, label: MessageKey, checked: boolean, onChange: (on: boolean) => void): HTMLElement {
  const wrap = document.createElement('label');
  wrap.className = 'inline-field';
  wrap.htmlFor = id;
  const box = document.createElement('input');
  box.type = 'checkbox';
  box.id = id;
  box.checked = checked;
  box.addEventListener('change', () => onChange(box.checked));
  const text = document.createElement('span');
  bindText(text, () => tr(label));
  wrap.append(box, ' ', text);
  return wrap;
}

/** The outputs panel's content for such a model: what is fed in, its controls, and the
 * output vectors' lengths per token. */
export class VectorPanel {
  /** What goes in and its controls; the output table: two cells of the outputs grid. */
  readonly element = document.createElement('div');
  readonly outputElement = document.createElement('div');
  private readonly table = document.createElement('div');
  private readonly title = document.createElement('h3');
  /** For tests: the latest table, as shown. */
  rows: { token: string; norm: number }[] = [];

  constructor(info: ModelInfo, s: PlayState, events: VectorEvents) {
    const m = torchModule(info);
    this.element.className = 'vector-inputs';
    const explain = document.createElement('p');
    explain.className = 'help';
    explain.id = 'vector-explain';
    const feed: MessageKey = m === 'transformer' ? 'play.vec.feedTransformer' : m === 'encoder' ? 'play.vec.feedEncoder'
      : 'play.vec.feedDecoder';
    bindText(explain, () => tr('play.vec.explain', { module: moduleName(m), dModel: info.d_model, seed: VECTOR_SEED, feed: tr(feed) }));
    const controls = document.createElement('div');
    controls.className = 'vector-controls';
    controls.append(checkbox('vec-positions', 'play.vec.positions', s.positions, (on) => events.recompute({ positions: on })));
    this.element.append(explain, controls);
    if (hasTarget(info)) {
      controls.append(checkbox('vec-causal', 'play.vec.causal', s.causal, (on) => events.recompute({ causal: on })));
      const field = document.createElement('div');
      field.className = 'field';
      const label = document.createElement('label');
      label.htmlFor = 'vec-tgt';
      bindText(label, () => tr(m === 'decoder' ? 'play.vec.tgtDecoder' : 'play.vec.tgt'));
      const box = document.createElement('textarea');
      box.id = 'vec-tgt';
      box.rows = 2;
      box.spellcheck = false;
      box.value = s.tgtText;
      bindAttr(box, 'placeholder', () => tr('play.vec.tgtSame'));
      let typing = 0;
      box.addEventListener('input', () => {
        window.clearTimeout(typing);
        typing = window.setTimeout(() => events.recompute({ tgtText: box.value, token: null }), 150);
      });
      field.append(label, box);
      this.element.append(field);
    }
    this.outputElement.className = 'vector-outputs';
    this.outputElement.append(this.title, this.table);
  }

  /** The output vectors' lengths (the engine's hidden_norm), one row per output token. */
  show(tokens: string[], r: ForwardEmbeddingsResult, decoder: boolean): void {
    const norms = r.hiddenNorm.data;
    this.rows = Array.from(norms, (norm, i) => ({ token: tokens[i] ?? `#${i + 1}`, norm }));
    bindText(this.title, () => tr('play.vec.caption', { output: tr(decoder ? 'play.vec.outDecoder' : 'play.vec.outEncoder'), dModel: r.hidden.dims[1]! }));
    this.table.replaceChildren(perTokenTable(this.rows.map((x) => ({ token: x.token, value: x.norm.toFixed(3) })), 'play.vec.colNorm', false));
  }
}
