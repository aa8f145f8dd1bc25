// The page's handle on the engine: starts the worker that owns the WASM module and
// turns requests into promises. Engine code, no DOM (beyond Worker itself).
//
//   const engine = await Engine.create();
//   const r = await engine.attention({ tokens: ['the', 'cat'], dModel: 16, heads: 2, seed: 1 });
//   r.probs.data  // Float32Array, dims [H, T, T]
import type { AttentionRequest, AttentionResult, EngineInfo, Reply, Request } from './messages';

export type { AttentionRequest, AttentionResult, AttentionWeights, EngineInfo, FloatTensor } from './messages';

/** A request the engine refused; `message` names the operation and the shapes. */
export class EngineError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EngineError';
  }
}

type Pending = { resolve: (r: Reply) => void; reject: (e: Error) => void };
type RequestBody = Request extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

export class Engine {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private failure: Error | null = null;

  private constructor(private readonly worker: Worker, readonly info: EngineInfo) {}

  /** Starts the worker and waits until the module answers. */
  static async create(): Promise<Engine> {
    const worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module', name: 'tfp-engine' });
    const engine = new Engine(worker, { version: '', simdArch: '' });
    worker.onmessage = (ev: MessageEvent<Reply>) => engine.onReply(ev.data);
    worker.onerror = (ev: ErrorEvent) => engine.fail(new EngineError(`engine worker error: ${ev.message}`));
    const reply = await engine.send({ kind: 'info' });
    if (reply.ok && reply.kind === 'info') Object.assign(engine.info, reply.result);
    return engine;
  }

  /** Runs one multi-head self-attention block and returns every step. */
  async attention(args: AttentionRequest): Promise<AttentionResult> {
    // Inputs are copied (structured clone), not transferred: the caller keeps its arrays.
    const reply = await this.send({ kind: 'attention', args });
    if (reply.ok && reply.kind === 'attention') return reply.result;
    throw new EngineError('engine: unexpected reply to attention');
  }

  /** Stops the worker; pending requests fail. */
  terminate(): void {
    this.worker.terminate();
    this.fail(new EngineError('engine terminated'));
  }

  private send(body: RequestBody): Promise<Reply> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise<Reply>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...body, id } as Request);
    });
  }

  private onReply(reply: Reply): void {
    if (reply.id === -1 && !reply.ok) {
      this.fail(new EngineError(reply.error));
      return;
    }
    const p = this.pending.get(reply.id);
    if (!p) return;
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
