// The page's handle on the engine: starts the worker that owns the WASM module and
// turns requests into promises. Engine code, no DOM (beyond Worker itself).
//
//   const engine = await Engine.create();
//   const r = await engine.attention({ tokens: ['the', 'cat'], dModel: 16, heads: 2, seed: 1 });
//   r.probs.data  // Float32Array, dims [H, T, T]
//   const model = await engine.load(fileList, { onProgress: (p) => show(p.stage, p.bytes, p.total) });
//   (model.ts: tokenize, forward, generate, translate, dispose)
//   const roll = await engine.rollout(out.attention.filter((t) => t.name.endsWith('.attn.probs')));
//   const stats = await engine.headStats(out.attention);  // (H, 4) per map
//   engine.onRestart((e) => { if (e.stage === 'restarted') reloadTheModel(); });
//
// If the module traps or aborts (out of memory, an out-of-bounds access), the worker says
// so and closes (worker.ts); the Engine then rejects what was pending, starts a new worker
// and tells its onRestart listeners. Models loaded before are gone: their requests are
// refused (EngineError) and the page loads them again (web/src/shell/engine_restart.ts).
import { startWorker, takeWorker } from './start_worker';
import { platform } from './platform';
import type { AttentionRequest, AttentionResult, EngineInfo, LoadArgs, LoadProgress, Reply, TextSource, WeightsSource } from './messages';
import { Model, type Channel, type RequestBody } from './model';
import type { FloatTensor, HeadScoresOptions, HeadStatsOptions, RolloutArgs } from './messages';
import type { LearnArgs, LearnName, LearnResult } from './learn_calls/index';
import { MAX_RESTARTS, RESTART_WINDOW_MS } from './restart_policy';
import { loadFromHub, type HubLoadOptions } from './hub_load';

export type {
  AttentionRequest, AttentionResult, AttentionWeights, EngineInfo, FloatTensor, ForwardResult, GeneratedToken, LoadProgress,
  ModelInfo, NamedTensor, TokenChoice, TokenizeResult, TranslateResult,
} from './messages';
export type { FillMaskResult, MaskFill } from './messages';
export type { EmbeddingInput, ForwardEmbeddingsArgs, ForwardEmbeddingsResult } from './messages';
export type { RolloutArgs } from './messages';
export type { GradientAttributionArgs, GradientAttributionResult, HeadAblationResult, HeadFinderLayer, HeadFindersResult, HeadScoresOptions, LogitAttributionResult } from './messages';
export { Model, Generation, decoderStartId } from './model';
export type { HubLoadOptions, HubSource } from './hub_load';
export { HubError } from '../hub/hub_client.mjs';
export { setWorkerUrl } from './start_worker';
export type { ForwardOptions, GenerateOptions, TranslateOptions } from './model';
export type { FillMaskOptions } from './model';
export { PATCH_SWEEPS, kvHeads } from './activation_patching';
export type { ActivationPatchingOptions, ActivationPatchingResult, PatchMetric, PatchSweep, PatchSweepResult, PatchingProgress } from './activation_patching';
export type { GradientProgress, GradientRunOptions } from './integrated_gradients';

/**
 * Where a model's files come from:
 *   - the files a user dropped or picked (config.json, *.safetensors, tokenizer.json;
 *     sharded: model.safetensors.index.json with the shards it names);
 *   - a folder URL ending in "/" (config.json, model.safetensors, tokenizer.json if present);
 *   - each file given separately: bytes (ArrayBuffer, transferred to the worker — the
 *     caller's buffer is detached, no second copy stays in the page), a Blob/File, a URL,
 *     or (config, tokenizer) the text itself;
 *   - "hf:owner/name" or "hf:owner/name@revision": a Hugging Face Hub repository, fetched,
 *     verified and stored in this browser (engine/hub_load.ts; options: HubLoadOptions).
 */
