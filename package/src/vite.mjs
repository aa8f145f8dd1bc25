// A Vite plugin for pages that use the package: `plugins: [transformerPlayground()]`.
//   - keeps the package out of dependency pre-bundling (which would move its modules away
//     from the worker, .wasm files and models they find relative to themselves);
//   - bundles workers as classic scripts (the threaded engine's pthread worker is one, which
//     Vite's 'es' format would break; the engine's own worker works either way);
//   - copies the shipped models a page names (default: all) into the build, where
//     shippedModel() looks for them: beside the folder of the built chunks.
import { readFile, readdir } from 'node:fs/promises';
import { posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SHIPPED_MODELS } from './shipped_models.mjs';

export default function transformerPlayground({ models = SHIPPED_MODELS } = {}) {
  let assetsDir = 'assets';
  return {
    name: 'transformer-playground',
    config: () => ({ optimizeDeps: { exclude: ['transformer-playground'] }, worker: { format: 'iife' } }),
    configResolved(config) {
      assetsDir = config.build.assetsDir;
    },
    async generateBundle() {
      for (const name of models) {
        if (!SHIPPED_MODELS.includes(name)) this.error(`no shipped model "${name}": the package has ${SHIPPED_MODELS.join(', ')}`);
        const dir = fileURLToPath(new URL(`../models/${name}/`, import.meta.url));
        for (const file of await readdir(dir)) {
          this.emitFile({ type: 'asset', fileName: posix.join(assetsDir, '..', 'models', name, file), source: await readFile(`${dir}${file}`) });
        }
      }
    },
  };
}
