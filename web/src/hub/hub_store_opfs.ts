// Where the page keeps Hub files: the origin private file system (OPFS), laid out as Node's
// cache folder is (hub_store_node.mjs):
//   tfp-hub/<host>/<owner>/<name>/refs.json               revision → commit (offline opens)
//   tfp-hub/<host>/<owner>/<name>/<commit>/meta.json      the file list, the last use
//   tfp-hub/<host>/<owner>/<name>/<commit>/files/<file>   a small file, whole
//   tfp-hub/<host>/<owner>/<name>/<commit>/files/<file>.pieces/000000, 000000.state, …, done
// A large file is kept as numbered pieces, each written once and closed: an OPFS file
// opened to append copies itself first (createWritable keeps the old bytes in a swap file),
// so appending to one file would cost its size again for every piece. Read back, the pieces
// are one Blob whose parts are the files themselves: nothing is copied. Each piece's .state
// is the SHA-256 state after it, written after the piece: a piece without one is ignored.
import type { HubKey, HubStore, StoredMeta, StoredModel, StoredPart } from './hub_store.mjs';
import { fileSegment, hostDir } from './hub_paths.mjs';

type Dir = FileSystemDirectoryHandle;

const ROOT = 'tfp-hub';
const pieceName = (i: number) => String(i).padStart(6, '0');

async function child(dir: Dir, path: string[], create: boolean): Promise<Dir | null> {
  let d = dir;
  for (const name of path) {
    try {
      d = await d.getDirectoryHandle(name, { create });
    } catch {
      return null;
    }
  }
  return d;
}

async function readFile(dir: Dir | null, name: string): Promise<File | null> {
  if (!dir) return null;
  try {
    return await (await dir.getFileHandle(name)).getFile();
  } catch {
    return null;
  }
}

async function writeFile(dir: Dir, name: string, data: Uint8Array | string): Promise<void> {
  const w = await (await dir.getFileHandle(name, { create: true })).createWritable();
  await w.write(typeof data === 'string' ? data : new Blob([data as Uint8Array<ArrayBuffer>]));
  await w.close();
}

async function readJson<T>(dir: Dir | null, name: string): Promise<T | null> {
  const f = await readFile(dir, name);
  if (!f) return null;
  try {
    return JSON.parse(await f.text()) as T;
  } catch {
    return null;
  }
}

async function names(dir: Dir | null, kind: 'file' | 'directory'): Promise<string[]> {
  const out: string[] = [];
  if (!dir) return out;
  for await (const [name, h] of (dir as unknown as { entries(): AsyncIterable<[string, FileSystemHandle]> }).entries())
    if (h.kind === kind) out.push(name);
  return out.sort();
}

/** The pieces of a file cut short or complete, in order, each with its hash state. */
async function pieces(dir: Dir): Promise<{ files: File[]; state: Uint8Array | null }> {
  const files: File[] = [];
  let state: Uint8Array | null = null;
  for (let i = 0; ; i++) {
    const [piece, st] = await Promise.all([readFile(dir, pieceName(i)), readFile(dir, `${pieceName(i)}.state`)]);
    if (!piece || !st) break;
    files.push(piece);
    state = new Uint8Array(await st.arrayBuffer());
  }
  return { files, state };
}

export class OpfsHubStore implements HubStore {
  private constructor() {}

  /** The store, or null where this browser has no origin private file system. */
  static async open(): Promise<OpfsHubStore | null> {
    try {
      await navigator.storage.getDirectory();
      return new OpfsHubStore();
    } catch {
      return null;
    }
  }

  /** The store's folder, found again at each use: the reader may clear the site's data
   *  (or another tab delete a model) while the page is open. */
  private async root(): Promise<Dir> {
    return (await navigator.storage.getDirectory()).getDirectoryHandle(ROOT, { create: true });
  }

  private repoPath(hub: string, repo: string): string[] {
    return [hostDir(hub), ...repo.split('/')];
  }
  private async filesDir(key: HubKey, create: boolean): Promise<Dir | null> {
    return child(await this.root(), [...this.repoPath(key.hub, key.repo), key.commit, 'files'], create);
  }
  private async piecesDir(key: HubKey, create: boolean): Promise<Dir | null> {
    const files = await this.filesDir(key, create);
    return files ? child(files, [`${fileSegment(key.file)}.pieces`], create) : null;
  }

  async complete(key: HubKey): Promise<Blob | null> {
    const whole = await readFile(await this.filesDir(key, false), fileSegment(key.file));
    if (whole) return whole;
    const dir = await this.piecesDir(key, false);
    if (!dir || !(await readFile(dir, 'done'))) return null;
    return new Blob((await pieces(dir)).files);
  }