export type ModelSource =
  | FileList
  | File[]
  | string
  | { config: ArrayBuffer | Blob | string | URL; weights: ArrayBuffer | Blob | URL; tokenizer?: ArrayBuffer | Blob | string | URL; name?: string };

export interface LoadOptions {
  onProgress?: (p: LoadProgress) => void;
  /** What the matrices are held as (model/precision.h); absent: as the checkpoint stores them. */
  precision?: 'f32' | 'f16' | 'int8';
}

/** A request the engine refused; `message` names the operation and the shapes. */
export class EngineError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EngineError';
  }
}

/** The engine's worker stopped ('stopped'), a new one answers ('restarted'), or it
 * stopped too often to try again ('failed': every request is refused from then on). */
export interface RestartEvent {
  stage: 'stopped' | 'restarted' | 'failed';
  /** What stopped it: the trap's or abort's message, or the worker's error. */
  reason: string;
}


type Pending = { resolve: (r: Reply) => void; reject: (e: Error) => void; onProgress?: ((p: LoadProgress) => void) | undefined };

function absolute(url: string | URL): string {
  return new URL(url, globalThis.location?.href ?? platform.base?.()).href;
}

function textSource(x: ArrayBuffer | Blob | string | URL, optional = false): TextSource {
  if (x instanceof ArrayBuffer) return { kind: 'text', text: new TextDecoder().decode(x) };
  if (x instanceof Blob) return { kind: 'file', file: x };
  if (x instanceof URL) return { kind: 'url', url: x.href, optional };
  return { kind: 'text', text: x };
}

/** The load request for a source, and the buffers to transfer with it. */
function loadArgs(source: ModelSource): { args: LoadArgs; transfer: Transferable[] } {
  if (typeof source === 'string') {
    const base = absolute(source.endsWith('/') ? source : source + '/');
    return {
      args: {
        name: source,
        config: { kind: 'url', url: base + 'config.json' },
        weights: { kind: 'url', url: base + 'model.safetensors' },
        tokenizer: { kind: 'url', url: base + 'tokenizer.json', optional: true },
      },
      transfer: [],
    };
  }
  if (Array.isArray(source) || (typeof FileList !== 'undefined' && source instanceof FileList)) {
    const files = Array.from(source as ArrayLike<File>);
    const byName = (name: string) => files.find((f) => f.name === name);
    const config = byName('config.json');
    // A sharded checkpoint: the index names the shards (the worker picks them by name).
    const index = byName('model.safetensors.index.json');
    const weights = index ?? byName('model.safetensors') ?? files.find((f) => f.name.endsWith('.safetensors'));
    if (!config || !weights) {
      const missing = [config ? '' : 'config.json', weights ? '' : 'a .safetensors file'].filter(Boolean).join(' and ');
      throw new EngineError(`load: the files (${files.map((f) => f.name).join(', ') || 'none'}) lack ${missing}; `
        + 'a model is config.json with model.safetensors (and tokenizer.json)');
    }
    const tokenizer = byName('tokenizer.json');
    const dir = (weights as File & { webkitRelativePath?: string }).webkitRelativePath?.split('/')[0];
    return {
      args: {
        name: dir || weights.name.replace(/\.safetensors(\.index\.json)?$/, ''),
        config: { kind: 'file', file: config },
        weights: index
          ? { kind: 'shards', index: { kind: 'file', file: index },
              shards: files.filter((f) => f.name.endsWith('.safetensors')).map((f) => ({ name: f.name, file: f })) }
          : { kind: 'file', file: weights },
        ...(tokenizer ? { tokenizer: { kind: 'file' as const, file: tokenizer } } : {}),
      },
      transfer: [],
    };
  }
  const s = source as Exclude<ModelSource, string | FileList | File[]>;
  let weights: WeightsSource;
  const transfer: Transferable[] = [];
  if (s.weights instanceof ArrayBuffer) {
    weights = { kind: 'buffer', data: s.weights };
    transfer.push(s.weights);
  } else if (s.weights instanceof Blob) {
    weights = { kind: 'file', file: s.weights };
  } else {
    weights = { kind: 'url', url: absolute(s.weights) };
  }
  const url = (x: typeof s.config) => (x instanceof URL ? new URL(absolute(x)) : x);
  return {
    args: {
      name: s.name ?? 'model',
      config: textSource(url(s.config)),
      weights,
      ...(s.tokenizer !== undefined ? { tokenizer: textSource(url(s.tokenizer)) } : {}),
    },
    transfer,
  };
}

