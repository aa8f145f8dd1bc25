// The engine's worker in a Node worker thread: the page's worker, with the scope it expects.
// Imported once the scope is set (a static import of the worker could run before it).
import './node_worker_scope.mjs';

await import('../../web/src/engine/worker');
