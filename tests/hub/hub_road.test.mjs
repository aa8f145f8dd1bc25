// The Hub road in Node (web/src/hub/: client, download, store, plan) and the download
// script (tools/hub_download.mjs), against the local stand-in for the Hub (hub_server.mjs):
// files verified and stored, a second open reads nothing, a cut download resumes with only
// the missing bytes, a flipped byte is caught and named, gated repositories need the token
// (which never reaches the file host), refusals come before any weight byte.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile, mkdir, copyFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startHub } from './hub_server.mjs';
import { HubClient, HubError, parseHubModel, hubModelName } from '../../web/src/hub/hub_client.mjs';
import { planHubModel, downloadWeights, weightChunks } from '../../web/src/hub/hub_open.mjs';
import { NodeHubStore } from '../../web/src/hub/hub_store_node.mjs';
import { twoShards } from '../js/shards.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FIX = `${ROOT}tests/fixtures/checkpoints/`;
const TOKEN = 'hf_test_token_not_secret';
let hub, tmp, sharded, unsupported, pickled;

before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'tfp-hub-road-'));
  // A sharded repository, an unsupported architecture, a repository of pickled weights only.
  sharded = join(tmp, 'sharded');
  await mkdir(sharded);
  const { shards, index } = twoShards(new Uint8Array(await readFile(`${FIX}gpt2_tiny/model.safetensors`)));
  for (const s of shards) await writeFile(join(sharded, s.name), s.bytes);
  await writeFile(join(sharded, 'model.safetensors.index.json'), index);
  await copyFile(`${FIX}gpt2_tiny/config.json`, join(sharded, 'config.json'));
  unsupported = join(tmp, 'unsupported');
  await mkdir(unsupported);
  await writeFile(join(unsupported, 'config.json'), JSON.stringify({ model_type: 'mamba', architectures: ['MambaForCausalLM'] }));
  await copyFile(`${FIX}gpt2_tiny/model.safetensors`, join(unsupported, 'model.safetensors'));
  pickled = join(tmp, 'pickled');
  await mkdir(pickled);
  await copyFile(`${FIX}gpt2_tiny/config.json`, join(pickled, 'config.json'));
  await writeFile(join(pickled, 'pytorch_model.bin'), new Uint8Array(4096));
  hub = await startHub({ repos: {
    'test/gpt2-tiny': { dir: `${FIX}gpt2_tiny`, files: ['config.json', 'model.safetensors'] },
    'test/bert-tiny': { dir: `${FIX}bert_tiny` },
    'test/bert-tiny-corrupt': { dir: `${FIX}bert_tiny` },
    'test/gpt2-sharded': { dir: sharded },
    'test/gated': { dir: `${FIX}gpt2_tiny`, files: ['config.json', 'model.safetensors'], token: TOKEN },
    'test/mamba': { dir: unsupported },
    'test/pickled': { dir: pickled },
  } });
});
after(async () => {
  await hub?.close();
  await rm(tmp, { recursive: true, force: true });
});

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');
const freshStore = async () => new NodeHubStore(await mkdtemp(join(tmp, 'store-')));
const weightRequests = () => hub.requests.filter((r) => r.path.endsWith('.safetensors') && r.method === 'GET');
/** A config check like the engine's: model_type among the families it reads. */
const checkConfig = (text) => {
  const t = JSON.parse(text).model_type;
  if (!['gpt2', 'bert', 'llama'].includes(t)) throw new Error(`config.json: unknown model_type "${t}" (supported: gpt2, bert, llama)`);
};

async function open(store, repo, options = {}) {
  const client = new HubClient({ hub: hub.url, token: options.token ?? null });
  const plan = await planHubModel({ client, store, repo, revision: options.revision ?? 'main', checkConfig });
  const seen = [];
  const parts = weightChunks(plan, { client, store, onProgress: (p) => seen.push(p) });
  const bytes = [];
  for (const w of parts) {
    const chunks = [];
    for await (const c of w.chunks) chunks.push(Buffer.from(c));
    bytes.push(Buffer.concat(chunks));
  }
  return { plan, bytes, seen };
}

