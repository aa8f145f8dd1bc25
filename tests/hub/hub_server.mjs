// A local stand-in for the Hugging Face Hub, so tests that open models by repository id never
// reach the internet. It imitates the Hub's HTTP layout closely enough for a real client:
//   hub origin  GET /api/models/{repo}[/revision/{rev}]   model info (siblings with sizes, LFS sha256)
//               GET|HEAD /{repo}/resolve/{rev}/{file}     small files inline, LFS files 302 -> CDN
//   cdn origin  GET|HEAD /repos/{repo}/{commit}/{file}?…  the file, ranges, no token needed
// The CDN is a second server on its own port because the real redirect crosses origins, and that
// is what makes fetch drop the Authorization header (tests check the token does not leak there).
// Faults a download client must survive are injectable: a dropped connection (dropAfter), a slow
// link (slow) and a corrupted body under a true checksum (corrupt). Bodies stream from disk, so
// large checkpoints can be served for benchmarks. Node built-ins only.
//
// Standalone: node tests/hub/hub_server.mjs --repo owner/name=DIR [--repo ...] [--port N]
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { pathToFileURL } from 'node:url';

/**
 * @typedef {{ dir: string, files?: string[], revisions?: Record<string, string>, token?: string }} RepoSpec
 * @typedef {{ repos: Record<string, RepoSpec>, lfsMinBytes?: number, port?: number, cdnPort?: number }} HubOptions
 * @typedef {{ origin: 'hub'|'cdn', method: string, path: string, range: string|null,
 *             authorization: string|null, status: number|null }} RequestRecord
 * @typedef {{ url: string, cdnUrl: string, bytesSent(): number, bytesSentFor(repoId: string, file: string): number,
 *             requests: RequestRecord[], reset(): void, dropAfter(file: string, bytes: number): void,
 *             slow(bytesPerSecond: number|null): void, corrupt(repoId: string, file: string, offset: number): void,
 *             close(): Promise<void> }} Hub
 * @typedef {{ name: string, full: string, size: number, sha256: string, gitSha1: string, lfs: boolean,
 *             blobId: string, pointerSize: number }} FileEntry
 * @typedef {{ id: string, files: Map<string, FileEntry>, revisions: Record<string, string>, token: string|null }} Repo
 * @typedef {{ req: http.IncomingMessage, res: http.ServerResponse, log: RequestRecord }} Ctx
 */

const CHUNK = 16 * 1024; // body write size; slow() pauses between writes of this size
const HEX40 = /^[0-9a-f]{40}$/;
const EXPOSE = 'ETag, Content-Range, Content-Length, Accept-Ranges, X-Repo-Commit, X-Linked-Etag, ' +
  'X-Linked-Size, X-Error-Code, Location';
const sha1 = (/** @type {string|Buffer} */ s) => crypto.createHash('sha1').update(s).digest('hex');
/** Git's blob id: what the Hub publishes as blobId and as the ETag of a non-LFS file. */
const gitBlobSha1 = (/** @type {string} */ text) => sha1(`blob ${Buffer.byteLength(text)}\0${text}`);

/** Hashes a file once at start (streamed): size, sha256 and git blob sha1, and whether it is LFS.
 *  An LFS file's blobId is, as on the Hub, the git id of its pointer file, not of the content. */
async function describeFile(/** @type {string} */ dir, /** @type {string} */ name, /** @type {number} */ lfsMinBytes) {
  const full = path.join(dir, name);
  const { size } = await fs.promises.stat(full);
  const h256 = crypto.createHash('sha256'), h1 = crypto.createHash('sha1').update(`blob ${size}\0`);
  for await (const chunk of fs.createReadStream(full)) { h256.update(chunk); h1.update(chunk); }
  const sha256 = h256.digest('hex'), gitSha1 = h1.digest('hex');
  const lfs = size >= lfsMinBytes || name.endsWith('.safetensors');
  const pointer = `version https://git-lfs.github.com/spec/v1\noid sha256:${sha256}\nsize ${size}\n`;
  return { name, full, size, sha256, gitSha1, lfs, blobId: lfs ? gitBlobSha1(pointer) : gitSha1, pointerSize: pointer.length };
}

