// Where Node keeps Hub files: a cache folder (default ~/.cache/transformer-playground/hub,
// or $TFP_HUB_CACHE), laid out as the page's store is (hub_store_opfs.ts):
//   <host>/<owner>/<name>/refs.json                  revision → commit, for opening offline
//   <host>/<owner>/<name>/<commit>/meta.json         the file list and the last use
//   <host>/<owner>/<name>/<commit>/files/<file>      a complete, verified file
//   <host>/<owner>/<name>/<commit>/files/<file>.part a file cut short, and .part.json with
//                                                    its length and hash state (resume)
// The files are plain files, so a folder that `tfp` opens can link to them.
import { mkdir, readFile, writeFile, rm, stat, appendFile, rename, readdir, truncate } from 'node:fs/promises';
import { openAsBlob } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileSegment, hostDir } from './hub_paths.mjs';

const readJson = async (path, fallback) => {
  try {
    return JSON.parse(await readFile(path, 'utf8'));
  } catch {
    return fallback;
  }
};
const exists = (path) => stat(path).then(() => true, () => false);

export class NodeHubStore {
  constructor(root = process.env.TFP_HUB_CACHE || join(homedir(), '.cache', 'transformer-playground', 'hub')) {
    this.root = root;
  }

  repoDir(hub, repo) {
    return join(this.root, hostDir(hub), ...repo.split('/'));
  }
  commitDir(hub, repo, commit) {
    return join(this.repoDir(hub, repo), commit);
  }
  /** The path of a complete file (it may not exist yet). */
  path(key) {
    return join(this.commitDir(key.hub, key.repo, key.commit), 'files', fileSegment(key.file));
  }

  async complete(key) {
    const p = this.path(key);
    return (await exists(p)) ? openAsBlob(p) : null;
  }

  async partial(key) {
    const p = `${this.path(key)}.part`;
    const saved = await readJson(`${p}.json`, null);
    if (!saved || !(await exists(p))) return { bytes: 0, state: null, blob: null };
    // The state is written after the bytes: bytes beyond it were not hashed, cut them.
    const { size } = await stat(p);
    if (size > saved.bytes) await truncate(p, saved.bytes);
    if (size < saved.bytes) return { bytes: 0, state: null, blob: null };
    return { bytes: saved.bytes, state: Uint8Array.from(Buffer.from(saved.state, 'base64')), blob: await openAsBlob(p) };
  }

  async appendPiece(key, bytes, state) {
    const p = `${this.path(key)}.part`;
    await mkdir(join(this.commitDir(key.hub, key.repo, key.commit), 'files'), { recursive: true });
    await appendFile(p, bytes);
    const { size } = await stat(p);
    await writeFile(`${p}.json`, JSON.stringify({ bytes: size, state: Buffer.from(state).toString('base64') }));
  }

  async finish(key) {
    const p = this.path(key);
    if (await exists(`${p}.part`)) await rename(`${p}.part`, p);
    else await writeFile(p, new Uint8Array(0));
    await rm(`${p}.part.json`, { force: true });
  }

  async put(key, bytes) {
    await mkdir(join(this.commitDir(key.hub, key.repo, key.commit), 'files'), { recursive: true });
    await writeFile(`${this.path(key)}.tmp`, bytes);
    await rename(`${this.path(key)}.tmp`, this.path(key));
  }

  async discard(key) {
    const p = this.path(key);
    await Promise.all([p, `${p}.part`, `${p}.part.json`].map((x) => rm(x, { force: true })));
  }

  async getRef(hub, repo, revision) {
    return (await readJson(join(this.repoDir(hub, repo), 'refs.json'), {}))[revision] ?? null;
  }
  async setRef(hub, repo, revision, commit) {
    const path = join(this.repoDir(hub, repo), 'refs.json');
    const refs = await readJson(path, {});
    refs[revision] = commit;
    await mkdir(this.repoDir(hub, repo), { recursive: true });
    await writeFile(path, JSON.stringify(refs));
  }

  async getMeta(hub, repo, commit) {
    return readJson(join(this.commitDir(hub, repo, commit), 'meta.json'), null);
  }
  async setMeta(hub, repo, commit, meta) {
    await mkdir(this.commitDir(hub, repo, commit), { recursive: true });
    await writeFile(join(this.commitDir(hub, repo, commit), 'meta.json'), JSON.stringify(meta));
  }

  /** Every stored revision: { hub, repo, commit, revisions, bytes, lastUsed }. */
  async list() {
    const out = [];
    const dirs = async (p) => (await readdir(p, { withFileTypes: true }).catch(() => [])).filter((d) => d.isDirectory()).map((d) => d.name);
    for (const host of await dirs(this.root))
      for (const owner of await dirs(join(this.root, host)))
        for (const name of await dirs(join(this.root, host, owner))) {
          const repoDir = join(this.root, host, owner, name);
          const refs = await readJson(join(repoDir, 'refs.json'), {});
          for (const commit of await dirs(repoDir)) {
            const meta = await readJson(join(repoDir, commit, 'meta.json'), null);
            if (!meta) continue;
            let bytes = 0;
            for (const f of await readdir(join(repoDir, commit, 'files')).catch(() => []))
              bytes += (await stat(join(repoDir, commit, 'files', f))).size;
            out.push({ hub: meta.hub, repo: `${owner}/${name}`, commit, bytes, lastUsed: meta.lastUsed ?? 0,
                       revisions: Object.keys(refs).filter((r) => refs[r] === commit) });
          }
        }
    return out.sort((a, b) => b.lastUsed - a.lastUsed);
  }

  async remove(hub, repo, commit) {
    await rm(this.commitDir(hub, repo, commit), { recursive: true, force: true });
    const path = join(this.repoDir(hub, repo), 'refs.json');
    const refs = await readJson(path, {});
    for (const r of Object.keys(refs)) if (refs[r] === commit) delete refs[r];
    if (await exists(this.repoDir(hub, repo))) await writeFile(path, JSON.stringify(refs));
  }
}