test('names: hf:owner/name@revision parsed and written back; nonsense refused', () => {
  assert.deepEqual(parseHubModel('hf:Qwen/Qwen3-0.6B@v1.0'), { repo: 'Qwen/Qwen3-0.6B', revision: 'v1.0' });
  assert.deepEqual(parseHubModel('openai-community/gpt2'), { repo: 'openai-community/gpt2', revision: 'main' });
  assert.equal(hubModelName({ repo: 'a/b', revision: 'main' }), 'hf:a/b');
  assert.equal(hubModelName({ repo: 'a/b', revision: 'dev' }), 'hf:a/b@dev');
  for (const bad of ['gpt2', 'a/b/c', '../x/y', 'a/b@', 'a b/c', 'a/..'])
    assert.throws(() => parseHubModel(bad), (e) => e instanceof HubError && e.code === 'bad-name', bad);
});

test('a model opened by name: the same bytes as its files, progress to the total, never back', async () => {
  const store = await freshStore();
  hub.reset();
  const { plan, bytes, seen } = await open(store, 'test/gpt2-tiny');
  const file = await readFile(`${FIX}gpt2_tiny/model.safetensors`);
  assert.equal(plan.config, await readFile(`${FIX}gpt2_tiny/config.json`, 'utf8'));
  assert.equal(plan.tokenizer, null);
  assert.equal(sha256(bytes[0]), sha256(file));
  assert.equal(plan.missingBytes, file.length);
  for (let i = 1; i < seen.length; i++) assert.ok(seen[i].bytes >= seen[i - 1].bytes, 'progress went back');
  assert.equal(seen.at(-1).bytes, seen.at(-1).total);
  assert.equal(seen.at(-1).networkBytes, file.length);
  // The header was read by two Range requests before the weights were asked for.
  const ranges = hub.requests.filter((r) => r.origin === 'cdn' && r.range);
  assert.deepEqual(ranges.slice(0, 2).map((r) => r.range), ['bytes=0-7', `bytes=8-${7 + Number(file.readBigUInt64LE(0))}`]);
  // A second open reads nothing from the network but the file list.
  hub.reset();
  const again = await open(store, 'test/gpt2-tiny');
  assert.equal(hub.bytesSent(), 0);
  assert.equal(again.plan.missingBytes, 0);
  assert.equal(sha256(again.bytes[0]), sha256(file));
  assert.deepEqual(hub.requests.map((r) => r.path), ['/api/models/test/gpt2-tiny']);
});

test('a sharded repository: the index, then each shard, all verified', async () => {
  const store = await freshStore();
  const { plan, bytes } = await open(store, 'test/gpt2-sharded');
  assert.deepEqual(plan.weights.map((w) => w.name), ['model-00001-of-00002.safetensors', 'model-00002-of-00002.safetensors']);
  assert.ok(plan.index.includes('weight_map'));
  for (const [i, w] of plan.weights.entries()) assert.equal(sha256(bytes[i]), sha256(await readFile(join(sharded, w.name))));
});

test('a download cut halfway resumes from the bytes stored: only the missing bytes are sent', async () => {
  const store = await freshStore();
  const file = await readFile(`${FIX}bert_tiny/model.safetensors`);
  const client = new HubClient({ hub: hub.url });
  const plan = await planHubModel({ client, store, repo: 'test/bert-tiny', checkConfig });
  const cut = Math.floor(file.length / 2);
  hub.dropAfter('model.safetensors', cut);
  await assert.rejects(downloadWeights(plan, { client, store }), (e) => e instanceof HubError && e.code === 'offline' && /resumes/.test(e.message));
  hub.reset();
  const { bytes } = await open(store, 'test/bert-tiny');
  assert.equal(sha256(bytes[0]), sha256(file));
  assert.equal(hub.bytesSentFor('test/bert-tiny', 'model.safetensors'), file.length - cut);
  assert.ok(hub.requests.some((r) => r.range === `bytes=${cut}-`), 'the rest was asked for with a Range request');
});

test('a flipped byte is caught, named, and the stored copy discarded', async () => {
  const store = await freshStore();
  const client = new HubClient({ hub: hub.url });
  const repo = 'test/bert-tiny-corrupt';
  const plan = await planHubModel({ client, store, repo, checkConfig });
  hub.corrupt(repo, 'model.safetensors', 5000);
  await assert.rejects(downloadWeights(plan, { client, store }),
    (e) => e instanceof HubError && e.code === 'checksum' && e.details.file === 'model.safetensors' && /model\.safetensors/.test(e.message));
  const key = { hub: client.hub, repo, commit: plan.commit, file: 'model.safetensors' };
  assert.equal(await store.complete(key), null);
  assert.equal((await store.partial(key)).bytes, 0);
});

