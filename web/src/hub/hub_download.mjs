// One file of a Hub repository, downloaded into a store (hub_store_*.mjs) as it is read:
// what the store already holds comes first, then the rest from the network by a Range
// request, so a download cut short resumes where it stopped. Every byte is hashed as it
// passes (SHA-256, hash-wasm: its state is saved with each stored piece, so a resumed file
// is not hashed again from its start); at the end the digest must equal the one the hub
// publishes for the file (model info's lfs.sha256), else the stored copy is discarded and
// the file named. A consumer (the engine's streamed load) reads the same bytes as they
// arrive: the file is never held whole in memory, and never twice.
import { createSHA256 } from 'hash-wasm';
import { HubError } from './hub_client.mjs';

/** Bytes kept in memory before they are written to the store as one piece: a cut loses at
 *  most this much (a tab closed mid-piece); a lost connection writes what it has. */
export const PIECE_BYTES = 16 << 20;

/** A Blob's bytes, chunk by chunk. */
export async function* blobChunks(blob) {
  const reader = blob.stream().getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

function joined(chunks, n) {
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(n);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** A small file (config.json, tokenizer.json, the index): from the store, else fetched and
 *  stored; its text. */
export async function smallFile({ client, store, key, signal }) {
  const stored = await store.complete(key);
  if (stored) return stored.text();
  const text = await client.text(key.repo, key.commit, key.file, signal);
  await store.put(key, new TextEncoder().encode(text));
  return text;
}

/** Bytes [start, end) of a file, read from what the store holds when it covers them (the
 *  header of a file stored or half stored), else by a Range request. */
export async function fileRange({ client, store, key, start, end, signal }) {
  const done = await store.complete(key);
  const part = done ? null : await store.partial(key);
  const blob = done ?? (part && part.bytes >= end ? part.blob : null);
  if (blob) return new Uint8Array(await blob.slice(start, end).arrayBuffer());
  return client.range(key.repo, key.commit, key.file, start, end, signal);
}

/**
 * The file's bytes as an async iterator of chunks (see the top of this file). size: the
 * listed size; sha256: the published digest (null: not checked, a small file kept in git).
 * report(bytesRead, bytesFromNetwork) after each chunk. Throws HubError: checksum,
 * cancelled, offline (the connection lost: what arrived is kept for the next try), http.
 */
export async function* fileBytes({ client, store, key, size, sha256, signal, report = () => {} }) {
  const done = await store.complete(key);
  if (done) {
    let at = 0;
    for await (const c of blobChunks(done)) {
      at += c.length;
      report(at, 0);
      yield c;
    }
    return;
  }
  const hasher = await createSHA256();
  hasher.init();
  let part = await store.partial(key);
  if (part.bytes > size) {
    await store.discard(key);
    part = { bytes: 0, state: null, blob: null };
  }
  // Ask for the rest before replaying what is stored: a server that ignores the range sends
  // the whole file, and the stored part is then dropped, not replayed.
  const { response, start } = part.bytes < size
    ? await client.from(key.repo, key.commit, key.file, part.bytes, signal)
    : { response: null, start: part.bytes };
  if (start !== part.bytes) {
    await store.discard(key);
    part = { bytes: 0, state: null, blob: null };
  }
  let at = 0;
  if (part.bytes > 0) {
    if (part.state) hasher.load(part.state);
    for await (const c of blobChunks(part.blob)) {
      if (!part.state) hasher.update(c);
      at += c.length;
      report(at, 0);
      yield c;
    }
  }
  let pending = [];
  let pendingBytes = 0;
  const keep = async () => {
    if (pendingBytes === 0) return;
    const bytes = joined(pending, pendingBytes);
    pending = [];
    pendingBytes = 0;
    await store.appendPiece(key, bytes, hasher.save());
  };
  let net = 0;
  let finished = false;
  const reader = response?.body?.getReader();
  try {
    while (reader) {
      let r;
      try {
        r = await reader.read();
      } catch (e) {
        if (signal?.aborted) throw new HubError('cancelled', `${key.file}: cancelled`, { file: key.file });
        throw new HubError('offline', `${key.file}: the connection was lost after ${at.toLocaleString('en')} of ${size.toLocaleString('en')} bytes (${e?.message ?? e}); opening it again resumes from there`, { file: key.file });
      }
      if (r.done) break;
      const c = r.value;
      if (at + c.length > size) throw new HubError('http', `${key.file}: more than the ${size.toLocaleString('en')} bytes the hub lists`, { file: key.file });
      hasher.update(c);
      pending.push(c);
      pendingBytes += c.length;
      at += c.length;
      net += c.length;
      if (pendingBytes >= PIECE_BYTES) await keep();
      report(at, net);
      yield c;
    }
    if (at !== size)
      throw new HubError('offline', `${key.file}: the download ended after ${at.toLocaleString('en')} of ${size.toLocaleString('en')} bytes; opening it again resumes from there`, { file: key.file });
    await keep();  // the last piece, with the state before the digest ends the hash
    const digest = hasher.digest('hex');
    if (sha256 && digest !== sha256) {
      await store.discard(key);
      throw new HubError('checksum', `${key.file}: its SHA-256 (${digest.slice(0, 12)}…) is not the one the hub publishes (${sha256.slice(0, 12)}…); the downloaded copy was discarded`, { file: key.file });
    }
    await store.finish(key, digest);
    finished = true;
  } catch (e) {
    // Cut short (lost, cancelled): keep what arrived, for the next try.
    if (!(e instanceof HubError && e.code === 'checksum')) await keep().catch(() => {});
    throw e;
  } finally {
    // The consumer stopped reading (the engine refused the file, a Cancel): keep what arrived.
    if (!finished && pendingBytes > 0) await keep().catch(() => {});
    reader?.cancel().catch(() => {});
  }
}

/** An async iterator of chunks as a ReadableStream that pulls it one chunk at a time (the
 *  engine's worker reads it: the download goes as fast as the engine takes the bytes). */
export function iteratorStream(it) {
  return new ReadableStream({
    async pull(controller) {
      try {
        const { done, value } = await it.next();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (e) {
        controller.error(e);
      }
    },
    async cancel() {
      await it.return?.();
    },
  }, { highWaterMark: 0 });
}
