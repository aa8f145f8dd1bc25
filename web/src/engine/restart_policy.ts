// How often a page starts a new engine worker after its module trapped, before it gives up
// (the shared engine, engine.ts, and the training page's own worker, pages/train/main.ts):
// settings or a model that trap every time must not restart for ever.

/** More than this many restarts within RESTART_WINDOW_MS: give up. */
export const MAX_RESTARTS = 3;
export const RESTART_WINDOW_MS = 60_000;
