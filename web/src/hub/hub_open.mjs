// The road from a repository id to the engine, in the order that lets the reader stop early:
//   1. the file list (model info) at the revision, and the commit it resolves to (stored:
//      offline, a revision opened before still opens from the store);
//   2. config.json, checked by the engine's own rule (checkConfig) before any weight byte is
//      asked for, then tokenizer.json, and the index of a sharded checkpoint;
//   3. each weight file's safetensors header, by Range requests (8 bytes, then the header):
//      the caller shows the memory estimate and the precision choice from them;
//   4. the weights, each file a stream of chunks (hub_download.mjs) that the engine's
//      streamed load reads as they arrive, stored and verified on the way.
// Plain JavaScript with no DOM (typed by hub_open.d.mts): the page and Node share it.
import { HubError, isCommit, pickWeights } from './hub_client.mjs';
import { fileBytes, fileRange, smallFile } from './hub_download.mjs';
import { shardNames } from '../engine/shard_names.mjs';

/** The largest safetensors header read (the engine's own limit is the same order). */
const MAX_HEADER_BYTES = 100_000_000;

/** Step 1: { commit, files, offline } from the hub, else (unreachable) from the store. */
async function resolveRevision({ client, store, repo, revision, signal }) {
  try {
    const info = await client.modelInfo(repo, revision, signal);
    await store.setRef(client.hub, repo, revision, info.commit);
    const meta = (await store.getMeta(client.hub, repo, info.commit)) ?? {};
    await store.setMeta(client.hub, repo, info.commit, { ...meta, hub: client.hub, repo, files: info.files, lastUsed: Date.now() });
    return { commit: info.commit, files: info.files, offline: false };
  } catch (e) {
    if (!(e instanceof HubError) || e.code !== 'offline') throw e;
    const commit = isCommit(revision) ? revision : await store.getRef(client.hub, repo, revision);
    const meta = commit ? await store.getMeta(client.hub, repo, commit) : null;
    if (!meta?.files) throw new HubError('offline', `${e.message}; ${repo}@${revision} is not stored here either`);
    await store.setMeta(client.hub, repo, commit, { ...meta, lastUsed: Date.now() });
    return { commit, files: meta.files, offline: true };
  }
}

/**
 * Steps 1–3: what the repository holds and what loading it takes, nothing of the weights
 * but their headers. checkConfig(text) throws (any error) where the engine refuses the
 * config; it becomes HubError 'unsupported'. Returns { repo, revision, commit, offline,
 * config, tokenizer, index, weights: [{ name, size, sha256, key, head }], storedBytes,
 * missingBytes } (head: the file's first 8 + header bytes).
 */
export async function planHubModel({ client, store, repo, revision = 'main', signal, checkConfig = () => {} }) {
  const { commit, files, offline } = await resolveRevision({ client, store, repo, revision, signal });
  const key = (file) => ({ hub: client.hub, repo, commit, file });
  if (!files['config.json']) throw new HubError('file-not-found', `${repo} has no config.json: not a model repository this page can open`);
  const config = await smallFile({ client, store, key: key('config.json'), signal });
  // A revision the engine cannot open is not kept (nor listed among the stored models).
  const forget = () => store.remove(client.hub, repo, commit).catch(() => {});
  try {
    await checkConfig(config);
  } catch (e) {
    await forget();
    throw new HubError('unsupported', e instanceof Error ? e.message : String(e));
  }
  const tokenizer = files['tokenizer.json'] ? await smallFile({ client, store, key: key('tokenizer.json'), signal }) : null;
  let pick;
  try {
    pick = pickWeights(files);
  } catch (e) {
    await forget();
    throw e;
  }
  let names;
  let index = null;
  if (pick.index) {
    index = await smallFile({ client, store, key: key(pick.index), signal });
    try {
      names = shardNames(index, `${repo}/${pick.index}`);
    } catch (e) {
      throw new HubError('http', e.message);
    }
    for (const n of names) if (!files[n]) throw new HubError('file-not-found', `${repo}/${pick.index} names ${n}, which the repository does not hold`);
  } else {
    names = [pick.single];
  }
  const weights = [];
  let storedBytes = 0;
  for (const name of names) {
    const { size, sha256 } = files[name];
    if (!Number.isSafeInteger(size) || size < 8) throw new HubError('http', `${repo}/${name}: the hub lists no size for it`);
    const k = key(name);
    const first = await fileRange({ client, store, key: k, start: 0, end: 8, signal });
    const n = first.length === 8 ? Number(new DataView(first.buffer, first.byteOffset, 8).getBigUint64(0, true)) : -1;
    if (n <= 0 || 8 + n > size || n > MAX_HEADER_BYTES)
      throw new HubError('http', `${repo}/${name}: not a safetensors file (its header length ${n} does not fit its ${size} bytes)`);
    const header = await fileRange({ client, store, key: k, start: 8, end: 8 + n, signal });
    const head = new Uint8Array(8 + n);
    head.set(first);
    head.set(header, 8);
    const stored = (await store.complete(k)) ? size : (await store.partial(k)).bytes;
    storedBytes += stored;
    weights.push({ name, size, sha256, key: k, head, stored });
  }
  const total = weights.reduce((a, w) => a + w.size, 0);
  return { hub: client.hub, repo, revision, commit, offline, config, tokenizer, index, weights, storedBytes, missingBytes: total - storedBytes };
}

