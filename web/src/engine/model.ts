// A loaded model, as the page holds it: a handle into the worker plus the engine's
// description of it. Every method is a request to the worker; nothing is computed here.
//
//   const model = await engine.load('/models/brown-lm/', { onProgress });
//   const enc = await model.tokenize('The cat');            // ids, tokens, UTF-16 offsets
//   const out = await model.forward(enc.ids, { attention: true });
//   for await (const t of model.generate('The cat', { maxTokens: 20, seed: 1 })) show(t.text);
//   model.dispose();
import type {
  FillMaskResult, ForwardArgs, ForwardResult, GeneratedToken, LoadProgress, ModelInfo, Reply, Request, TokenizeResult, TranslateResult,
} from './messages';
import type { AttentionStepsArgs, AttentionStepsResult } from './messages';
import type { GradientAttributionArgs, GradientAttributionResult, HeadAblationResult, HeadMaskEffect, HeadMaskEntry, LogitAttributionResult, LogitLensArgs, LogitLensResult } from './messages';
import type { AttentionStepsEmbeddingsArgs, ForwardEmbeddingsArgs, ForwardEmbeddingsResult } from './messages';
import type { FloatTensor, HeadFinderLayer, HeadFindersResult, HeadScoresOptions, HeadStatsOptions } from './messages';
import type { HubSource } from './hub_load';
import { repeatedSequence } from './head_finders.mjs';
import { activationPatching, type ActivationPatchingOptions, type ActivationPatchingResult } from './activation_patching';
import { gradientAttributionInSteps, type GradientRunOptions } from './integrated_gradients';

/** What a Model needs from the Engine: one request/reply channel to the worker. */
export interface Channel {
  request(body: RequestBody, transfer?: Transferable[], onProgress?: (p: LoadProgress) => void): Promise<Reply>;
}
export type RequestBody = Request extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

export interface ForwardOptions {
  /** Return every layer's attention probabilities. */
  attention?: boolean;
  tokenTypeIds?: ArrayLike<number>;
  /** Hugging Face convention: 1 = real token, 0 = padding. */
  attentionMask?: ArrayLike<number>;
  /** Encoder-decoder models: the decoder input ids (teacher forcing). */
  tgtIds?: ArrayLike<number>;
  /** Masked-LM models: also return the top fillers of every mask (result.fillMask),
   *  computed from this pass's logits in the engine (no second pass). */
  fillMask?: { topK: number; maskId: number };
  /** Which rows get logits: every row (default), the last one (what the next token needs), or
   *  none (hidden states and attention only: a (T, V) copy of GPT-2 at T = 512 is 98 MiB). */
  logits?: 'all' | 'last' | 'none';
  /** Language models: also the next token's `topN` most probable candidates (result.next),
   *  from this pass's last row in the engine, as `generate()`'s first step reports them
   *  (no second pass; the row is computed even with logits 'none'). */
  next?: { topN: number };
}

export interface GenerateOptions {
  maxTokens?: number;    // default 20
  temperature?: number;  // default 1; 0 = greedy
  topK?: number;         // default 0 = all tokens
  topP?: number;         // default 1 = all tokens
  seed?: number;         // default 0; as `tfp generate --seed` (0 .. 2^32-1)
  /** Stop after any of these ids; default: the model's eos. */
  stop?: number[];
  /** How many most probable tokens to report per step; default 5. */
  topN?: number;
  /** Aborting stops the generation between two tokens. */
  signal?: AbortSignal;
}

export interface TranslateOptions {
  beamSize?: number;  // default 1 = greedy
  maxTokens?: number; // default 0 = as many as the context allows
  startId?: number;   // default: config.json's decoder_start_token_id, else the tokenizer's bos, else eos
  eosId?: number;     // default: the model's eos
}

export interface FillMaskOptions {
  topK?: number;      // default 10
  maskId?: number;    // default: the tokenizer's [MASK]
  tokenTypeIds?: ArrayLike<number>;
  attentionMask?: ArrayLike<number>;
}

