// Types of hub_open.mjs.
import type { HubClient } from './hub_client.mjs';
import type { HubKey, HubStore } from './hub_store.mjs';

export interface PlannedWeight { name: string; size: number; sha256: string | null; key: HubKey; head: Uint8Array; stored: number }
export interface HubPlan {
  hub: string; repo: string; revision: string; commit: string; offline: boolean;
  config: string; tokenizer: string | null; index: string | null;
  weights: PlannedWeight[]; storedBytes: number; missingBytes: number;
}
export function planHubModel(args: { client: HubClient; store: HubStore; repo: string; revision?: string; signal?: AbortSignal;
  checkConfig?: (config: string) => void | Promise<void> }): Promise<HubPlan>;
export function headerSource(w: PlannedWeight): { name: string; file: Pick<Blob, 'size' | 'slice'> };

export interface HubProgressSnapshot {
  files: { name: string; bytes: number; total: number }[];
  bytes: number; total: number; networkBytes: number; networkTotal: number;
  /** Network bytes per second so far (0 before there are enough to say). */
  bytesPerSecond: number;
  secondsLeft: number | null;
}
export class HubProgress {
  constructor(weights: PlannedWeight[], now?: () => number);
  update(i: number, bytes: number, net: number): void;
  snapshot(): HubProgressSnapshot;
}
interface ReadOptions { client: HubClient; store: HubStore; signal?: AbortSignal; onProgress?: (p: HubProgressSnapshot) => void; now?: () => number }
export function weightChunks(plan: HubPlan, options: ReadOptions): { name: string; size: number; chunks: AsyncGenerator<Uint8Array> }[];
export function downloadWeights(plan: HubPlan, options: ReadOptions): Promise<void>;
