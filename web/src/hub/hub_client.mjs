// The Hugging Face Hub's HTTP layout, as a client: a repository's file list (the model-info
// API), its files (resolve URLs, which redirect large files to another host), and ranges of
// them. Nothing here stores, verifies or loads: hub_download.mjs and hub_open.mjs do. Plain
// JavaScript (typed by hub_client.d.mts): the page, its worker and Node import it unbuilt.
//
// The reader's access token goes only to the hub's own origin, in a header, never in a URL:
// fetch() drops the Authorization header when a redirect leaves the origin (the Fetch
// standard; Chromium and Node's undici both do), so the file host a resolve URL redirects to
// never sees it (tests/hub checks it).

export const DEFAULT_HUB = 'https://huggingface.co';

/**
 * A failure on the Hub road, with a code the page turns into a sentence in the reader's
 * language: offline, not-found, revision-not-found, file-not-found, needs-token, bad-token,
 * http, unsupported, no-safetensors, checksum, quota, cancelled, bad-name, storage, refused (the
 * caller's own plan check said no).
 */
export class HubError extends Error {
  constructor(code, message, details = {}) {
    super(message);
    this.name = 'HubError';
    this.code = code;
    this.details = details;
  }
}

// Owner and name as the Hub allows them: letters, digits, '-', '_', '.', no '--' or '..'
// at the ends; 96 characters at most for the name.
const REPO_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,95}\/[A-Za-z0-9][A-Za-z0-9_.-]{0,95}$/;

/** "hf:owner/name@revision", "owner/name@revision" or "owner/name" → { repo, revision }. */
export function parseHubModel(text) {
  const s = String(text).trim().replace(/^hf:/, '');
  const at = s.indexOf('@');
  const repo = at < 0 ? s : s.slice(0, at);
  const revision = at < 0 ? 'main' : s.slice(at + 1);
  if (!REPO_ID.test(repo) || repo.includes('..'))
    throw new HubError('bad-name', `"${s.slice(0, 100)}" is not a repository id (owner/name)`);
  if (!revision || revision.length > 255 || /[\s\\]|\.\./.test(revision))
    throw new HubError('bad-name', `"${revision.slice(0, 100)}" is not a revision (a branch, tag or commit)`);
  return { repo, revision };
}

/** The page's address form: "hf:owner/name", with "@revision" unless it is main. */
export function hubModelName({ repo, revision }) {
  return `hf:${repo}${revision && revision !== 'main' ? `@${revision}` : ''}`;
}

