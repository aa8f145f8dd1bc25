// Starting the engine's worker: its own small module, with no imports, so that a page can
// start the worker before the rest of its code has even been downloaded (the playground's
// entry.ts runs prestartWorker() before importing main.ts; the worker then fetches its script and the
// WebAssembly module while the page's own chunks still load). Engine.create() adopts that
// worker; restarts start fresh ones.

let early: Worker | null = null;

export function startWorker(): Worker {
  // The page's ?threads=N (1 = the single-threaded build) travels in the worker's name
  // (load_module.ts reads it): the worker cannot see the page's address.
  const threads = new URLSearchParams(globalThis.location?.search ?? '').get('threads');
  const name = threads && /^\d+$/.test(threads) ? `tfp-engine threads=${threads}` : 'tfp-engine';
  return new Worker(new URL('./worker.ts', import.meta.url), { type: 'module', name });
}

/** Starts the worker now, for the first Engine.create() to take. Messages sent to it wait
 *  in its queue until its script runs, so nothing is lost by starting it early. */
export function prestartWorker(): void {
  early ??= startWorker();
}

/** The prestarted worker if there is one (once), else a new one. */
export function takeWorker(): Worker {
  const w = early ?? startWorker();
  early = null;
  return w;
}