export class Engine implements Channel {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private failure: Error | null = null;
  /** Which worker this is (0 = the first): a Model holds the epoch it was loaded in. */
  private epoch = 0;
  private started = false;
  private restarts: number[] = [];
  private readonly restartListeners = new Set<(e: RestartEvent) => void>();

  private constructor(private worker: Worker, readonly info: EngineInfo) {}

  /** Starts the worker and waits until the module answers. */
  static async create(): Promise<Engine> {
    return Engine.start().ready;
  }

  /** Starts the worker: `engine` at once (requests sent to it wait in the worker's queue
   *  until the module runs: a page can ask for its first model before the module has
   *  answered), `ready` once the module answers, as create(). */
  static start(): { engine: Engine; ready: Promise<Engine> } {
    const engine = new Engine(takeWorker(), { version: '', simdArch: '', threads: 1, threadsNow: 1 });
    engine.listen();
    const ready = engine.send({ kind: 'info' }).then((reply) => {
      if (reply.ok && reply.kind === 'info') Object.assign(engine.info, reply.result);
      engine.started = true;
      return engine;
    });
    return { engine, ready };
  }

  /** Calls `listener` when the worker stops and when a new one answers; returns the
   *  function that removes it. */
  onRestart(listener: (e: RestartEvent) => void): () => void {
    this.restartListeners.add(listener);
    return () => this.restartListeners.delete(listener);
  }

  /** @internal Tests only (worker_restart.test.mjs): the module traps, as an out-of-memory
   *  abort would; resolves once the trap is reported (the restart follows). */
  crash(): Promise<void> {
    return this.request({ kind: 'crash' }).then(() => undefined, () => undefined);
  }

  /** Runs one multi-head self-attention block and returns every step. */
  async attention(args: AttentionRequest): Promise<AttentionResult> {
    // Inputs are copied (structured clone), not transferred: the caller keeps its arrays.
    const reply = await this.send({ kind: 'attention', args });
    if (reply.ok && reply.kind === 'attention') return reply.result;
    throw new EngineError('engine: unexpected reply to attention');
  }

  /** Loads a model (see ModelSource); progress reports stages and weight bytes read. */
  async load(source: ModelSource, options: LoadOptions & HubLoadOptions = {}): Promise<Model> {
    if (typeof source === 'string' && source.startsWith('hf:')) {
      const { model, source: from } = await loadFromHub<Model>({
        checkConfig: (config, name) => this.checkConfig(config, name),
        loadArgs: (args, transfer, onProgress) => this.loadArgs(args, transfer, onProgress),
      }, source, options);
      model.hub = from;
      return model;
    }
    const { args, transfer } = loadArgs(source);
    if (options.precision) args.precision = options.precision;
    return this.loadArgs(args, transfer, options.onProgress);
  }

  private async loadArgs(args: LoadArgs, transfer: Transferable[], onProgress?: (p: LoadProgress) => void): Promise<Model> {
    const reply = await this.request({ kind: 'load', args }, transfer, onProgress);
    if (reply.ok && reply.kind === 'load') return new Model(this.channel(), reply.result.model, reply.result.info);
    throw new EngineError('engine: unexpected reply to load');
  }

  /** Throws (EngineError) where the engine would refuse this config.json: an unknown
   *  model_type, an option it does not implement. Reads no weights. */
  async checkConfig(config: string, name = 'model'): Promise<void> {
    const reply = await this.request({ kind: 'check-config', config, name });
    if (!(reply.ok && reply.kind === 'check-config')) throw new EngineError('engine: unexpected reply to checkConfig');
  }

