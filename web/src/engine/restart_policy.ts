// What ends an engine worker, and how often a page starts a new one before it gives up
// (the shared engine, engine.ts / worker.ts, and the training page's own worker,
// pages/train/): settings or a model that trap every time must not restart for ever.

/** A trap (an out-of-bounds access, `unreachable`) or an abort() (Emscripten throws both
 *  as WebAssembly.RuntimeError; an allocation the 2 GiB heap cannot hold aborts) leaves
 *  the module's memory and stack in an unknown state: nothing more may run in it. */
export const isTrap = (e: unknown): boolean => e instanceof WebAssembly.RuntimeError;

/** More than this many restarts within RESTART_WINDOW_MS: give up. */
export const MAX_RESTARTS = 3;
export const RESTART_WINDOW_MS = 60_000;
