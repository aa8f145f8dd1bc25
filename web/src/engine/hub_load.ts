// engine.load('hf:owner/name', …): a model opened by its Hugging Face Hub name, by the road
// of web/src/hub/ (file list, config.json checked by the engine, headers by Range, the
// memory estimate, then the weights streamed into the engine's worker as they arrive, stored
// in this browser and verified on the way). Runs in the page: the worker only reads the
// streams, as it reads a dropped file. No DOM.
import { HubClient, HubError, parseHubModel, type HubModelName } from '../hub/hub_client.mjs';
import { iteratorStream } from '../hub/hub_download.mjs';
import { headerSource, planHubModel, weightChunks, type HubPlan, type HubProgressSnapshot } from '../hub/hub_open.mjs';
import { MemoryHubStore } from '../hub/hub_store_memory.mjs';
import { OpfsHubStore } from '../hub/hub_store_opfs';
import type { HubStore } from '../hub/hub_store.mjs';
import { platform } from './platform';
import { estimateMemory, megabytes, refusal, WASM_HEAP_LIMIT, type MemoryEstimate } from './checkpoint_memory';
import type { LoadArgs, LoadProgress, ShardSource, SizedStream } from './messages';

export interface HubLoadOptions {
  /** A branch, tag or commit; the name's "@revision" wins; default main. */
  revision?: string;
  /** The hub's address (default https://huggingface.co; a mirror with the same layout). */
  hub?: string;
  /** An access token for a gated or private repository: sent to the hub's host only. */
  token?: string | null;
  signal?: AbortSignal;
  precision?: 'f32' | 'f16' | 'int8';
  onProgress?: (p: LoadProgress) => void;
  /** The download's progress: per file and overall, bytes, rate, time left. */
  onHubProgress?: (p: HubProgressSnapshot) => void;
  /** Before any weight byte is asked for: the plan and its memory estimate in the precision
   *  asked. Return false to stop (the load rejects with HubError 'refused'). Without it, a
   *  checkpoint that cannot fit is refused. */
  onPlan?: (plan: HubPlan, estimate: MemoryEstimate | null) => boolean | Promise<boolean>;
  /** Where files are kept (default: this browser's origin private file system). */
  store?: HubStore;
}

/** What the model was opened from (Model.hub). */
export interface HubSource { hub: string; repo: string; revision: string; commit: string }

let defaultStore: Promise<HubStore> | null = null;
/** The origin private file system, else memory (a browser without it). */
export function hubStore(): Promise<HubStore> {
  defaultStore ??= platform.hubStore?.() ?? OpfsHubStore.open().then((s) => s ?? new MemoryHubStore());
  return defaultStore;
}

/** Refuses a download the browser's storage cannot hold, and asks for it to be kept. */
async function checkQuota(plan: HubPlan): Promise<void> {
  const storage = globalThis.navigator?.storage;
  if (!storage?.estimate || plan.missingBytes === 0) return;
  const { quota = Infinity, usage = 0 } = await storage.estimate();
  if (plan.missingBytes > quota - usage)
    throw new HubError('quota', `${plan.repo} needs ${megabytes(plan.missingBytes)} of storage; this browser lets the page keep ${megabytes(Math.max(0, quota - usage))} more`,
      { needed: plan.missingBytes, free: Math.max(0, quota - usage) });
  await storage.persist?.().catch(() => false);
}

interface Loader {
  checkConfig(config: string, name: string): Promise<void>;
  loadArgs(args: LoadArgs, transfer: Transferable[], onProgress?: (p: LoadProgress) => void): Promise<unknown>;
}

/**
 * The hub road up to the engine's load: returns what loadArgs resolved to and the source.
 * A failure of the download (lost, cancelled, checksum) is reported as that HubError, not as
 * the worker's account of a stream that broke.
 */
export async function loadFromHub<T>(engine: Loader, name: string, options: HubLoadOptions): Promise<{ model: T; source: HubSource; plan: HubPlan }> {
  const parsed: HubModelName = parseHubModel(name);
  const revision = name.includes('@') ? parsed.revision : options.revision ?? 'main';
  const defaults = platform.hubDefaults?.() ?? {};
  const hub = options.hub ?? defaults.hub;
  const client = new HubClient({ ...(hub ? { hub } : {}), token: options.token ?? defaults.token ?? null });
  const store = options.store ?? await hubStore();
  const { signal } = options;
  const plan = await planHubModel({ client, store, repo: parsed.repo, revision, ...(signal ? { signal } : {}),
    checkConfig: (config) => engine.checkConfig(config, parsed.repo) });
  const precision = options.precision ?? '';
  const estimate = await estimateMemory(plan.weights.map(headerSource), WASM_HEAP_LIMIT, precision).catch(() => null);
  if (options.onPlan) {
    if (!(await options.onPlan(plan, estimate))) throw new HubError('refused', `${plan.repo}: not opened (its plan was refused)`);
  } else if (estimate) {
    const why = refusal(estimate, plan.repo);
    if (why) throw new HubError('quota', why);
  }
  if (signal?.aborted) throw new HubError('cancelled', `${plan.repo}: cancelled`);
  await checkQuota(plan);

  let failure: unknown = null;
  const watched = async function* (chunks: AsyncGenerator<Uint8Array>): AsyncGenerator<Uint8Array> {
    try {
      for await (const c of chunks) {
        if (signal?.aborted) throw new HubError('cancelled', `${plan.repo}: cancelled`);
        yield c;
      }
    } catch (e) {
      failure ??= e;
      throw e;
    }
  };
  const parts = weightChunks(plan, { client, store, ...(signal ? { signal } : {}),
    ...(options.onHubProgress ? { onProgress: options.onHubProgress } : {}) });
  // A file already stored whole goes to the worker as the Blob it is (read there as a dropped
  // file is, without a message per chunk); the others as streams of the download.
  const stored = await Promise.all(plan.weights.map((w) => (w.stored === w.size ? store.complete(w.key) : null)));
  const sources = parts.map((p, i): { file: Blob } | SizedStream => {
    const blob = stored[i];
    if (blob) {
      void p.chunks.return(undefined);
      return { file: blob };
    }
    return { stream: iteratorStream(watched(p.chunks)), size: p.size };
  });
  const streams = sources.filter((x): x is SizedStream => 'stream' in x).map((x) => x.stream);
  const single = sources[0]!;
  const args: LoadArgs = {
    name: parsed.repo,
    config: { kind: 'text', text: plan.config },
    ...(plan.tokenizer !== null ? { tokenizer: { kind: 'text' as const, text: plan.tokenizer } } : {}),
    weights: plan.index !== null
      ? { kind: 'shards', index: { kind: 'text', text: plan.index },
          shards: parts.map((p, i): ShardSource => ({ name: p.name, ...sources[i]! })) }
      : 'file' in single ? { kind: 'file', file: single.file } : { kind: 'stream', ...single },
    ...(options.precision ? { precision: options.precision } : {}),
  };
  try {
    const model = await engine.loadArgs(args, streams as unknown as Transferable[], options.onProgress) as T;
    return { model, source: { hub: client.hub, repo: plan.repo, revision, commit: plan.commit }, plan };
  } catch (e) {
    if (failure) throw failure;
    if (signal?.aborted) throw new HubError('cancelled', `${plan.repo}: cancelled`);
    throw e;
  } finally {
    // Whatever the worker did not read (it refused the file early) is not downloaded further.
    for (const p of parts) void p.chunks.return(undefined).catch(() => undefined);
  }
}
