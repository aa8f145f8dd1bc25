// Before the playground opens a folder of the reader's own (dropped or picked): which
// weight files it holds (one model.safetensors, or model.safetensors.index.json and the
// shards it names) and what they will cost the engine's heap, from their headers only
// (engine/checkpoint_memory.ts). The page shows the estimate first and refuses a folder
// that cannot fit, with the size and the limit, before anything is read into the heap, and
// offers the precisions in which it would fit (its matrices held in f16 or int8).
import { estimateMemory, INDEX_NAME, megabytes, pickShards, shardNames, WASM_HEAP_LIMIT, type HeaderSource, type LoadPrecision, type MemoryEstimate }
  from '../../engine/checkpoint_memory';
import { t } from '../../i18n/i18n';

/** The weight files a folder's files make up, or null when there are none to estimate. */
async function weightFiles(files: File[]): Promise<{ name: string; file: Blob }[] | null> {
  const index = files.find((f) => f.name === INDEX_NAME);
  const named = files.map((f) => ({ name: f.name, file: f as Blob }));
  if (index) return pickShards(shardNames(await index.text()), named);
  const single = files.find((f) => f.name === 'model.safetensors') ?? files.find((f) => f.name.endsWith('.safetensors'));
  return single ? [{ name: single.name, file: single }] : null;
}

/** The estimate for a folder's files loaded in `precision` ('' = as stored); null when there
 *  is nothing to estimate or a header cannot be read (the engine then names what is wrong
 *  when it loads). limitBytes: the module's heap limit (a test may ask for less). */
export async function folderEstimate(files: File[], precision: LoadPrecision = '', limitBytes = WASM_HEAP_LIMIT): Promise<MemoryEstimate | null> {
  try {
    const weights = await weightFiles(files);
    return weights ? await estimateMemory(weights, limitBytes, precision) : null;
  } catch {
    return null;
  }
}

/** Files of a dropped folder (one level deep) or the dropped files themselves. */
export async function droppedFiles(dt: DataTransfer): Promise<File[]> {
  const entries = Array.from(dt.items).map((it) => it.webkitGetAsEntry?.()).filter((e): e is FileSystemEntry => !!e);
  const files: File[] = [];
  const fileOf = (e: FileSystemFileEntry) => new Promise<File>((res, rej) => e.file(res, rej));
  for (const e of entries) {
    if (e.isFile) files.push(await fileOf(e as FileSystemFileEntry));
    else if (e.isDirectory) {
      const reader = (e as FileSystemDirectoryEntry).createReader();
      const children = await new Promise<FileSystemEntry[]>((res, rej) => reader.readEntries(res, rej));
      for (const c of children) if (c.isFile) files.push(await fileOf(c as FileSystemFileEntry));
    }
  }
  return files.length ? files : Array.from(dt.files);
}

/** The narrower precisions (f16, then int8) in which these weight files would fit (a
 *  folder's, or a Hub repository's headers: pages/playground/hub_picker.ts). */
export async function narrowerFitsOf(weights: HeaderSource[], limitBytes = WASM_HEAP_LIMIT): Promise<MemoryEstimate[]> {
  const out: MemoryEstimate[] = [];
  for (const p of ['f16', 'int8'] as const) {
    const e = await estimateMemory(weights, limitBytes, p).catch(() => null);
    if (e && e.totalBytes <= e.limitBytes) out.push(e);
  }
  return out;
}

/** The narrower precisions (f16, then int8) in which a folder would fit. */
export async function narrowerFits(files: File[], limitBytes = WASM_HEAP_LIMIT): Promise<MemoryEstimate[]> {
  const weights = await weightFiles(files).catch(() => null);
  return weights ? narrowerFitsOf(weights, limitBytes) : [];
}

const sizes = (e: MemoryEstimate) => ({
  total: megabytes(e.totalBytes), files: megabytes(e.fileBytes), copy: megabytes(e.f32CopyBytes),
  held: megabytes(e.heldBytes), limit: megabytes(e.limitBytes), count: e.sixteenBit, shards: e.files,
  precision: e.precision,
});

/** "Memory: about 411 MB (…) of the 2,147 MB this page can use." */
export function estimateText(e: MemoryEstimate): string {
  if (e.precision) return t('play.memoryEstimateAt', sizes(e));
  return t(e.files > 1 ? 'play.memoryEstimateShards' : 'play.memoryEstimate', sizes(e));
}

/** The refusal shown instead of loading, or null when the folder fits. */
export function refusalText(e: MemoryEstimate, label: string): string | null {
  if (e.totalBytes <= e.limitBytes) return null;
  return t(e.precision ? 'play.memoryRefusedAt' : 'play.memoryRefused', { label, ...sizes(e) });
}

/**
 * Under a refusal: one button per precision in which the folder would fit ("Open in int8,
 * about 700 MB"), which opens it so. Redrawn in the page's language by text().
 */
export class NarrowerChoices {
  readonly element = document.createElement('div');
  private fits: MemoryEstimate[] = [];

  constructor() {
    this.element.className = 'narrower-choices';
    this.element.id = 'narrower-choices';
    this.element.hidden = true;
  }

  show(fits: MemoryEstimate[], open: (precision: LoadPrecision) => void = () => {}): void {
    this.fits = fits;
    this.element.replaceChildren(...fits.map((e) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.dataset.precision = e.precision;
      b.addEventListener('click', () => open(e.precision));
      return b;
    }));
    this.element.hidden = fits.length === 0;
    this.text();
  }

  hide(): void {
    this.show([]);
  }

  text(): void {
    this.fits.forEach((e, i) => { this.element.children[i]!.textContent = t('play.openAtPrecision', sizes(e)); });
  }
}