  /** A model of the given config.json with seeded random weights (tutorials, tests). */
  async randomModel(config: string, options: { tokenizer?: string; seed?: number } = {}): Promise<Model> {
    const reply = await this.request({ kind: 'random-model', config, seed: options.seed ?? 0,
                                       ...(options.tokenizer !== undefined ? { tokenizer: options.tokenizer } : {}) });
    if (reply.ok && reply.kind === 'load') return new Model(this.channel(), reply.result.model, reply.result.info);
    throw new EngineError('engine: unexpected reply to randomModel');
  }

  /**
   * Attention rollout, computed by the engine: `layers` are self-attention maps (H, T, T)
   * in forward order (a forward pass's "*.attn.probs"); returns (L, T, T), slice l being
   * the rollout after layer l. The maps are copied to the worker; the caller keeps them.
   */
  async rollout(layers: FloatTensor[], options: Omit<RolloutArgs, 'layers'> = {}): Promise<FloatTensor> {
    const reply = await this.request({ kind: 'rollout', args: { ...options, layers } });
    if (reply.ok && reply.kind === 'rollout') return reply.result;
    throw new EngineError('engine: unexpected reply to rollout');
  }

  /** Per-head statistics of each map (H, Tq, Tk), computed by the engine: (H, 4) per map,
   * columns entropy (nats), mean attention distance (tokens), first-token share,
   * previous-token share, averaged over the rows that had at least two keys to choose
   * from (say `causal` for decoder self-attention: its row 0 has one); NaN where no row
   * had. The maps are copied to the worker; the caller keeps them. */
  async headStats(maps: FloatTensor[], options: HeadStatsOptions = {}): Promise<FloatTensor[]> {
    const reply = await this.request({ kind: 'head-stats', maps, options });
    if (reply.ok && reply.kind === 'head-stats') return reply.result;
    throw new EngineError('engine: unexpected reply to headStats');
  }

  /** The head finders of each square self-attention map (H, T, T) computed on
   * `options.tokens`, which end with `options.repeat` tokens given twice: (H, 6) per map,
   * columns TransformerLens detect_head's "mul" previous-token, duplicate-token and
   * induction scores (sum(A ∘ P) / sum(A) over the whole map), then the plain
   * definitions (mean attention of the second repeat's positions to the previous
   * position, to the earlier occurrence, to the token after it). Model.headFinders()
   * makes the sequence and runs the pass itself. */
  async headScores(maps: FloatTensor[], options: HeadScoresOptions): Promise<FloatTensor[]> {
    const reply = await this.request({ kind: 'head-scores', maps, options });
    if (reply.ok && reply.kind === 'head-scores') return reply.result;
    throw new EngineError('engine: unexpected reply to headScores');
  }

  /** One of the Learn chapters' engine calls (learn_calls/index.ts), by name. */
  async learn<K extends LearnName>(name: K, args: LearnArgs<K>): Promise<LearnResult<K>> {
    const reply = await this.request({ kind: 'learn', name, args });
    if (reply.ok && reply.kind === 'learn') return reply.result as LearnResult<K>;
    throw new EngineError(`engine: unexpected reply to learn('${name}')`);
  }

  /** The engine's info as of now (`info` is as of its start). */
  async currentInfo(): Promise<EngineInfo> {
    const reply = await this.request({ kind: 'info' });
    if (reply.ok && reply.kind === 'info') return reply.result;
    throw new EngineError('engine: unexpected reply to info');
  }

  /** The module's heap size (it only grows) and the live models and generators. */
  async memory(): Promise<{ heapBytes: number; models: number; generators: number }> {
    const reply = await this.request({ kind: 'memory' });
    if (reply.ok && reply.kind === 'memory') return reply.result;
    throw new EngineError('engine: unexpected reply to memory');
  }

