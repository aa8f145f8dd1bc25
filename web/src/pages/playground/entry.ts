// The playground's entry: starts the engine's worker and the reading of the first model's
// files first (first_model.ts), then runs the shell and loads the page's code.
// Vite bundles every module script of a page into one entry whose code runs only once all
// its static imports have arrived; importing main.ts dynamically keeps that entry tiny,
// so the worker fetches its script and the WebAssembly module while the page's own
// chunks are still downloading (engine/start_worker.ts).
import { prestartWorker } from '../../engine/start_worker';
import { firstCatalogModel, prefetchCatalog } from './first_model';

prestartWorker();
// A model handed over by the training page (?from=train) comes from IndexedDB instead.
if (new URLSearchParams(location.search).get('from') !== 'train') prefetchCatalog(firstCatalogModel(location.search));
// The shell (site navigation, theme, the page's language) only now: as a static import (or
// a second script tag, which Vite bundles into this entry) its chunk, with every message,
// would run before the two lines above. main.ts runs after it, in the chosen language.
import('../../i18n/boot').then(() => import('./main')).catch((e: unknown) => {
  console.error(e);
  document.body.dataset.startError = e instanceof Error ? e.message : String(e);
});