/** The id an encoder–decoder's decoder starts from, as translate's default (the engine's
 *  rule): config.json's decoder_start_token_id, else the tokenizer's bos, else eos. */
export function decoderStartId(info: ModelInfo): number {
  const bos = info.tokenizer?.special.bos ?? -1;
  return info.decoder_start_token_id >= 0 ? info.decoder_start_token_id : bos >= 0 ? bos : info.eos_token_id;
}

function ints(x: ArrayLike<number> | undefined): Int32Array | undefined {
  return x === undefined ? undefined : Int32Array.from(x);
}

function forwardArgs(ids: Int32Array, options: ForwardOptions): ForwardArgs {
  return {
    ids, attention: options.attention ?? false, tokenTypeIds: ints(options.tokenTypeIds),
    attentionMask: ints(options.attentionMask), tgtIds: ints(options.tgtIds),
    ...(options.fillMask ? { fillMask: { ...options.fillMask } } : {}),
    ...(options.logits && options.logits !== 'all' ? { logitsLast: options.logits === 'last' ? 1 : -1 } : {}),
    ...(options.next ? { next: { topN: options.next.topN } } : {}),
  };
}

export interface HeadFindersOptions {
  /** Seed of the random tokens (0 .. 2^32 − 1); default 0. */
  seed?: number;
  /** R, how many random tokens are repeated; default min(24, (max_positions − 1) / 2). */
  repeat?: number;
  /** The first token (TransformerLens's BOS); default the tokenizer's bos, else its
   *  [CLS] (BERT), else the model's eos, else 0. */
  prefixId?: number;
  /** TransformerLens detect_head's flags; default false. */
  excludeBos?: boolean;
  excludeCurrent?: boolean;
}

export class Model {
  private disposed = false;
  /** Where a model opened by its Hub name came from (engine/hub_load.ts); null otherwise. */
  hub: HubSource | null = null;

  constructor(private readonly channel: Channel, private readonly handle: number, readonly info: ModelInfo) {}

  /** ids, tokens (the vocabulary's spelling) and [begin, end) UTF-16 offsets. */
  async tokenize(text: string, options: { addSpecialTokens?: boolean } = {}): Promise<TokenizeResult> {
    const r = await this.request({ kind: 'tokenize', model: this.handle, text, addSpecialTokens: options.addSpecialTokens ?? true });
    if (r.ok && r.kind === 'tokenize') return r.result;
    throw unexpected('tokenize');
  }

  async decode(ids: ArrayLike<number>, options: { skipSpecialTokens?: boolean } = {}): Promise<string> {
    const r = await this.request({ kind: 'decode', model: this.handle, ids: Int32Array.from(ids), skipSpecialTokens: options.skipSpecialTokens ?? true });
    if (r.ok && r.kind === 'decode') return r.result;
    throw unexpected('decode');
  }

  /** One forward pass: logits (T, V) and/or hidden (T, C), attention per layer on request. */
  async forward(ids: ArrayLike<number>, options: ForwardOptions = {}): Promise<ForwardResult> {
    return this.forwardArgs(forwardArgs(Int32Array.from(ids), options));
  }

  private async forwardArgs(args: ForwardArgs): Promise<ForwardResult> {
    const r = await this.request({ kind: 'forward', model: this.handle, args });
    if (r.ok && r.kind === 'forward') return r.result;
    throw unexpected('forward');
  }

  /** forward() on a text the worker tokenizes itself (as tokenize() does), cut to its first
   *  `maxTokens` tokens (result.ids): the pass is asked for at once, not a round trip after
   *  the tokens, e.g. beside a tokenize() of the same text for the page's own use. */
  async forwardText(text: string, maxTokens: number, options: ForwardOptions = {}): Promise<ForwardResult> {
    return this.forwardArgs({ ...forwardArgs(new Int32Array(0), options), fromText: { text, maxTokens } });
  }

