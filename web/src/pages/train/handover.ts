// Handing a model trained in the training page to the playground in the same browser,
// without a file round trip: the page stores the three files in IndexedDB (one record,
// replaced by the next hand-over) and opens index.html?from=train; the playground reads
// the record and loads it as it loads files the reader opens. Nothing leaves the machine.
// IndexedDB rather than a BroadcastChannel: the playground may open in a new tab after
// the training page has gone, and a safetensors file can be megabytes.

const DB = 'tfp-handover', STORE = 'models', KEY = 'trained';

export interface HandedModel {
  name: string;
  config: string;
  weights: ArrayBuffer;
  tokenizer: string;
  /** Steps trained, the task, and a text to open the playground with. */
  step: number;
  task: string;
  text: string;
  savedAt: number;
}

function open(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE);
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error ?? new Error('IndexedDB did not open'));
  });
}

function run<T>(mode: IDBTransactionMode, body: (s: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  return open().then((db) => new Promise<T>((resolve, reject) => {
    const tx = db.transaction(STORE, mode);
    const req = body(tx.objectStore(STORE));
    tx.oncomplete = () => { db.close(); resolve(req.result); };
    tx.onerror = () => { db.close(); reject(tx.error ?? new Error('IndexedDB transaction failed')); };
  }));
}

export function saveHandover(m: HandedModel): Promise<void> {
  return run('readwrite', (s) => s.put(m, KEY)).then(() => undefined);
}

/** The model handed over last, or null. */
export function readHandover(): Promise<HandedModel | null> {
  return run('readonly', (s) => s.get(KEY) as IDBRequest<HandedModel | undefined>).then((m) => m ?? null);
}

/** The playground's URL that opens the handed-over model (relative to the site's root),
 *  translating greedily (beam 1) as the training page answers; `view` opens one of its
 *  views (the induction task: the head finders). */
export function playgroundUrl(text: string, lang: string | null, view?: string): string {
  const p = new URLSearchParams({ from: 'train', text, beam: '1' });
  if (lang) p.set('lang', lang);
  if (view) p.set('view', view);
  return `index.html?${p.toString()}`;
}
