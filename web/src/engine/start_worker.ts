// Starting the engine's worker: its own small module, importing only platform.ts, so that a page can
// start the worker before the rest of its code has even been downloaded (the playground's
// entry.ts runs prestartWorker() before importing main.ts; the worker then fetches its script,
// and the page the WebAssembly module, while the page's own chunks still load).
// Engine.create() adopts that worker; restarts start fresh ones (which read the module themselves).

import { platform } from './platform';

let early: Worker | null = null;

/** The message that hands the worker the engine's module, compiled by the page
 *  (load_module.ts instantiates it instead of fetching and compiling the .wasm itself);
 *  `module: null`: the worker reads the file itself. */
export interface WasmFromPage { kind: 'wasm-from-page'; url: string; module: WebAssembly.Module | null }

/** The page's ?threads=N (1 = the single-threaded build), or null. */
function threadsAsked(): string | null {
  const threads = new URLSearchParams(globalThis.location?.search ?? '').get('threads');
  return threads && /^\d+$/.test(threads) ? threads : null;
}

export function startWorker(wasmFromPage = false): Worker {
  // The page's ?threads=N travels in the worker's name (load_module.ts reads it): the
  // worker cannot see the page's address. "wasm=page": the page sends the .wasm.
  const threads = threadsAsked();
  const name = `tfp-engine${threads ? ` threads=${threads}` : ''}${wasmFromPage ? ' wasm=page' : ''}`;
  if (platform.startWorker) return platform.startWorker(name);
  if (workerUrl) return workerAt(workerUrl, name);
  // This module from another origin (the package from a CDN): its worker is started the way
  // a page may start another origin's script (workerAt). WORKER_FILE, not the literal below:
  // Vite bundles the worker it finds in `new Worker(new URL('…', import.meta.url))`.
  if (globalThis.location && new URL(import.meta.url).origin !== globalThis.location.origin)
    return workerAt(new URL(WORKER_FILE, import.meta.url), name);
  return new Worker(new URL('./worker.ts', import.meta.url), { type: 'module', name });
}

const WORKER_FILE = './worker.ts';
let workerUrl: URL | null = null;

/** Where the engine's worker script is, for a page that serves the package's files
 *  elsewhere than beside its modules; null: beside them (the default). The .wasm files are
 *  found beside the worker (its wasm/ folder). */
export function setWorkerUrl(url: string | URL | null): void {
  workerUrl = url === null ? null : new URL(url, globalThis.location?.href);
}

/** A module worker of `url`; of another origin, through a one-line module of this page's
 *  own (a blob: URL) that imports it: a page cannot start another origin's script as its
 *  worker, but a worker may import one (CORS-checked). The page's CSP then needs
 *  worker-src blob: <that origin> (Chromium checks the worker's imports against worker-src). */
function workerAt(url: URL, name: string): Worker {
  if (!globalThis.location || url.origin === globalThis.location.origin) return new Worker(url, { type: 'module', name });
  const shim = URL.createObjectURL(new Blob([`import ${JSON.stringify(url.href)};\n`], { type: 'text/javascript' }));
  return new Worker(shim, { type: 'module', name });
}

/** The .wasm the worker will ask for: the rule of load_module.ts (threaded build on a
 *  cross-origin isolated page with more than one thread wanted). */
function wasmUrl(): URL {
  const threads = threadsAsked();
  const want = threads !== null ? Number(threads) : Math.min(globalThis.navigator?.hardwareConcurrency ?? 1, 4);
  return globalThis.crossOriginIsolated === true && typeof SharedArrayBuffer !== 'undefined' && want > 1
    ? new URL('./wasm/tfp_mt.wasm', import.meta.url) : new URL('./wasm/tfp.wasm', import.meta.url);
}

/** Fetches and compiles the engine's .wasm in the page, now, and hands the compiled module
 *  to `worker`: the file is read (and compiled as it streams in) while the worker's own
 *  script is still being fetched, parsed and run, rather than only after that. A compiled
 *  module is shared with a worker, not copied, and the fetch is an ordinary one (HTTP cache,
 *  the service worker, the browser's cache of compiled code all apply as before). On any
 *  failure (e.g. a host that does not send application/wasm) the worker gets
 *  `module: null` and reads the file itself, as it would without this. */
function sendWasm(worker: Worker): void {
  const url = wasmUrl();
  const send = (module: WebAssembly.Module | null) => {
    try {
      worker.postMessage({ kind: 'wasm-from-page', url: url.href, module } satisfies WasmFromPage);
    } catch {
      worker.postMessage({ kind: 'wasm-from-page', url: url.href, module: null } satisfies WasmFromPage);
    }
  };
  try {
    WebAssembly.compileStreaming(fetch(url)).then(send, () => send(null));
  } catch {
    send(null);  // no compileStreaming: the worker's own way
  }
}

/** Starts the worker now, for the first Engine.create() to take. Messages sent to it wait
 *  in its queue until its script runs, so nothing is lost by starting it early. */
export function prestartWorker(): void {
  if (early) return;
  early = startWorker(true);
  sendWasm(early);
}

/** The prestarted worker if there is one (once), else a new one. */
export function takeWorker(): Worker {
  const w = early ?? startWorker();
  early = null;
  return w;
}