  /**
   * Generates token by token. Each `next()` asks the worker for one more token, so
   * leaving the loop (`break`, `return()`) or aborting `signal` stops the generation
   * before the next token is computed.
   */
  generate(prompt: string | ArrayLike<number>, options: GenerateOptions = {}): Generation {
    return new Generation(this, prompt, options);
  }

  /** Encoder-decoder models: greedy or beam-search decoding with its cross-attention. */
  async translate(source: string | ArrayLike<number>, options: TranslateOptions = {}): Promise<TranslateResult> {
    const ids = typeof source === 'string' ? (await this.tokenize(source)).ids : Int32Array.from(source);
    const args = { ids, beamSize: options.beamSize ?? 1, maxTokens: options.maxTokens ?? 0,
                   startId: options.startId ?? -1, eosId: options.eosId ?? -1 };
    const r = await this.request({ kind: 'translate', model: this.handle, args });
    if (r.ok && r.kind === 'translate') return r.result;
    throw unexpected('translate');
  }

  /** Masked-LM models (info.head === 'masked_lm'): the top fillers of every [MASK] in ids
   * with their probabilities, computed by the engine. No mask in ids: an empty list. */
  async fillMask(ids: ArrayLike<number>, options: FillMaskOptions = {}): Promise<FillMaskResult> {
    const args = {
      ids: Int32Array.from(ids), topK: options.topK ?? 10, tokenTypeIds: ints(options.tokenTypeIds),
      attentionMask: ints(options.attentionMask), ...(options.maskId !== undefined ? { maskId: options.maskId } : {}),
    };
    const r = await this.request({ kind: 'fill-mask', model: this.handle, args });
    if (r.ok && r.kind === 'fill-mask') return r.result;
    throw unexpected('fillMask');
  }

  /**
   * The query–key drill-down of one attention row, computed by the engine from the q, k,
   * v and mask of a forward pass on `ids` (and `tgtIds` for encoder–decoders): q, every
   * k and v, q·k, ÷√d_k, bias/mask, softmax (= the forward pass's attention row), the
   * weighted values and their sum. `set`: 'enc' | 'dec' | 'cross'; indices 0-based.
   */
  async attentionSteps(ids: ArrayLike<number>, pick: Pick<AttentionStepsArgs, 'set' | 'layer' | 'head' | 'query'>,
                       options: Omit<ForwardOptions, 'attention'> = {}): Promise<AttentionStepsResult> {
    const args: AttentionStepsArgs = {
      ids: Int32Array.from(ids), set: pick.set, layer: pick.layer, head: pick.head, query: pick.query,
      tokenTypeIds: ints(options.tokenTypeIds), attentionMask: ints(options.attentionMask), tgtIds: ints(options.tgtIds),
    };
    const r = await this.request({ kind: 'attention-steps', model: this.handle, args });
    if (r.ok && r.kind === 'attention-steps') return r.result;
    throw unexpected('attentionSteps');
  }

  /**
   * Models that read vectors (info.has_embeddings false: PyTorch nn.Transformer,
   * TransformerEncoder, TransformerDecoder checkpoints): one forward pass on src (and tgt,
   * the decoder's input; a bare decoder's src is its memory), each given as rows or as
   * tokens that the engine turns into seeded vectors (+ sinusoidal positions). Every
   * attention map comes back, with the output, its rows' lengths and the inputs used.
   */
  async forwardEmbeddings(args: ForwardEmbeddingsArgs): Promise<ForwardEmbeddingsResult> {
    const r = await this.request({ kind: 'forward-embeddings', model: this.handle, args });
    if (r.ok && r.kind === 'forward-embeddings') return r.result;
    throw unexpected('forwardEmbeddings');
  }