/** A hub address as an origin-rooted URL without a trailing slash; throws bad-name. */
export function normaliseHub(hub) {
  let u;
  try {
    u = new URL(String(hub || DEFAULT_HUB).trim());
  } catch {
    throw new HubError('bad-name', `"${String(hub).slice(0, 100)}" is not a hub address (https://…)`);
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new HubError('bad-name', `${u.href}: a hub is an http(s) address`);
  return (u.origin + u.pathname).replace(/\/+$/, '');
}

export const isCommit = (revision) => /^[0-9a-f]{40}$/.test(revision);

/** Each segment encoded, the slashes kept (a file in a folder: "onnx/model.onnx"). */
const encodePath = (file) => file.split('/').map(encodeURIComponent).join('/');

export class HubClient {
  /** hub: the hub's address; token: the reader's access token or null; fetch: injectable. */
  constructor({ hub = DEFAULT_HUB, token = null, fetch = globalThis.fetch.bind(globalThis) } = {}) {
    this.hub = normaliseHub(hub);
    this.origin = new URL(this.hub).origin;
    this.token = token;
    this.fetchImpl = fetch;
  }

  /** The resolve URL of one file at one revision (a commit, once known). */
  fileUrl(repo, revision, file) {
    return `${this.hub}/${repo}/resolve/${encodeURIComponent(revision)}/${encodePath(file)}`;
  }

  /** fetch() with the token for the hub's origin only; failures as HubError. */
  async request(url, { what, range = null, signal, method = 'GET' } = {}) {
    const headers = {};
    if (this.token && new URL(url).origin === this.origin) headers.Authorization = `Bearer ${this.token}`;
    if (range) headers.Range = range;
    let r;
    try {
      r = await this.fetchImpl(url, { method, headers, signal, credentials: 'omit', cache: 'no-store' });
    } catch (e) {
      if (signal?.aborted) throw new HubError('cancelled', `${what}: cancelled`);
      throw new HubError('offline', `${what}: could not reach ${this.hub} (${e?.message ?? e})`);
    }
    if (r.ok) return r;
    throw await this.statusError(r, what);
  }

  async statusError(r, what) {
    const code = r.headers.get('x-error-code') ?? '';
    const body = await r.text().catch(() => '');
    let said = '';
    try {
      said = String(JSON.parse(body).error ?? '').slice(0, 200);
    } catch {
      said = body.slice(0, 200);
    }
    const tail = said ? ` (${said})` : '';
    if (code === 'GatedRepo' || r.status === 401)
      return new HubError(this.token ? 'bad-token' : 'needs-token', `${what}: HTTP ${r.status}, the repository needs an access token${this.token ? ' that can read it' : ''}${tail}`, { status: r.status });
    if (r.status === 403)
      return new HubError(this.token ? 'bad-token' : 'needs-token', `${what}: HTTP 403, access refused${tail}`, { status: 403 });
    if (code === 'RevisionNotFound') return new HubError('revision-not-found', `${what}: no such revision${tail}`, { status: r.status });
    if (code === 'EntryNotFound') return new HubError('file-not-found', `${what}: no such file${tail}`, { status: r.status });
    if (r.status === 404) return new HubError('not-found', `${what}: no such repository${tail}`, { status: 404 });
    return new HubError('http', `${what}: HTTP ${r.status}${tail}`, { status: r.status });
  }

  /**
   * The repository's files at a revision: { commit, files: { name: { size, sha256 } },
   * gated }. sha256 is the LFS object's (large files); null for files kept in git.
   */
  async modelInfo(repo, revision, signal) {
    const rev = revision && revision !== 'main' ? `/revision/${encodeURIComponent(revision)}` : '';
    const url = `${this.hub}/api/models/${repo}${rev}?blobs=true`;
    const r = await this.request(url, { what: `${repo}@${revision}`, signal });
    let j;
    try {
      j = await r.json();
    } catch {
      throw new HubError('http', `${repo}: the hub's model info is not JSON`);
    }
    if (!j || typeof j.sha !== 'string' || !isCommit(j.sha) || !Array.isArray(j.siblings))
      throw new HubError('http', `${repo}: the hub's model info has no commit or file list`);
    const files = {};
    for (const s of j.siblings) {
      if (!s || typeof s.rfilename !== 'string') continue;
      const sha256 = typeof s.lfs?.sha256 === 'string' && /^[0-9a-f]{64}$/.test(s.lfs.sha256) ? s.lfs.sha256 : null;
      const size = Number.isSafeInteger(s.lfs?.size) ? s.lfs.size : Number.isSafeInteger(s.size) ? s.size : null;
      files[s.rfilename] = { size, sha256 };
    }
    return { commit: j.sha, files, gated: j.gated ?? false };
  }

  /** A small file's text (config.json, tokenizer.json, the index). */
  async text(repo, commit, file, signal) {
    const r = await this.request(this.fileUrl(repo, commit, file), { what: `${repo}/${file}`, signal });
    return r.text();
  }

  /** Bytes [start, end) of a file, by a Range request; a server that ignores the range is
   *  read only as far as needed. */
  async range(repo, commit, file, start, end, signal) {
    const r = await this.request(this.fileUrl(repo, commit, file), { what: `${repo}/${file}`, range: `bytes=${start}-${end - 1}`, signal });
    if (r.status === 206) return new Uint8Array(await r.arrayBuffer());
    // 200: the whole file; read up to `end` and stop.
    const out = new Uint8Array(end);
    let at = 0;
    const reader = r.body.getReader();
    while (at < end) {
      const { done, value } = await reader.read();
      if (done) break;
      out.set(value.subarray(0, end - at), at);
      at += Math.min(value.length, end - at);
    }
    await reader.cancel().catch(() => {});
    return out.subarray(start, at);
  }

  /** The file from byte `from` on (a resumed download): the response and whether it is
   *  really the rest (206) or, from a server that ignored the range, the whole file. */
  async from(repo, commit, file, from, signal) {
    const r = await this.request(this.fileUrl(repo, commit, file), { what: `${repo}/${file}`, range: from > 0 ? `bytes=${from}-` : null, signal });
    return { response: r, start: r.status === 206 ? from : 0 };
  }
}

/**
 * Which weight files a repository's listing offers: model.safetensors, or
 * model.safetensors.index.json (its shards are read from it). A repository with only pickled
 * weights (pytorch_model.bin, never read: unpickling runs code) is refused by name.
 */
export function pickWeights(files) {
  if (files['model.safetensors.index.json']) return { index: 'model.safetensors.index.json' };
  if (files['model.safetensors']) return { single: 'model.safetensors' };
  const top = Object.keys(files).filter((f) => !f.includes('/') && f.endsWith('.safetensors'));
  if (top.length === 1) return { single: top[0] };
  const pickled = Object.keys(files).filter((f) => /\.(bin|pt|pth|ckpt|h5|msgpack)$/.test(f) && !f.includes('/'));
  throw new HubError('no-safetensors', `the repository has no safetensors weights${pickled.length ? ` (only ${pickled.slice(0, 3).join(', ')}, which this page never reads: a pickled file can run code)` : ''}`,
    { pickled });
}
