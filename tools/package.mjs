// Builds the npm package in package/ (npm pack package/ then makes the tarball):
//   dist/browser.js  the Engine for a page (its worker dist/worker.js, the .wasm in dist/wasm/)
//   dist/elements.js the custom elements (<tfp-model>, <tfp-attention>, …), on the same engine
//   dist/vite.js     a Vite plugin for pages that use it (models copied, no pre-bundling)
//   dist/node.js     the same Engine in Node, its worker a thread (dist/node_worker.js)
//   dist/index.d.ts  the types (web/src/engine's, emitted by tsc)
//   models/          the shipped models
// Every worker and .wasm is found relative to the module that asks for it (import.meta.url),
// so the files must stay side by side: chunks are written beside the entries.
// Needs the WASM module built (tools/build.sh module) and the declarations (types).
import { build } from 'rolldown';
import { cp, mkdir, readFile, rm, writeFile, readdir } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = fileURLToPath(new URL('../', import.meta.url));
const out = `${root}package/`;
const wasmDir = `${root}web/src/engine/wasm/`;
if (!existsSync(`${wasmDir}tfp.wasm`) || !existsSync(`${wasmDir}tfp_mt.wasm`))
  throw new Error(`${wasmDir} lacks the module: run tools/build.sh module first`);

/** The Emscripten modules stay files of their own beside the bundles (they find their
 *  .wasm and pthread workers relative to themselves); start_worker.ts's worker is the
 *  bundled worker.js. */
const packagePaths = {
  name: 'tfp-package-paths',
  resolveId(source, importer) {
    if (/^\.\/wasm\/tfp(_mt)?\.mjs$/.test(source)) return { id: source, external: true };
    if (source.startsWith('node:')) return { id: source, external: true };
    if (source.endsWith('.css?inline') && importer) return { id: join(dirname(importer), source) };
    return null;
  },
  // A stylesheet imported as its text (Vite's ?inline, which the pages' build does itself).
  async load(id) {
    if (!id.endsWith('.css?inline')) return null;
    return `export default ${JSON.stringify(await readFile(id.slice(0, -'?inline'.length), 'utf8'))};`;
  },
  transform(code, id) {
    if (!id.endsWith('/start_worker.ts')) return null;
    if (!code.includes("'./worker.ts'")) throw new Error('start_worker.ts no longer names ./worker.ts');
    return code.replaceAll("'./worker.ts'", "'./worker.js'");
  },
};

await rm(`${out}dist`, { recursive: true, force: true });
await build({
  input: {
    browser: `${out}src/browser.mjs`,
    elements: `${out}src/elements.mjs`,
    vite: `${out}src/vite.mjs`,
    worker: `${root}web/src/engine/worker.ts`,
    node: `${out}src/node.mjs`,
    node_worker: `${out}src/node_worker.mjs`,
  },
  platform: 'browser',  // hash-wasm's browser build; node: imports stay imports
  plugins: [packagePaths],
  output: { dir: `${out}dist`, format: 'esm', entryFileNames: '[name].js', chunkFileNames: 'shared-[hash].js' },
  logLevel: 'warn',
});
await mkdir(`${out}dist/wasm`, { recursive: true });
for (const f of await readdir(wasmDir)) if (!f.endsWith('.d.mts')) await cp(`${wasmDir}${f}`, `${out}dist/wasm/${f}`);

// Types: tsc's declarations of the engine, with the entries' additions.
const types = `${root}build/package-types/`;
await rm(types, { recursive: true, force: true });
execFileSync(`${root}node_modules/.bin/tsc`, ['-p', `${out}tsconfig.types.json`, '--outDir', types], { stdio: 'inherit' });
await cp(types, `${out}dist/types/`, { recursive: true });
// The hand-written declarations of the .mjs sources tsc reads but does not re-emit.
for (const dir of ['engine', 'hub']) {
  for (const f of await readdir(`${root}web/src/${dir}/`)) {
    if (f.endsWith('.d.mts')) await cp(`${root}web/src/${dir}/${f}`, `${out}dist/types/${dir}/${f}`);
  }
}
// The module's own declarations (the Learn calls' types name it).
await mkdir(`${out}dist/types/engine/wasm`, { recursive: true });
await cp(`${wasmDir}tfp.d.mts`, `${out}dist/types/engine/wasm/tfp.d.mts`);
// The entries' declarations: the engine's (tsc's) and the shipped models' (package/src).
await cp(`${out}src/shipped_models.d.mts`, `${out}dist/shipped_models.d.mts`);
await writeFile(`${out}dist/index.d.ts`, "export * from './types/engine/engine';\nexport * from './shipped_models.mjs';\n");
await writeFile(`${out}dist/elements.d.ts`, "export * from './types/elements/index';\n");
await writeFile(`${out}dist/vite.d.ts`, [
  '/** The Vite plugin for pages that use the package (copies the shipped models named). */',
  "export default function transformerPlayground(options?: { models?: string[] }): { name: 'transformer-playground' } & Record<string, unknown>;",
  '',
].join('\n'));

// The shipped models.
await rm(`${out}models`, { recursive: true, force: true });
const { SHIPPED_MODELS } = await import(`${out}src/shipped_models.mjs`);
for (const name of SHIPPED_MODELS) {
  await mkdir(`${out}models/${name}`, { recursive: true });
  for (const f of ['config.json', 'model.safetensors', 'tokenizer.json', 'README.md'])
    if (existsSync(`${root}models/${name}/${f}`)) await cp(`${root}models/${name}/${f}`, `${out}models/${name}/${f}`);
}
const version = JSON.parse(await readFile(`${out}package.json`, 'utf8')).version;
console.log(`package/ built: transformer-playground ${version}`);