  /** @internal One request to the worker; progress replies go to onProgress. */
  request(body: RequestBody, transfer: Transferable[] = [], onProgress?: (p: LoadProgress) => void): Promise<Reply> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise<Reply>((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onProgress });
      this.worker.postMessage({ ...body, id }, transfer);
    });
  }

  /** Stops the worker; pending requests fail. */
  terminate(): void {
    this.worker.terminate();
    this.fail(new EngineError('engine terminated'));
  }

  private send(body: RequestBody): Promise<Reply> {
    return this.request(body);
  }

  /** The channel of a model loaded now: once the worker is replaced, the model's handles
   *  mean nothing (the new worker numbers its own from 1), so its requests are refused;
   *  disposing it or stopping its generation is then nothing to do. */
  private channel(): Channel {
    const epoch = this.epoch;
    return {
      request: (body, transfer, onProgress) => {
        if (epoch === this.epoch) return this.request(body, transfer, onProgress);
        if (body.kind === 'dispose' || body.kind === 'generate-stop') return Promise.resolve({ id: 0, ok: true, kind: body.kind });
        return Promise.reject(new EngineError('this model was lost when the engine restarted: load it again'));
      },
    };
  }

  /** Routes the current worker's replies and errors (a replaced worker's are ignored). */
  private listen(): void {
    const w = this.worker;
    w.onmessage = (ev: MessageEvent<Reply>) => { if (w === this.worker) this.onReply(ev.data); };
    w.onerror = (ev: ErrorEvent) => {
      if (w !== this.worker) return;
      ev.preventDefault();
      const message = `engine worker error: ${ev.message}`;
      // A worker that never answered did not start: no restart (it would fail the same way).
      if (this.started) this.restart(message);
      else this.fail(new EngineError(message));
    };
  }

  /** The worker stopped (a trap, an abort, an uncaught error): pending requests fail, a
   *  new worker starts, listeners hear 'stopped' then 'restarted' (or 'failed'). */
  private restart(reason: string): void {
    this.worker.terminate();
    const now = performance.now();
    this.restarts = this.restarts.filter((t) => now - t < RESTART_WINDOW_MS);
    const stopped = new EngineError(`the engine stopped (${reason})`);
    for (const p of this.pending.values()) p.reject(stopped);
    this.pending.clear();
    this.epoch += 1;
    if (this.restarts.length >= MAX_RESTARTS) {
      this.fail(new EngineError(`the engine stopped ${this.restarts.length + 1} times within a minute (${reason})`));
      this.emit({ stage: 'failed', reason });
      return;
    }
    this.restarts.push(now);
    this.emit({ stage: 'stopped', reason });
    this.worker = startWorker();
    this.listen();
    // Requests sent from now on queue in the new worker until its module runs.
    this.send({ kind: 'info' }).then(() => this.emit({ stage: 'restarted', reason }), () => undefined);
  }

  private emit(e: RestartEvent): void {
    for (const l of this.restartListeners) {
      try {
        l(e);
      } catch (err) {
        console.error(err);
      }
    }
  }

  private onReply(reply: Reply): void {
    if (reply.id === -1 && !reply.ok) {
      this.fail(new EngineError(reply.error));
      if (this.started) this.emit({ stage: 'failed', reason: reply.error });
      return;
    }
    if (!reply.ok && 'fatal' in reply) {
      this.restart(reply.error);
      return;
    }
    const p = this.pending.get(reply.id);
    if (!p) return;
    if (reply.ok && reply.kind === 'progress') {
      p.onProgress?.(reply.progress);
      return;
    }
    this.pending.delete(reply.id);
    if (reply.ok) p.resolve(reply);
    else p.reject(new EngineError(reply.error));
  }

  private fail(e: Error): void {
    this.failure = e;
    for (const p of this.pending.values()) p.reject(e);
    this.pending.clear();
  }
}
