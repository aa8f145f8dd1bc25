// The few things the engine's page side does differently outside a browser. In a page the
// defaults hold (a Web Worker, addresses relative to the page, Hub files in the origin
// private file system); the package's Node entry (package/src/node.mjs) replaces them with
// a worker thread, the working directory and a cache folder. No DOM, no Node import here.
import type { HubStore } from '../hub/hub_store.mjs';

export interface Platform {
  /** Starts the engine's worker; `name` carries what start_worker.ts puts in a worker's name. */
  startWorker?: (name: string) => Worker;
  /** What a relative model address is relative to (a page: its own address). */
  base?: () => string;
  /** Where Hub files are kept when the load names no store. */
  hubStore?: () => Promise<HubStore>;
  /** The hub and token a load uses when it names none (Node: $HF_ENDPOINT, $HF_TOKEN). */
  hubDefaults?: () => { hub?: string; token?: string };
}

export const platform: Platform = {};

export function setPlatform(p: Platform): void {
  Object.assign(platform, p);
}