/** A `Range: bytes=…` header against `size`: {start, end} (inclusive), 'unsatisfiable', or null
 *  to serve the whole file (no header, a syntax we ignore such as multi-range, or last < first). */
function parseRange(/** @type {string|undefined} */ header, /** @type {number} */ size) {
  const m = header && /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return null;
  if (m[1] === '') { // suffix range: the last n bytes
    const n = Number(m[2]);
    return n === 0 || size === 0 ? 'unsatisfiable' : { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(m[1]), last = m[2] === '' ? Infinity : Number(m[2]);
  if (last < start) return null;
  return start >= size ? 'unsatisfiable' : { start, end: Math.min(last, size - 1) };
}

/** @param {HubOptions} options @returns {Promise<Hub>} */
export async function startHub(options) {
  const lfsMinBytes = options.lfsMinBytes ?? 1024;
  /** @type {Map<string, Repo>} */
  const repos = new Map();
  for (const [id, spec] of Object.entries(options.repos)) {
    const names = spec.files ?? (await fs.promises.readdir(spec.dir, { withFileTypes: true }))
      .filter((e) => e.isFile()).map((e) => e.name).sort();
    const files = new Map();
    for (const name of names) files.set(name, await describeFile(spec.dir, name, lfsMinBytes));
    repos.set(id, { id, files, revisions: spec.revisions ?? { main: sha1(id) }, token: spec.token ?? null });
  }

  /** @type {RequestRecord[]} */ const requests = [];
  const sent = { total: 0, /** @type {Map<string, number>} */ per: new Map() };
  /** @type {Map<string, number>} */ const drops = new Map();           // file name -> bytes (one-shot)
  /** @type {Map<string, Set<number>>} */ const flips = new Map();       // repo\0file -> offsets
  /** @type {number|null} */ let rate = null;
  const key = (/** @type {string} */ repoId, /** @type {string} */ file) => `${repoId}\0${file}`;

  /** A branch/tag name or one of the repo's full commit ids -> the commit, else null. */
  const commitOf = (/** @type {Repo} */ repo, /** @type {string} */ rev) =>
    Object.hasOwn(repo.revisions, rev) ? repo.revisions[rev]
      : HEX40.test(rev) && Object.values(repo.revisions).includes(rev) ? rev : null;

  function reply(/** @type {Ctx} */ ctx, /** @type {number} */ status, /** @type {Record<string, string|number>} */ headers, body = '') {
    ctx.log.status = status;
    ctx.res.writeHead(status, headers);
    ctx.res.end(body); // Node sends no body for HEAD by itself
  }
  /** The Hub's error shape: JSON {error}, the code in X-Error-Code (huggingface_hub maps it to
   *  RepositoryNotFoundError, RevisionNotFoundError, EntryNotFoundError, GatedRepoError). */
  function fail(/** @type {Ctx} */ ctx, /** @type {number} */ status, /** @type {string|null} */ code, /** @type {string} */ message) {
    /** @type {Record<string, string>} */
    const h = { 'Content-Type': 'application/json; charset=utf-8', 'X-Error-Message': message.replace(/[^\x20-\x7e]/g, '?') };
    if (code) h['X-Error-Code'] = code;
    reply(ctx, status, h, JSON.stringify({ error: message }));
  }
  /** Gated repos: no token 401, wrong token 403 (both X-Error-Code: GatedRepo). True when denied. */
  function denied(/** @type {Ctx} */ ctx, /** @type {Repo} */ repo) {
    if (!repo.token || ctx.req.headers.authorization === `Bearer ${repo.token}`) return false;
    const wrong = ctx.req.headers.authorization != null;
    fail(ctx, wrong ? 403 : 401, 'GatedRepo', `Access to model ${repo.id} is restricted. ` +
      (wrong ? 'Your token does not grant access to it.' : 'You must be authenticated to access it.'));
    return true;
  }
  /** Repo, access and revision checks shared by the API and resolve, in the Hub's order. */
  function lookup(/** @type {Ctx} */ ctx, /** @type {string} */ repoId, /** @type {string} */ rev) {
    const repo = repos.get(repoId);
    if (!repo) return void fail(ctx, 404, 'RepoNotFound', 'Repository not found');
    if (denied(ctx, repo)) return undefined;
    const commit = commitOf(repo, rev);
    if (!commit) return void fail(ctx, 404, 'RevisionNotFound', `Invalid rev id: ${rev}`);
    return { repo, commit };
  }

  function modelInfo(/** @type {Ctx} */ ctx, /** @type {string[]} */ rest) {
    // {owner}/{name}[/revision/{rev}], or a legacy one-part id such as gpt2[/revision/{rev}]
    const parts = rest[1] === 'revision' ? 1 : Math.min(2, rest.length);
    const repoId = rest.slice(0, parts).join('/'), tail = rest.slice(parts);
    if (tail.length && !(tail.length === 2 && tail[0] === 'revision')) return fail(ctx, 404, null, 'Not Found');
    const repo = repos.get(repoId);
    const rev = tail[1] ?? (repo && !Object.hasOwn(repo.revisions, 'main') ? Object.keys(repo.revisions)[0] : 'main');
    const found = lookup(ctx, repoId, rev);
    if (!found) return;
    const siblings = [...found.repo.files.values()].map((f) => ({
      rfilename: f.name, size: f.size, blobId: f.blobId,
      ...(f.lfs ? { lfs: { sha256: f.sha256, size: f.size, pointerSize: f.pointerSize } } : {}),
    }));
    reply(ctx, 200, { 'Content-Type': 'application/json; charset=utf-8' }, JSON.stringify({
      _id: found.commit.slice(0, 24), id: repoId, modelId: repoId, author: repoId.includes('/') ? repoId.split('/')[0] : undefined,
      sha: found.commit, private: false, gated: found.repo.token ? 'manual' : false, disabled: false,
      lastModified: '2024-01-01T00:00:00.000Z', tags: [], siblings,
    }));
  }

  function resolve(/** @type {Ctx} */ ctx, /** @type {string} */ repoId, /** @type {string} */ rev, /** @type {string} */ name) {
    const found = lookup(ctx, repoId, rev);
    if (!found) return;
    const file = found.repo.files.get(name);
    if (!file) return fail(ctx, 404, 'EntryNotFound', 'Entry not found');
    const common = { 'X-Repo-Commit': found.commit };
    if (!file.lfs) return serveFile(ctx, found.repo, file, { ...common, ETag: `"${file.gitSha1}"` });
    // As the Hub: a redirect to a signed CDN URL; size and sha256 ride on the 302 so a client can
    // HEAD without following (huggingface_hub reads X-Linked-Etag / X-Linked-Size there).
    const enc = (/** @type {string} */ p) => p.split('/').map(encodeURIComponent).join('/');
    const expires = Math.floor(Date.now() / 1000) + 3600;
    const location = `${hub.cdnUrl}/repos/${enc(repoId)}/${found.commit}/${enc(name)}?Expires=${expires}` +
      `&Signature=${sha1(`${found.commit}/${name}/${expires}`)}&Key-Pair-Id=LOCALHUB`;
    reply(ctx, 302, { ...common, ETag: `"${file.sha256}"`, 'X-Linked-Etag': `"${file.sha256}"`,
      'X-Linked-Size': file.size, Location: location, 'Content-Type': 'text/plain; charset=utf-8' },
    `Found. Redirecting to ${location}`);
  }

  /** 200 or 206 (Range) or 416 for a file, the body streamed from disk unless HEAD. */
  function serveFile(/** @type {Ctx} */ ctx, /** @type {Repo} */ repo, /** @type {FileEntry} */ file, /** @type {Record<string, string>} */ headers) {
    const range = parseRange(ctx.req.headers.range, file.size);
    const h = { ...headers, 'Accept-Ranges': 'bytes', 'Content-Type': 'application/octet-stream' };
    if (range === 'unsatisfiable') return reply(ctx, 416, { ...h, 'Content-Range': `bytes */${file.size}` });
    const { start, end } = range ?? { start: 0, end: file.size - 1 };
    ctx.log.status = range ? 206 : 200;
    ctx.res.writeHead(ctx.log.status, { ...h, 'Content-Length': end - start + 1,
      ...(range ? { 'Content-Range': `bytes ${start}-${end}/${file.size}` } : {}) });
    if (ctx.req.method === 'HEAD' || end < start) return void ctx.res.end();
    pump(ctx.res, repo, file, start, end).catch(() => ctx.res.destroy());
  }

  /** Resolves after `ms` or on `event`, whichever first, and always when the response closes
   *  (a client gone, or close()), so no timer or listener outlives its response. */
  const until = (/** @type {http.ServerResponse} */ res, /** @type {string|null} */ event, ms = Infinity) =>
    new Promise((done) => {
      const finish = () => { clearTimeout(timer); res.off('close', finish); if (event) res.off(event, finish); done(undefined); };
      const timer = ms === Infinity ? undefined : setTimeout(finish, ms);
      res.once('close', finish); if (event) res.once(event, finish);
    });

  /** Writes bytes [start, end] in CHUNK pieces, applying corrupt(), dropAfter() and slow(). */
  async function pump(/** @type {http.ServerResponse} */ res, /** @type {Repo} */ repo, /** @type {FileEntry} */ file, /** @type {number} */ start, /** @type {number} */ end) {
    const dropAt = drops.get(file.name);
    drops.delete(file.name); // one-shot: consumed by the first body of that file, whatever repo
    const offsets = flips.get(key(repo.id, file.name));
    const count = (/** @type {number} */ n) => {
      sent.total += n;
      sent.per.set(key(repo.id, file.name), (sent.per.get(key(repo.id, file.name)) ?? 0) + n);
    };
    const stream = fs.createReadStream(file.full, { start, end, highWaterMark: CHUNK });
    res.once('close', () => stream.destroy());
    let pos = start; // absolute offset of the next byte
    for await (let chunk of stream) {
      if (res.destroyed) return;
      if (offsets) {
        const at = [...offsets].filter((o) => o >= pos && o < pos + chunk.length);
        if (at.length) { chunk = Buffer.from(chunk); for (const o of at) chunk[o - pos] ^= 0xff; }
      }
      if (dropAt !== undefined && pos - start + chunk.length > dropAt) {
        // A connection lost halfway: flush what is allowed, then end the socket under a
        // Content-Length that promised more, so the client's body read fails.
        const cut = chunk.subarray(0, Math.max(0, dropAt - (pos - start)));
        res.flushHeaders();
        if (cut.length) { res.write(cut); count(cut.length); }
        res.socket?.end(() => res.socket?.destroy());
        return;
      }
      // slow(): wait the chunk's time on the link before it goes out, so a body takes size/rate
      if (rate) await until(res, null, (chunk.length / rate) * 1000);
      if (res.destroyed) return;
      const ok = res.write(chunk);
      count(chunk.length);
      pos += chunk.length;
      if (!ok) await until(res, 'drain');
    }
    res.end();
  }

  /** Per-origin router; CORS as the Hub does it, so a page on another localhost origin can fetch. */
  function handler(/** @type {'hub'|'cdn'} */ origin) {
    return (/** @type {http.IncomingMessage} */ req, /** @type {http.ServerResponse} */ res) => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const log = { origin, method: req.method ?? '', path: url.pathname, range: req.headers.range ?? null,
        authorization: req.headers.authorization ?? null, status: /** @type {number|null} */ (null) };
      requests.push(log);
      const ctx = { req, res, log };
      res.setHeader('Access-Control-Allow-Origin', '*');
      res.setHeader('Access-Control-Expose-Headers', EXPOSE);
      try {
        if (req.method === 'OPTIONS') {
          return reply(ctx, 204, { 'Access-Control-Allow-Methods': 'GET, HEAD, OPTIONS',
            'Access-Control-Allow-Headers': 'authorization, range, content-type', 'Access-Control-Max-Age': 86400 });
        }
        if (req.method !== 'GET' && req.method !== 'HEAD') return fail(ctx, 405, null, 'Method not allowed');
        const segs = url.pathname.split('/').slice(1).map(decodeURIComponent); // a revision may be refs%2Fpr%2F1
        if (origin === 'cdn') return cdn(ctx, segs);
        if (segs[0] === 'api' && segs[1] === 'models') return modelInfo(ctx, segs.slice(2));
        const r = segs[1] === 'resolve' ? 1 : segs[2] === 'resolve' ? 2 : -1;
        if (r > 0 && segs.length > r + 2) return resolve(ctx, segs.slice(0, r).join('/'), segs[r + 1], segs.slice(r + 2).join('/'));
        fail(ctx, 404, null, 'Not Found');
      } catch (e) {
        if (!res.headersSent) fail(ctx, e instanceof URIError ? 400 : 500, null, String(e));
        else res.destroy();
      }
    };
  }

  /** CDN: /repos/{repo}/{commit}/{file}. The signed query is not checked and no token is needed. */
  function cdn(/** @type {Ctx} */ ctx, /** @type {string[]} */ segs) {
    const k = segs.findIndex((s, i) => i >= 2 && HEX40.test(s));
    const repo = segs[0] === 'repos' && k > 0 ? repos.get(segs.slice(1, k).join('/')) : undefined;
    const file = repo && Object.values(repo.revisions).includes(segs[k]) ? repo.files.get(segs.slice(k + 1).join('/')) : undefined;
    if (!repo || !file) return reply(ctx, 404, { 'Content-Type': 'text/plain' }, 'Not Found');
    serveFile(ctx, repo, file, { ETag: `"${file.sha256}"` });
  }

  const listen = (/** @type {http.Server} */ s, /** @type {number} */ port) =>
    new Promise((ok, bad) => { s.once('error', bad); s.listen(port, '127.0.0.1', () => ok(undefined)); });
  const originOf = (/** @type {http.Server} */ s) => `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (s.address()).port}`;
  const cdnServer = http.createServer(handler('cdn')), hubServer = http.createServer(handler('hub'));
  await listen(cdnServer, options.cdnPort ?? 0);
  await listen(hubServer, options.port ?? 0);

  /** @type {Hub} */
  const hub = {
    url: originOf(hubServer),
    cdnUrl: originOf(cdnServer),
    bytesSent: () => sent.total,
    bytesSentFor: (repoId, file) => sent.per.get(key(repoId, file)) ?? 0,
    requests,
    reset() { sent.total = 0; sent.per.clear(); requests.length = 0; }, // same array: callers may hold it
    dropAfter(file, bytes) { drops.set(file, bytes); },
    slow(bytesPerSecond) { rate = bytesPerSecond && bytesPerSecond > 0 ? bytesPerSecond : null; },
    corrupt(repoId, file, offset) {
      if (!flips.has(key(repoId, file))) flips.set(key(repoId, file), new Set());
      flips.get(key(repoId, file))?.add(offset);
    },
    async close() {
      await Promise.all([hubServer, cdnServer].map((s) => new Promise((done) => {
        s.close(() => done(undefined));
        s.closeAllConnections(); // keep-alive and in-flight bodies too, or close() would wait on them
      })));
    },
  };
  return hub;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  /** @type {Record<string, RepoSpec>} */ const repos = {};
  let port;
  const args = process.argv.slice(2);
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--port') port = Number(args[++i]);
    else if (args[i] === '--repo' && args[i + 1]?.includes('=')) {
      const [id, ...dir] = args[++i].split('=');
      repos[id] = { dir: path.resolve(dir.join('=')) };
    } else {
      console.error('usage: node tests/hub/hub_server.mjs --repo owner/name=DIR [--repo ...] [--port N]');
      process.exit(2);
    }
  }
  const hub = await startHub({ repos, port, cdnPort: port ? port + 1 : 0 });
  console.log(`hub ${hub.url}\ncdn ${hub.cdnUrl}`);
  for (const id of Object.keys(repos)) console.log(`  ${hub.url}/api/models/${id}`);
  process.on('SIGINT', () => hub.close().then(() => process.exit(0)));
}
