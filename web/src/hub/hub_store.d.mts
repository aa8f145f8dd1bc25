// The store the Hub road keeps files in (types only): the page's in the origin private file
// system (hub_store_opfs.ts), Node's in a cache folder (hub_store_node.mjs), both laid out
// by hub address, repository, commit and file name.

export interface HubKey { hub: string; repo: string; commit: string; file: string }

/** A file cut short: its first `bytes` bytes and the SHA-256 state after them. */
export interface StoredPart { bytes: number; state: Uint8Array | null; blob: Blob | null }

/** What the store keeps of one revision, beside its files. */
export interface StoredMeta {
  hub: string;
  repo: string;
  files: Record<string, { size: number | null; sha256: string | null }>;
  lastUsed: number;
}

/** One stored revision, as the "Stored models" list shows it. */
export interface StoredModel { hub: string; repo: string; commit: string; revisions: string[]; bytes: number; lastUsed: number }

export interface HubStore {
  /** A complete, verified file, or null. */
  complete(key: HubKey): Promise<Blob | null>;
  /** What is stored of a file cut short ({ bytes: 0 } when nothing). */
  partial(key: HubKey): Promise<StoredPart>;
  /** Appends one piece of a file being downloaded, with the hash state after it. */
  appendPiece(key: HubKey, bytes: Uint8Array, state: Uint8Array): Promise<void>;
  /** The file is complete and verified (its SHA-256 given). */
  finish(key: HubKey, sha256: string): Promise<void>;
  /** A small file stored whole. */
  put(key: HubKey, bytes: Uint8Array): Promise<void>;
  /** Forgets a file, complete or not. */
  discard(key: HubKey): Promise<void>;
  getRef(hub: string, repo: string, revision: string): Promise<string | null>;
  setRef(hub: string, repo: string, revision: string, commit: string): Promise<void>;
  getMeta(hub: string, repo: string, commit: string): Promise<StoredMeta | null>;
  setMeta(hub: string, repo: string, commit: string, meta: StoredMeta): Promise<void>;
  list(): Promise<StoredModel[]>;
  remove(hub: string, repo: string, commit: string): Promise<void>;
}