/** A weight file as the memory estimate reads it (checkpoint_memory.ts): its size, and
 *  slices of the header bytes already read. */
export function headerSource(w) {
  return {
    name: w.name,
    file: {
      size: w.size,
      slice: (start = 0, end = w.size) => {
        if (end > w.head.length) throw new Error(`${w.name}: only the header was read`);
        return new Blob([w.head.subarray(start, end)]);
      },
    },
  };
}

/**
 * Progress over every weight file: per file bytes and totals, the bytes that came from the
 * network, their rate and the time left. Never goes back: a file replayed from the store
 * counts as read.
 */
export class HubProgress {
  constructor(weights, now = () => Date.now()) {
    this.now = now;
    this.files = weights.map((w) => ({ name: w.name, bytes: 0, total: w.size, stored: w.stored }));
    this.networkBytes = 0;
    this.networkTotal = weights.reduce((a, w) => a + w.size - w.stored, 0);
    this.started = null;
  }
  /** File i has `bytes` read, `net` of them from the network (this run). */
  update(i, bytes, net) {
    const f = this.files[i];
    f.bytes = Math.max(f.bytes, bytes);
    const before = f.net ?? 0;
    f.net = net;
    this.networkBytes += Math.max(0, net - before);
    if (net > 0 && this.started === null) this.started = this.now();
  }
  snapshot() {
    const bytes = this.files.reduce((a, f) => a + f.bytes, 0);
    const total = this.files.reduce((a, f) => a + f.total, 0);
    const seconds = this.started === null ? 0 : (this.now() - this.started) / 1000;
    const rate = seconds > 0.2 ? this.networkBytes / seconds : 0;
    const left = Math.max(0, this.networkTotal - this.networkBytes);
    return {
      files: this.files.map(({ name, bytes: b, total: t }) => ({ name, bytes: b, total: t })),
      bytes, total, networkBytes: this.networkBytes, networkTotal: this.networkTotal,
      bytesPerSecond: rate, secondsLeft: rate > 0 ? left / rate : null,
    };
  }
}

/**
 * Step 4: each weight file as { name, size, chunks } where chunks is an async iterator of
 * its bytes (from the store, then the network), in the plan's order. onProgress(snapshot).
 */
export function weightChunks(plan, { client, store, signal, onProgress = () => {}, now }) {
  const progress = new HubProgress(plan.weights, now);
  return plan.weights.map((w, i) => ({
    name: w.name,
    size: w.size,
    chunks: fileBytes({
      client, store, key: w.key, size: w.size, sha256: w.sha256, signal,
      report: (bytes, net) => {
        progress.update(i, bytes, net);
        onProgress(progress.snapshot());
      },
    }),
  }));
}

/** Every weight file read to its end (stored and verified) without loading it: the Node
 *  download script's road, and a way to fill the store ahead of time. */
export async function downloadWeights(plan, options) {
  for (const w of weightChunks(plan, options)) for await (const _ of w.chunks) { /* stored as it passes */ }
}