  /** The drill-down of one row of a model that reads vectors (same inputs as forwardEmbeddings). */
  async attentionStepsEmbeddings(args: ForwardEmbeddingsArgs,
                                 pick: Pick<AttentionStepsEmbeddingsArgs, 'set' | 'layer' | 'head' | 'query'>): Promise<AttentionStepsResult> {
    const full: AttentionStepsEmbeddingsArgs = { ...args, set: pick.set, layer: pick.layer, head: pick.head, query: pick.query };
    const r = await this.request({ kind: 'attention-steps-embeddings', model: this.handle, args: full });
    if (r.ok && r.kind === 'attention-steps-embeddings') return r.result;
    throw unexpected('attentionStepsEmbeddings');
  }

  /**
   * Head ablation / scaling: replaces the model's head mask (none = as loaded). Every later
   * call on this model (forward, generate, translate, drill-down, logit lens) runs under
   * it; a generator keeps the mask it started with.
   */
  async setHeadMask(entries: HeadMaskEntry[]): Promise<void> {
    const r = await this.request({ kind: 'head-mask', model: this.handle, entries });
    if (r.ok && r.kind === 'head-mask') return;
    throw unexpected('setHeadMask');
  }

  /** What the head mask changes on `ids`: the model run without it and with it. An
   *  encoder-decoder translates with `beamSize` (1 = greedy), as translate() does. */
  async headMaskEffect(ids: ArrayLike<number>, topK = 8, beamSize = 1): Promise<HeadMaskEffect> {
    const r = await this.request({ kind: 'head-mask-effect', model: this.handle, ids: Int32Array.from(ids), topK, beamSize });
    if (r.ok && r.kind === 'head-mask-effect') return r.result;
    throw unexpected('headMaskEffect');
  }

  /** The logit lens: top `topK` next tokens read from every layer's residual stream. */
  async logitLens(ids: ArrayLike<number>, options: { tgtIds?: ArrayLike<number>; topK?: number } = {}): Promise<LogitLensResult> {
    const args: LogitLensArgs = { ids: Int32Array.from(ids), topK: options.topK ?? 5, ...(options.tgtIds ? { tgtIds: Int32Array.from(options.tgtIds) } : {}) };
    const r = await this.request({ kind: 'logit-lens', model: this.handle, args });
    if (r.ok && r.kind === 'logit-lens') return r.result;
    throw unexpected('logitLens');
  }

  /**
   * Activation patching (TransformerLens's conventions): the corrupted prompt run with one
   * activation at a time replaced by its value in the clean run (the same length), the
   * metric logit(answer) − logit(foil) and log p(answer) at the last position, raw and
   * normalised. Decoder-only models with an LM head; runs under the head mask. Progress
   * after each layer of each sweep; `signal` stops it between two.
   */
  activationPatching(clean: ArrayLike<number>, corrupted: ArrayLike<number>,
                     options: ActivationPatchingOptions): Promise<ActivationPatchingResult> {
    return activationPatching((body) => this.request(body), this.handle, this.info, clean, corrupted, options);
  }

  /**
   * Direct logit attribution (TransformerLens's conventions): logit(answer) − logit(foil)
   * at the last position of `ids` split into the embeddings, each head's output, each
   * attention bias and each MLP, through the final norm with this run's scale frozen; the
   * terms plus normBias add up to the metric (the residual says how closely). Pre-norm
   * decoder-only models with an LM head (not Gemma 2/3's sandwich norms); under the head mask.
   */
  async logitAttribution(ids: ArrayLike<number>, options: { answer: number; foil: number }): Promise<LogitAttributionResult> {
    const r = await this.request({ kind: 'logit-attribution', model: this.handle, args: { ids: Int32Array.from(ids), answer: options.answer, foil: options.foil } });
    if (r.ok && r.kind === 'logit-attribution') return r.result;
    throw unexpected('logitAttribution');
  }

