// The playground's first model, read as early as the page can: entry.ts starts reading the
// catalog model the address names (or the default) before main.ts has even been
// downloaded, so the files arrive while the engine's module compiles; main.ts takes them.
import { CATALOG, DEFAULT_MODEL } from '../../shell/catalog';

/** A catalog model's files, read by the page. */
export interface Fetched { config: string; weights: ArrayBuffer; tokenizer?: string }

/** Reads a catalog model's files; null if any of them fails (the engine then fetches them
 * itself and reports the error as usual). */
export async function fetchCatalog(id: string): Promise<Fetched | null> {
  const c = CATALOG.find((x) => x.id === id);
  if (!c) return null;
  const get = async (u: string) => {
    const r = await fetch(new URL(u, location.href));
    if (!r.ok) throw new Error(`${u}: HTTP ${r.status}`);
    return r;
  };
  try {
    const [config, weights, tokenizer] = await Promise.all([get(c.config).then((r) => r.text()), get(c.weights).then((r) => r.arrayBuffer()),
      c.tokenizer ? get(c.tokenizer).then((r) => r.text()) : Promise.resolve(undefined)]);
    return { config, weights, ...(tokenizer !== undefined ? { tokenizer } : {}) };
  } catch {
    return null;
  }
}

/** The catalog model the page opens with for this address (?model=, else the default;
 *  "local" and unknown ids open the default, as main.ts does). */
export function firstCatalogModel(query: string): string {
  const m = new URLSearchParams(query).get('model');
  return m && m !== 'local' && CATALOG.some((c) => c.id === m) ? m : DEFAULT_MODEL;
}

let early: { id: string; files: Promise<Fetched | null> } | null = null;

/** Starts reading model `id` now, for main.ts to take. */
export function prefetchCatalog(id: string): void {
  early = { id, files: fetchCatalog(id) };
}

/** Model `id`'s files: the early read when it was of this model (once), else a new one. */
export function takeCatalogFiles(id: string): Promise<Fetched | null> {
  const files = early && early.id === id ? early.files : fetchCatalog(id);
  early = null;
  return files;
}