  async partial(key: HubKey): Promise<StoredPart> {
    const dir = await this.piecesDir(key, false);
    if (!dir || (await readFile(dir, 'done'))) return { bytes: 0, state: null, blob: null };
    const { files, state } = await pieces(dir);
    const blob = new Blob(files);
    return { bytes: blob.size, state, blob: files.length ? blob : null };
  }

  async appendPiece(key: HubKey, bytes: Uint8Array, state: Uint8Array): Promise<void> {
    const dir = (await this.piecesDir(key, true))!;
    const n = (await pieces(dir)).files.length;
    await writeFile(dir, pieceName(n), bytes);
    await writeFile(dir, `${pieceName(n)}.state`, state);
  }

  async finish(key: HubKey, sha256: string): Promise<void> {
    await writeFile((await this.piecesDir(key, true))!, 'done', sha256);
  }

  async put(key: HubKey, bytes: Uint8Array): Promise<void> {
    await writeFile((await this.filesDir(key, true))!, fileSegment(key.file), bytes);
  }

  async discard(key: HubKey): Promise<void> {
    const files = await this.filesDir(key, false);
    if (!files) return;
    await files.removeEntry(fileSegment(key.file)).catch(() => undefined);
    await files.removeEntry(`${fileSegment(key.file)}.pieces`, { recursive: true }).catch(() => undefined);
  }

  async getRef(hub: string, repo: string, revision: string): Promise<string | null> {
    const refs = await readJson<Record<string, string>>(await child(await this.root(), this.repoPath(hub, repo), false), 'refs.json');
    return refs?.[revision] ?? null;
  }

  async setRef(hub: string, repo: string, revision: string, commit: string): Promise<void> {
    const dir = (await child(await this.root(), this.repoPath(hub, repo), true))!;
    const refs = (await readJson<Record<string, string>>(dir, 'refs.json')) ?? {};
    if (refs[revision] === commit) return;
    refs[revision] = commit;
    await writeFile(dir, 'refs.json', JSON.stringify(refs));
  }

  async getMeta(hub: string, repo: string, commit: string): Promise<StoredMeta | null> {
    return readJson<StoredMeta>(await child(await this.root(), [...this.repoPath(hub, repo), commit], false), 'meta.json');
  }

  async setMeta(hub: string, repo: string, commit: string, meta: StoredMeta): Promise<void> {
    await writeFile((await child(await this.root(), [...this.repoPath(hub, repo), commit], true))!, 'meta.json', JSON.stringify(meta));
  }

  async list(): Promise<StoredModel[]> {
    const out: StoredModel[] = [];
    const root = await this.root();
    for (const host of await names(root, 'directory')) {
      const hostD = await child(root, [host], false);
      for (const owner of await names(hostD, 'directory')) {
        const ownerD = await child(hostD!, [owner], false);
        for (const name of await names(ownerD, 'directory')) {
          const repoD = (await child(ownerD!, [name], false))!;
          const refs = (await readJson<Record<string, string>>(repoD, 'refs.json')) ?? {};
          for (const commit of await names(repoD, 'directory')) {
            const commitD = (await child(repoD, [commit], false))!;
            const meta = await readJson<StoredMeta>(commitD, 'meta.json');
            if (!meta) continue;
            out.push({ hub: meta.hub, repo: `${owner}/${name}`, commit, bytes: await dirBytes(await child(commitD, ['files'], false)),
                       lastUsed: meta.lastUsed ?? 0, revisions: Object.keys(refs).filter((r) => refs[r] === commit) });
          }
        }
      }
    }
    return out.sort((a, b) => b.lastUsed - a.lastUsed);
  }

  async remove(hub: string, repo: string, commit: string): Promise<void> {
    const repoD = await child(await this.root(), this.repoPath(hub, repo), false);
    if (!repoD) return;
    await repoD.removeEntry(commit, { recursive: true }).catch(() => undefined);
    const refs = (await readJson<Record<string, string>>(repoD, 'refs.json')) ?? {};
    for (const r of Object.keys(refs)) if (refs[r] === commit) delete refs[r];
    await writeFile(repoD, 'refs.json', JSON.stringify(refs));
  }
}

/** Bytes of every file under a folder. */
async function dirBytes(dir: Dir | null): Promise<number> {
  let bytes = 0;
  for (const f of await names(dir, 'file')) bytes += (await readFile(dir, f))?.size ?? 0;
  for (const d of await names(dir, 'directory')) bytes += await dirBytes(await child(dir!, [d], false));
  return bytes;
}
