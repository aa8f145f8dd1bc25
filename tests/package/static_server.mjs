// A bare static file server for a folder, as any static host is: files with their types,
// nothing else; `isolated` adds the two headers that make a page cross-origin isolated,
// `cors` lets pages of other origins read the files (a CDN).
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import { extname, join, normalize } from 'node:path';

const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css',
                '.json': 'application/json', '.wasm': 'application/wasm', '.safetensors': 'application/octet-stream' };

/** Serves `root` on a free port of 127.0.0.1; returns { url, close() }. */
export async function serveFolder(root, { isolated = false, cors = false } = {}) {
  const server = createServer(async (req, res) => {
    const path = normalize(join(root, decodeURIComponent(new URL(req.url, 'http://x').pathname)));
    const file = path.endsWith('/') ? join(path, 'index.html') : path;
    const info = path.startsWith(root) ? await stat(file).catch(() => null) : null;
    if (!info?.isFile()) {
      res.writeHead(404).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'content-length': info.size,
                         ...(isolated ? { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' } : {}),
                         ...(cors ? { 'access-control-allow-origin': '*' } : {}) });
    createReadStream(file).pipe(res);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/`, close: () => new Promise((resolve) => server.close(resolve)) };
}
