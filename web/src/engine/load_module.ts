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

/** tfp_mt.mjs also takes the size of its pthread pool (cmake/wasm_module_mt_pre.js). */
type MtFactory = (options?: TfpModuleOptions & { tfpPoolSize?: number }) => Promise<TfpModule>;

export interface LoadedModule {
  m: TfpModule;
  threads: number;
}

/** The thread count asked for by the worker's name ("tfp-engine threads=2"), or null. */
export function requestedThreads(name: string): number | null {
  const match = /\bthreads=(\d+)\b/.exec(name);
  return match ? Number(match[1]) : null;
}

export async function loadEngineModule(workerName: string): Promise<LoadedModule> {
  const g = globalThis as { crossOriginIsolated?: boolean; navigator?: { hardwareConcurrency?: number } };
  const cores = g.navigator?.hardwareConcurrency ?? 1;
  const want = requestedThreads(workerName) ?? Math.min(cores, 4);
  if (g.crossOriginIsolated === true && typeof SharedArrayBuffer !== 'undefined' && want > 1) {
    try {
      const createTfpMt: MtFactory = (await import('./wasm/tfp_mt.mjs')).default;
      // The pool holds the threads besides this one: no idle workers on small machines.
      const m = await createTfpMt({ tfpPoolSize: Math.min(want, 4) - 1 });
      return { m, threads: m._tfp_set_threads(want) };
    } catch (e) {
      console.warn(`threaded engine failed to start, using the single-threaded one: ${String(e)}`);
    }
  }
  const { default: createTfp } = await import('./wasm/tfp.mjs');
  return { m: await createTfp(), threads: 1 };
}
