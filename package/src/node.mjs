// The package's entry in Node (>= 20.19): the same Engine as in a browser (web/src/engine/),
// its worker in a worker thread, model addresses relative to the working directory (a
// path, a file: URL or an http(s) URL; folders on disk are read from disk), Hub files in a
// cache folder (~/.cache/transformer-playground/hub or $TFP_HUB_CACHE), the hub and token
// from $HF_ENDPOINT and $HF_TOKEN when a load names none.
import { pathToFileURL } from 'node:url';
import { setPlatform } from '../../web/src/engine/platform';
import { NodeHubStore } from '../../web/src/hub/hub_store_node.mjs';
import { ThreadWorker } from './thread_worker.mjs';

setPlatform({
  startWorker: (name) => new ThreadWorker(new URL('./node_worker.js', import.meta.url), name),
  base: () => pathToFileURL(`${process.cwd()}/`).href,
  hubStore: async () => new NodeHubStore(),
  // Hugging Face's own variables (huggingface_hub reads them too): a mirror, a token.
  hubDefaults: () => ({ ...(process.env.HF_ENDPOINT ? { hub: process.env.HF_ENDPOINT } : {}),
                        ...(process.env.HF_TOKEN ? { token: process.env.HF_TOKEN } : {}) }),
});

export * from '../../web/src/engine/engine';
export { shippedModel, SHIPPED_MODELS } from './shipped_models.mjs';
