// Which build of the engine the worker runs (issue 14, "Threads"):
//   tfp_mt.mjs  Emscripten pthreads: GEMMs, attention heads and the LM head split over a
//               pool of threads. Needs SharedArrayBuffer, i.e. a cross-origin isolated page
//               (COOP/COEP: npm start, npm run preview and the tests send them).
//   tfp.mjs     single-threaded: any static host. Same results, bit for bit.
// The threaded build is used when the page is isolated and the machine has more than one
// core; its pool is min(navigator.hardwareConcurrency, 4) threads (the module's maximum),
// or what the page's ?threads=N asks for (passed in the worker's name, engine.ts; 1 forces
// the single-threaded build). If the threaded build fails to start, the single-threaded
// one runs instead.
import type { TfpModule, TfpModuleOptions } from './wasm/tfp.mjs';
import type { WasmFromPage } from './start_worker';

/** tfp_mt.mjs also takes the size of its pthread pool (cmake/wasm_module_mt_pre.js). */
type MtFactory = (options?: TfpModuleOptions & { tfpPoolSize?: number }) => Promise<TfpModule>;

export interface LoadedModule {
  m: TfpModule;
  /** The threads the engine runs on once its pool has loaded (tfp_mt.mjs: ~0.1 s after
   *  start; until then requests run on the worker's own thread, with the same results). */
  threads: number;
}

/** Whether the page sends this worker its compiled module (start_worker.ts: "wasm=page"). */
export function wasmFromPage(name: string): boolean {
  return /\bwasm=page\b/.test(name);
}

/** The thread count asked for by the worker's name ("tfp-engine threads=2"), or null. */
export function requestedThreads(name: string): number | null {
  const match = /\bthreads=(\d+)\b/.exec(name);
  return match ? Number(match[1]) : null;
}

type InstantiateWasm = (imports: WebAssembly.Imports,
                        done: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void) => object;

/** Emscripten's instantiateWasm for the .wasm at `url`. The module is the one the page
 *  compiled for this worker when it sent one (`fromPage`, start_worker.ts: it read the file
 *  while this worker's own script was still loading); else the .wasm is fetched here, at
 *  once, while the module's JavaScript is still being imported, and compiled as it streams
 *  in (else it is only asked for once the JavaScript has arrived and run: one round trip
 *  more on a page's first load). Falls back to the bytes when streaming is refused (a host
 *  that does not send application/wasm). `failed` rejects if nothing works: Emscripten
 *  itself would wait for the instance for ever. */
function fetchedEarly(url: URL, fromPage: Promise<WasmFromPage> | null): { instantiateWasm: InstantiateWasm; failed: Promise<never> } {
  let fail: (e: unknown) => void = () => {};
  const failed = new Promise<never>((_, reject) => { fail = reject; });
  failed.catch(() => {});  // raced below; never an unhandled rejection on its own
  // The page's module if it is of this file (null: none, or the page could not read it).
  const given = fromPage ? fromPage.then((m) => (m.url === url.href ? m.module : null)) : Promise.resolve(null);
  // The file, read here: at once when no module is to come from the page, else if none came.
  const response = fromPage ? given.then((m) => (m ? null : fetch(url))) : fetch(url);
  response.catch(() => {});  // instantiateStreaming reports it
  const streamed = (imports: WebAssembly.Imports) =>
    WebAssembly.instantiateStreaming(response.then((r) => r ?? fetch(url)), imports)
      .catch(async () => WebAssembly.instantiate(await (await fetch(url)).arrayBuffer(), imports));
  const instantiateWasm: InstantiateWasm = (imports, done) => {
    given.then(async (module) => {
      if (module) {
        try {
          return { instance: await WebAssembly.instantiate(module, imports), module };
        } catch { /* then the file, read here, as without the page's module */ }
      }
      return streamed(imports);
    }).then((r) => done(r.instance, r.module), fail);
    return {};
  };
  return { instantiateWasm, failed };
}

/** `fromPage`: the module the page compiled for this worker (start_worker.ts; its name
 *  says "wasm=page"), else the worker reads the .wasm itself. */
export async function loadEngineModule(workerName: string, fromPage: Promise<WasmFromPage> | null = null): Promise<LoadedModule> {
  const g = globalThis as { crossOriginIsolated?: boolean; navigator?: { hardwareConcurrency?: number } };
  const cores = g.navigator?.hardwareConcurrency ?? 1;
  const want = requestedThreads(workerName) ?? Math.min(cores, 4);
  if (g.crossOriginIsolated === true && typeof SharedArrayBuffer !== 'undefined' && want > 1) {
    try {
      const { instantiateWasm, failed } = fetchedEarly(new URL('./wasm/tfp_mt.wasm', import.meta.url), fromPage);
      const createTfpMt: MtFactory = (await import('./wasm/tfp_mt.mjs')).default;
      // The pool holds the threads besides this one: no idle workers on small machines.
      const threads = Math.min(want, 4);
      const m = await Promise.race([createTfpMt({ tfpPoolSize: threads - 1, instantiateWasm }), failed]);
      // The pool's workers load in the background: the first requests (the first model,
      // the first map) run on this thread meanwhile, not after the workers' start-up.
      void m.tfpPoolLoaded?.().then(() => m._tfp_set_threads(threads));
      return { m, threads };
    } catch (e) {
      console.warn(`threaded engine failed to start, using the single-threaded one: ${String(e)}`);
    }
  }
  const { instantiateWasm, failed } = fetchedEarly(new URL('./wasm/tfp.wasm', import.meta.url), fromPage);
  const { default: createTfp } = await import('./wasm/tfp.mjs');
  return { m: await Promise.race([createTfp({ instantiateWasm }), failed]), threads: 1 };
}
