// Before the playground opens a folder of the reader's own (dropped or picked): which
// weight files it holds (one model.safetensors, or model.safetensors.index.json and the
// shards it names) and what they will cost the engine's heap, from their headers only
// (engine/checkpoint_memory.ts). The page shows the estimate first and refuses a folder
// that cannot fit, with the size and the limit, before anything is read into the heap.
import { estimateMemory, INDEX_NAME, megabytes, pickShards, shardNames, type MemoryEstimate } from '../../engine/checkpoint_memory';
import { t } from '../../i18n/i18n';

/** The weight files a folder's files make up, or null when there are none to estimate. */
async function weightFiles(files: File[]): Promise<{ name: string; file: Blob }[] | null> {
  const index = files.find((f) => f.name === INDEX_NAME);
  const named = files.map((f) => ({ name: f.name, file: f as Blob }));
  if (index) return pickShards(shardNames(await index.text()), named);
  const single = files.find((f) => f.name === 'model.safetensors') ?? files.find((f) => f.name.endsWith('.safetensors'));
  return single ? [{ name: single.name, file: single }] : null;
}

/** The estimate for a folder's files; null when there is nothing to estimate or a header
 *  cannot be read (the engine then names what is wrong when it loads). */
export async function folderEstimate(files: File[]): Promise<MemoryEstimate | null> {
  try {
    const weights = await weightFiles(files);
    return weights ? await estimateMemory(weights) : null;
  } catch {
    return null;
  }
}

const sizes = (e: MemoryEstimate) => ({
  total: megabytes(e.totalBytes), files: megabytes(e.fileBytes), copy: megabytes(e.f32CopyBytes),
  limit: megabytes(e.limitBytes), count: e.sixteenBit, shards: e.files,
});

/** "Memory: about 411 MB (…) of the 2,147 MB this page can use." */
export function estimateText(e: MemoryEstimate): string {
  return t(e.files > 1 ? 'play.memoryEstimateShards' : 'play.memoryEstimate', sizes(e));
}

/** The refusal shown instead of loading, or null when the folder fits. */
export function refusalText(e: MemoryEstimate, label: string): string | null {
  return e.totalBytes > e.limitBytes ? t('play.memoryRefused', { label, ...sizes(e) }) : null;
}