  /**
   * Gradient attribution on the token embeddings (Captum's conventions: the token table's
   * rows, positions kept): per position, gradient × input summed over the width, the
   * gradient's L2 norm, and integrated gradients from the zero baseline over `steps`
   * midpoints (default 64; 0 skips them) with the completeness gap. Metric at `position`
   * (default the last): a decoder-only model's next-token logits, or BERT's masked-LM
   * logits there. Our own backward through every decoder-only family; under the head mask.
   * Progress after each few steps of integrated gradients; `signal` stops it between two.
   */
  gradientAttribution(ids: ArrayLike<number>, options: Omit<GradientAttributionArgs, 'ids' | 'steps'> & { steps?: number } & GradientRunOptions):
    Promise<GradientAttributionResult> {
    const args: GradientAttributionArgs = { ids: Int32Array.from(ids), answer: options.answer, foil: options.foil, metric: options.metric,
                                            steps: options.steps ?? 64, ...(options.position !== undefined ? { position: options.position } : {}) };
    return gradientAttributionInSteps((body) => this.request(body), this.handle, args, options);
  }

  /** Zero or mean ablation of each head's output (TransformerLens's hook_z over every
   *  position replaced by 0, or by its mean over the prompt), one head at a time: the metric
   *  logit(answer) − logit(foil) and log p(answer) at the last position, as an (L, H) table
   *  beside the unablated metric. Decoder-only models with an LM head; under the head mask. */
  async headAblation(ids: ArrayLike<number>, options: { answer: number; foil: number; mode?: 'zero' | 'mean' }): Promise<HeadAblationResult> {
    const args = { ids: Int32Array.from(ids), answer: options.answer, foil: options.foil, mode: options.mode ?? 'zero' };
    const r = await this.request({ kind: 'head-ablation', model: this.handle, args });
    if (r.ok && r.kind === 'head-ablation') return r.result;
    throw unexpected('headAblation');
  }

  /** The head finders (issue 33), TransformerLens's conventions: one forward pass on
   *  [prefix, R random tokens, the same R again] (head_finders.mjs repeatedSequence), then
   *  per self-attention layer its maps, the engine's head scores (Engine.headScores) and
   *  head statistics (Engine.headStats). */
  async headFinders(options: HeadFindersOptions = {}): Promise<HeadFindersResult> {
    const info = this.info;
    if (info.self_attention === false) throw new Error(`headFinders: '${info.source}' has no self-attention maps`);
    const vocabSize = info.vocab_size;
    const sp = info.tokenizer?.special;
    const first = [sp?.bos ?? -1, sp?.cls ?? -1, info.eos_token_id].find((id) => id >= 0 && id < info.vocab_size);
    const prefixId = options.prefixId ?? first ?? 0;
    const repeat = options.repeat ?? Math.max(1, Math.min(24, Math.floor((info.max_positions - 1) / 2)));
    const seed = options.seed ?? 0;
    if (1 + 2 * repeat > info.max_positions)
      throw new RangeError(`headFinders: 1 + 2 × ${repeat} tokens do not fit the model's ${info.max_positions} positions`);
    const ids = repeatedSequence({ seed, repeat, prefixId, vocabSize });
    // An encoder–decoder's decoder reads the same sequence (teacher forcing).
    const both = info.architecture === 'encoder_decoder';
    const out = await this.forward(ids, { attention: true, logits: 'none', ...(both ? { tgtIds: ids } : {}) });
    const self = out.attention.filter((a) => /^(enc|dec)\.\d+\.attn\.probs$/.test(a.name));
    const layers: HeadFinderLayer[] = [];
    for (const a of self) {
      const set = a.name.startsWith('enc') ? 'enc' : 'dec';
      const probs = { data: a.data, dims: a.dims };
      const [scores] = await this.scores('head-scores', [probs], { tokens: ids, repeat, excludeBos: options.excludeBos ?? false, excludeCurrent: options.excludeCurrent ?? false });
      const [stats] = await this.scores('head-stats', [probs], { causal: set === 'dec' });
      layers.push({ name: a.name, set, layer: Number(a.name.split('.')[1]), probs, scores: scores!, stats: stats! });
    }
    return { ids, seed, repeat, prefixId, layers };
  }