test('a gated repository: needs-token without it, bad-token with a wrong one, opens with it; the file host never sees it', async () => {
  const store = await freshStore();
  await assert.rejects(open(store, 'test/gated'), (e) => e.code === 'needs-token');
  await assert.rejects(open(store, 'test/gated', { token: 'wrong' }), (e) => e.code === 'bad-token');
  hub.reset();
  const { bytes } = await open(store, 'test/gated', { token: TOKEN });
  assert.equal(bytes[0].length, (await readFile(`${FIX}gpt2_tiny/model.safetensors`)).length);
  assert.ok(hub.requests.some((r) => r.origin === 'hub' && r.authorization === `Bearer ${TOKEN}`));
  for (const r of hub.requests.filter((x) => x.origin === 'cdn')) assert.equal(r.authorization, null);
  for (const r of hub.requests) assert.ok(!r.path.includes(TOKEN));
});

test('refusals before any weight byte: an unknown architecture, pickled weights only, missing repository or revision', async () => {
  const store = await freshStore();
  hub.reset();
  await assert.rejects(open(store, 'test/mamba'), (e) => e.code === 'unsupported' && /mamba/.test(e.message) && /gpt2/.test(e.message));
  assert.deepEqual(weightRequests(), []);
  await assert.rejects(open(store, 'test/pickled'), (e) => e.code === 'no-safetensors' && /pytorch_model\.bin/.test(e.message));
  assert.deepEqual(await store.list(), [], 'a refused repository is not kept');
  await assert.rejects(open(store, 'test/none'), (e) => e.code === 'not-found');
  await assert.rejects(open(store, 'test/gpt2-tiny', { revision: 'no-such-branch' }), (e) => e.code === 'revision-not-found');
  assert.deepEqual(weightRequests(), []);
});

test('offline: a revision stored before opens from the store; one never stored says so', async () => {
  const store = await freshStore();
  await open(store, 'test/gpt2-tiny');
  const offline = new HubClient({ hub: 'http://127.0.0.1:9', fetch: () => Promise.reject(new TypeError('fetch failed')) });
  const plan = await planHubModel({ client: offline, store, repo: 'test/gpt2-tiny', checkConfig }).catch((e) => e);
  // Stored under the stand-in's address, not this one: not found offline.
  assert.equal(plan.code, 'offline');
  const sameHub = new HubClient({ hub: hub.url, fetch: () => Promise.reject(new TypeError('fetch failed')) });
  const again = await planHubModel({ client: sameHub, store, repo: 'test/gpt2-tiny', checkConfig });
  assert.equal(again.offline, true);
  assert.equal(again.missingBytes, 0);
  const list = await store.list();
  assert.equal(list.length, 1);
  assert.equal(list[0].repo, 'test/gpt2-tiny');
  assert.deepEqual(list[0].revisions, ['main']);
  await store.remove(list[0].hub, list[0].repo, list[0].commit);
  assert.deepEqual(await store.list(), []);
});

test('tools/hub_download.mjs: a folder tfp opens, a second run sends no file bytes, errors as JSON', async () => {
  const run = promisify(execFile);
  const env = { ...process.env, TFP_HUB_CACHE: join(tmp, 'script-cache') };
  const dir = join(tmp, 'script-out');
  hub.reset();
  const { stdout } = await run('node', ['tools/hub_download.mjs', 'test/gpt2-sharded', dir, '--hub', hub.url, '--quiet'], { cwd: ROOT, env });
  const out = JSON.parse(stdout);
  assert.deepEqual(out.files, ['config.json', 'model.safetensors.index.json', 'model-00001-of-00002.safetensors', 'model-00002-of-00002.safetensors']);
  for (const f of out.files) assert.equal(sha256(await readFile(join(dir, f))), sha256(await readFile(join(sharded, f))));
  hub.reset();
  await run('node', ['tools/hub_download.mjs', 'test/gpt2-sharded', dir, '--hub', hub.url, '--quiet'], { cwd: ROOT, env });
  assert.equal(hub.bytesSent(), 0);
  const failed = await run('node', ['tools/hub_download.mjs', 'test/gated', dir, '--hub', hub.url], { cwd: ROOT, env }).catch((e) => e);
  assert.equal(failed.code, 1);
  assert.equal(JSON.parse(failed.stderr.trim().split('\n').at(-1)).code, 'needs-token');
});
