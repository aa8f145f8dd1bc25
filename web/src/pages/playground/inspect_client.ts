// The page's handle on inspect_worker.ts: rollout and head statistics as promises.
import type { InspectReply, InspectRequest } from './inspect_worker';

type Body = InspectRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

export class InspectClient {
  private readonly worker = new Worker(new URL('./inspect_worker.ts', import.meta.url), { type: 'module', name: 'tfp-inspect' });
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (d: Float32Array) => void; reject: (e: Error) => void }>();

  constructor() {
    this.worker.onmessage = (ev: MessageEvent<InspectReply>) => {
      const p = this.pending.get(ev.data.id);
      if (!p) return;
      this.pending.delete(ev.data.id);
      if (ev.data.ok) p.resolve(ev.data.data);
      else p.reject(new Error(ev.data.error));
    };
  }

  private send(body: Body): Promise<Float32Array> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...body, id });
    });
  }

  /** layers: L × (H, T, T) → (L, T, T), the rollout after each layer. */
  rollout(layers: Float32Array[], H: number, T: number, residual = 0.5): Promise<Float32Array> {
    const probs = new Float32Array(layers.length * H * T * T);
    layers.forEach((l, i) => probs.set(l, i * H * T * T));
    return this.send({ kind: 'rollout', probs, L: layers.length, H, T, residual, fusion: 0 });
  }

  /** probs (H, Tq, Tk) → (H, 4): entropy, mean distance, first-token and previous-token shares. */
  headStats(probs: Float32Array, H: number, Tq: number, Tk: number): Promise<Float32Array> {
    return this.send({ kind: 'head-stats', probs: probs.slice(), H, Tq, Tk });
  }
}
