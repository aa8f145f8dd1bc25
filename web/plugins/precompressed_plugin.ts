// A Vite plugin for `vite preview` (npm run preview, the browser tests, the page benchmark):
// the build's hashed text assets (assets/*.js, .css, .json) are gzipped once, when the
// server starts, and sent from memory, as a static host or CDN sends them. Vite's preview
// otherwise gzips every response again on every request, on the one thread that serves
// them and on the CPU that also runs the page: a cold playground load asks for ~25 such
// files at once and got its scripts ~30–80 ms later (measured on a 2-vCPU machine).
// A hashed file never changes under its name, so nothing goes stale; anything else (pages,
// the .wasm, the weights, a request without gzip in Accept-Encoding) is served as before.
import { readdirSync, readFileSync } from 'node:fs';
import { extname, join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Connect, Plugin } from 'vite';

// The types the preview's own static server gives these files.
const TYPES: Record<string, string> = { '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json' };

interface Packed { type: string; body: Buffer }

/** Every text asset under `dir`/assets, gzipped, by its URL path ("/assets/x-hash.js"). */
function packAssets(dir: string): Map<string, Packed> {
  const packed = new Map<string, Packed>();
  let names: string[] = [];
  try {
    names = readdirSync(join(dir, 'assets'));
  } catch {
    return packed;  // no build yet: the preview server reports that itself
  }
  for (const name of names) {
    const type = TYPES[extname(name)];
    if (type) packed.set(`/assets/${name}`, { type, body: gzipSync(readFileSync(join(dir, 'assets', name)), { level: 9 }) });
  }
  return packed;
}

export function precompressedPlugin(): Plugin {
  return {
    name: 'tfp-precompressed',
    apply: 'serve',
    configurePreviewServer(server) {
      const { root, build, preview } = server.config;
      const packed = packAssets(resolve(root, build.outDir));
      const headers = preview.headers ?? {};
      const send: Connect.NextHandleFunction = (req, res, next) => {
        const path = (req.url ?? '').split(/[?#]/)[0] ?? '';
        const hit = req.method === 'GET' ? packed.get(path) : undefined;
        if (!hit || !/\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) return next();
        for (const [name, value] of Object.entries(headers)) if (value !== undefined) res.setHeader(name, value as string);
        res.setHeader('Content-Type', hit.type);
        res.setHeader('Content-Encoding', 'gzip');
        res.setHeader('Content-Length', hit.body.length);
        res.setHeader('Vary', 'Accept-Encoding');
        res.setHeader('Cache-Control', 'no-cache');
        res.end(hit.body);
      };
      server.middlewares.use(send);
    },
  };
}
