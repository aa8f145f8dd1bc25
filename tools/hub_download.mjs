#!/usr/bin/env node
// Downloads what the engine needs of a Hugging Face Hub repository into a folder that `tfp`
// opens (config.json, tokenizer.json, model.safetensors or the index and its shards), by the
// page's own road (web/src/hub/): streamed, resumable (run it again after a cut), every large
// file checked against the SHA-256 the hub publishes, kept in a cache folder
// (~/.cache/transformer-playground/hub, or $TFP_HUB_CACHE) and linked into DIR.
//
//   node tools/hub_download.mjs HuggingFaceTB/SmolLM2-135M ~/SmolLM2-135M
//   node tools/hub_download.mjs Qwen/Qwen3-0.6B@main DIR --hub https://hf-mirror.com
//   HF_TOKEN=hf_… node tools/hub_download.mjs google/gemma-3-270m DIR     # a gated repository
//
// The token is read from $HF_TOKEN only (never an argument: those show in process lists).
// Prints one JSON line: { repo, commit, folder, files, bytes, fromNetwork }.
import { link, mkdir, copyFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { DEFAULT_HUB, HubClient, HubError, parseHubModel } from '../web/src/hub/hub_client.mjs';
import { downloadWeights, planHubModel } from '../web/src/hub/hub_open.mjs';
import { NodeHubStore } from '../web/src/hub/hub_store_node.mjs';

function usage(message) {
  if (message) console.error(JSON.stringify({ error: message }));
  console.error('usage: node tools/hub_download.mjs OWNER/NAME[@REVISION] DIR [--hub URL] [--quiet]');
  process.exit(2);
}

const args = process.argv.slice(2);
const positional = [];
let hub = process.env.TFP_HUB || DEFAULT_HUB;
let quiet = false;
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--hub') hub = args[++i] ?? usage('--hub needs an address');
  else if (args[i] === '--quiet') quiet = true;
  else if (args[i] === '--help' || args[i] === '-h') usage();
  else if (args[i].startsWith('--')) usage(`unknown option ${args[i]}`);
  else positional.push(args[i]);
}
if (positional.length !== 2) usage();

/** A hard link where the cache and the folder share a file system, else a copy. */
async function place(from, to) {
  await rm(to, { force: true });
  await link(from, to).catch(() => copyFile(from, to));
}

try {
  const { repo, revision } = parseHubModel(positional[0]);
  const folder = resolve(positional[1]);
  const client = new HubClient({ hub, token: process.env.HF_TOKEN || null });
  const store = new NodeHubStore();
  const plan = await planHubModel({ client, store, repo, revision });
  let lastShown = 0;
  await downloadWeights(plan, {
    client, store,
    onProgress: (p) => {
      if (quiet || Date.now() - lastShown < 1000) return;
      lastShown = Date.now();
      const mb = (b) => (b / 1e6).toFixed(1);
      process.stderr.write(`${mb(p.bytes)} / ${mb(p.total)} MB, ${mb(p.bytesPerSecond)} MB/s${p.secondsLeft !== null ? `, ${Math.ceil(p.secondsLeft)} s left` : ''}\n`);
    },
  });
  await mkdir(folder, { recursive: true });
  const key = (file) => ({ hub: client.hub, repo, commit: plan.commit, file });
  const files = ['config.json', ...(plan.tokenizer !== null ? ['tokenizer.json'] : []),
    ...(plan.index !== null ? ['model.safetensors.index.json'] : []), ...plan.weights.map((w) => w.name)];
  for (const f of files) await place(store.path(key(f)), join(folder, f));
  console.log(JSON.stringify({ repo, commit: plan.commit, folder, files,
    bytes: plan.weights.reduce((a, w) => a + w.size, 0), fromNetwork: plan.missingBytes }));
} catch (e) {
  console.error(JSON.stringify({ error: e instanceof HubError ? e.message : String(e?.stack ?? e), ...(e instanceof HubError ? { code: e.code } : {}) }));
  process.exit(1);
}
