// A store that keeps Hub files in memory for the life of the page: where the browser has no
// origin private file system (hub_store_opfs.ts). Nothing survives a reload; a download cut
// short still resumes within the page.

export class MemoryHubStore {
  constructor() {
    this.files = new Map();  // key → { pieces: Uint8Array[], state, done }
    this.refs = new Map();
    this.metas = new Map();
  }
  id(k) {
    return JSON.stringify([k.hub, k.repo, k.commit, k.file]);
  }
  async complete(k) {
    const f = this.files.get(this.id(k));
    return f?.done ? new Blob(f.pieces) : null;
  }
  async partial(k) {
    const f = this.files.get(this.id(k));
    if (!f || f.done || f.pieces.length === 0) return { bytes: 0, state: null, blob: null };
    const blob = new Blob(f.pieces);
    return { bytes: blob.size, state: f.state, blob };
  }
  async appendPiece(k, bytes, state) {
    const f = this.files.get(this.id(k)) ?? { pieces: [], state: null, done: false };
    f.pieces.push(bytes.slice());
    f.state = state;
    this.files.set(this.id(k), f);
  }
  async finish(k) {
    const f = this.files.get(this.id(k)) ?? { pieces: [], state: null, done: false };
    f.done = true;
    this.files.set(this.id(k), f);
  }
  async put(k, bytes) {
    this.files.set(this.id(k), { pieces: [bytes.slice()], state: null, done: true });
  }
  async discard(k) {
    this.files.delete(this.id(k));
  }
  async getRef(hub, repo, revision) {
    return this.refs.get(JSON.stringify([hub, repo, revision])) ?? null;
  }
  async setRef(hub, repo, revision, commit) {
    this.refs.set(JSON.stringify([hub, repo, revision]), commit);
  }
  async getMeta(hub, repo, commit) {
    return this.metas.get(JSON.stringify([hub, repo, commit])) ?? null;
  }
  async setMeta(hub, repo, commit, meta) {
    this.metas.set(JSON.stringify([hub, repo, commit]), meta);
  }
  async list() {
    const out = [];
    for (const [id, meta] of this.metas) {
      const [hub, repo, commit] = JSON.parse(id);
      let bytes = 0;
      for (const [fid, f] of this.files) {
        const [h, r, c] = JSON.parse(fid);
        if (h === hub && r === repo && c === commit) bytes += f.pieces.reduce((a, p) => a + p.length, 0);
      }
      const revisions = [...this.refs].filter(([rid, c]) => c === commit && JSON.parse(rid)[1] === repo).map(([rid]) => JSON.parse(rid)[2]);
      out.push({ hub, repo, commit, bytes, lastUsed: meta.lastUsed ?? 0, revisions });
    }
    return out.sort((a, b) => b.lastUsed - a.lastUsed);
  }
  async remove(hub, repo, commit) {
    for (const fid of [...this.files.keys()]) {
      const [h, r, c] = JSON.parse(fid);
      if (h === hub && r === repo && c === commit) this.files.delete(fid);
    }
    this.metas.delete(JSON.stringify([hub, repo, commit]));
    for (const [rid, c] of [...this.refs]) if (c === commit && JSON.parse(rid)[1] === repo) this.refs.delete(rid);
  }
}