  private async scores(kind: 'head-scores' | 'head-stats', maps: FloatTensor[], options: HeadScoresOptions | HeadStatsOptions): Promise<FloatTensor[]> {
    const r = await this.request(kind === 'head-scores'
      ? { kind, maps, options: options as HeadScoresOptions } : { kind, maps, options: options as HeadStatsOptions });
    if (r.ok && r.kind === kind) return r.result;
    throw unexpected(kind);
  }

  /** Frees the model in the worker. Later calls reject. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await this.channel.request({ kind: 'dispose', model: this.handle });
  }

  get isDisposed(): boolean {
    return this.disposed;
  }

  /** @internal */
  request(body: RequestBody): Promise<Reply> {
    if (this.disposed)
      return Promise.reject(new Error(`model '${this.info.source}' was disposed: load it again to use it`));
    return this.channel.request(body);
  }

  /** @internal */
  get id(): number {
    return this.handle;
  }
}

/** An async iterator over generated tokens; `stopReason` is set once it has ended. */
export class Generation implements AsyncIterableIterator<GeneratedToken> {
  stopReason: GeneratedToken['stopReason'] | 'cancelled' | undefined;
  private generator: Promise<number> | null = null;
  private finished = false;
  private stopping: Promise<void> | null = null;

  constructor(private readonly model: Model, private readonly prompt: string | ArrayLike<number>,
              private readonly options: GenerateOptions) {
    options.signal?.addEventListener('abort', () => void this.return(), { once: true });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  async next(): Promise<IteratorResult<GeneratedToken>> {
    if (this.finished) {
      await this.stopping;  // an abort's cleanup is sent before the loop sees the end
      return { done: true, value: undefined };
    }
    if (this.options.signal?.aborted) {
      await this.return();
      return { done: true, value: undefined };
    }
    const generator = await (this.generator ??= this.start());
    if (this.finished) return { done: true, value: undefined };  // cancelled while starting
    const r = await this.model.request({ kind: 'generate-next', generator });
    if (!(r.ok && r.kind === 'generate-next')) throw unexpected('generate');
    if (r.result === null || this.finished) {
      this.finished = true;
      return { done: true, value: undefined };
    }
    if (r.result.stopReason) {
      this.finished = true;  // the worker freed it with the last token
      this.stopReason = r.result.stopReason;
    }
    return { done: false, value: r.result };
  }

  /** Stops the generation (between tokens) and frees it in the worker. */
  async return(): Promise<IteratorResult<GeneratedToken>> {
    if (!this.finished) {
      this.finished = true;
      this.stopReason ??= 'cancelled';
      const started = this.generator;
      this.stopping = started
        ? started.then((generator) => {
            if (!this.model.isDisposed) return this.model.request({ kind: 'generate-stop', generator }).then(() => undefined);
          }, () => undefined)
        : null;
    }
    await this.stopping;
    return { done: true, value: undefined };
  }

  private async start(): Promise<number> {
    const o = this.options;
    const prompt = typeof this.prompt === 'string' ? (await this.model.tokenize(this.prompt)).ids : Int32Array.from(this.prompt);
    const args = {
      prompt, maxTokens: o.maxTokens ?? 20, temperature: o.temperature ?? 1, topK: o.topK ?? 0, topP: o.topP ?? 1,
      seed: o.seed ?? 0, topN: o.topN ?? 5, ...(o.stop ? { stop: o.stop } : {}),
    };
    const r = await this.model.request({ kind: 'generate-start', model: this.model.id, args });
    if (r.ok && r.kind === 'generate-start') return r.result.generator;
    throw unexpected('generate');
  }
}

function unexpected(what: string): Error {
  return new Error(`engine: unexpected reply to ${what}`);
}
