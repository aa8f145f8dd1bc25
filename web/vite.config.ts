// Vite serves and builds the pages in web/ (`vite web`, `vite build web`).
// COOP/COEP make the page cross-origin isolated, which a threaded (SharedArrayBuffer)
// build of the engine will need; they cost nothing now since every asset is our own.
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { precachePlugin } from './plugins/precache_plugin.ts';
import { cspPlugin } from './plugins/csp_plugin.ts';
import { preloadPlugin } from './plugins/preload_plugin.ts';
import { weightsTypePlugin } from './plugins/weights_type_plugin.ts';
import { precompressedPlugin } from './plugins/precompressed_plugin.ts';

// Every page: each .html file in web/ (index.html = the playground, lab.html, ...) and
// in its page folders (learn/index.html = the Learn contents, learn/<chapter>.html).
const webDir = fileURLToPath(new URL('.', import.meta.url));
const PAGE_DIRS = ['', 'learn/'];
// TFP_PAGES="index,learn/softmax" builds only those pages (a quick look at one page).
const only = process.env.TFP_PAGES?.split(',').map((p) => p.trim()).filter(Boolean);
const pages = Object.fromEntries(PAGE_DIRS.flatMap((dir) =>
  readdirSync(`${webDir}${dir}`).filter((f) => f.endsWith('.html'))
    .map((f) => [`${dir}${f.replace(/\.html$/, '')}`, `${webDir}${dir}${f}`]))
  .filter(([name]) => !only || only.includes(name)));

const isolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

// The pages import the engine and the elements by the package's name, as an outside page
// does (package/): the same entry files the package is built from.
const packageSrc = fileURLToPath(new URL('../package/src/', import.meta.url));

export default defineConfig({
  base: './',
  resolve: {
    alias: [
      { find: /^transformer-playground$/, replacement: `${packageSrc}browser.mjs` },
      { find: /^transformer-playground\/elements$/, replacement: `${packageSrc}elements.mjs` },
    ],
  },
  // Production builds: sw.js precaches the build so every page works offline.
  // Every page, built or served: one Content-Security-Policy (plugins/csp_plugin.ts).
  // Production builds: the playground's main.ts is fetched with its entry (plugins/preload_plugin.ts).
  // Served: model weights as application/octet-stream, not gzipped on the fly (plugins/weights_type_plugin.ts).
  plugins: [precachePlugin(), cspPlugin(), preloadPlugin(), weightsTypePlugin(), precompressedPlugin()],
  server: { headers: isolation },
  preview: { headers: isolation },
  // Workers are bundled as classic scripts: the threaded engine's pthread worker
  // (wasm/tfp_mt.worker.js, engine/load_module.ts) is a classic worker, which 'es' breaks.
  // 'iife' inlines the engine worker's dynamic imports and forbids top-level await there.
  worker: { format: 'iife' },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    rollupOptions: { input: pages },
    // Every asset stays a file of the site, never an inlined data: URL: the module's .wasm,
    // the models' small config.json (fetched: the CSP's connect-src is 'self' only) and
    // KaTeX's fonts (font-src 'self').
    assetsInlineLimit: 0,
  },
});
