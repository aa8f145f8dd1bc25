// What the engine's worker (web/src/engine/worker.ts, written for a Web Worker) finds in a
// Node worker thread: `self` with its name, postMessage, onmessage and close, and a fetch
// that reads file: URLs (Node 20's fetch refuses them), which is how the worker reads the
// .wasm beside this file and a model folder on disk. Imported before the worker itself.
import { parentPort, workerData } from 'node:worker_threads';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';

const scope = globalThis;
scope.self = scope;
scope.name = workerData?.name ?? 'tfp-engine';
scope.postMessage = (message, transfer) => parentPort.postMessage(message, transfer);
scope.close = () => process.exit(0);
// Messages that come before worker.ts has set onmessage wait for it, in order.
let handler = null;
const waiting = [];
Object.defineProperty(scope, 'onmessage', {
  configurable: true,
  get: () => handler,
  set(h) {
    handler = h;
    while (handler && waiting.length > 0) handler({ data: waiting.shift() });
  },
});
parentPort.on('message', (data) => (handler ? handler({ data }) : waiting.push(data)));

const TYPES = { '.wasm': 'application/wasm', '.json': 'application/json' };
const typeOf = (path) => TYPES[path.slice(path.lastIndexOf('.'))] ?? 'application/octet-stream';

const networkFetch = globalThis.fetch;
/** A file: URL as an HTTP server would answer it (200 with its length, or 404), streamed. */
async function fileResponse(url) {
  const path = fileURLToPath(url);
  const info = await stat(path).catch(() => null);
  if (!info?.isFile()) return new Response(null, { status: 404, statusText: `no file ${path}` });
  const body = Readable.toWeb(createReadStream(path));
  return new Response(body, { headers: { 'content-type': typeOf(path), 'content-length': String(info.size) } });
}
scope.fetch = (input, init) => {
  const href = input instanceof Request ? input.url : String(input);
  return href.startsWith('file:') ? fileResponse(new URL(href)) : networkFetch(input, init);
};
