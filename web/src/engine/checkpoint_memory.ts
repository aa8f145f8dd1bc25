// What a checkpoint will cost the module's heap, read from its safetensors headers only
// (the first bytes of each file, nothing else is read), and which files make it up when
// it is sharded. No DOM: the page asks before loading, the worker checks again before it
// allocates anything.
//
// The heap holds, once a model is loaded (io/safetensors.h, model/model.h):
//   - every weight file's bytes (F32 tensors are used where they lie);
//   - an f32 copy of the F16/BF16 tensors the engine widens (model/names_table.h): all of
//     them when the file's 16-bit tensors total less than 16 MiB; otherwise only those that
//     are not matrices it reads as stored (Linear weights, token tables stay 16-bit), and
//     twice for a per-head fused q|k|v (GPT-NeoX, BLOOM), which is widened and reordered.
// Activations, the KV cache and the tokenizer come on top; for the models this page is
// meant for they are small beside the weights (a 32-token forward pass of a 262k-token
// vocabulary's logits is 33 MB), so the estimate names the weights only.

/** The most the module's heap can grow to: the module is linked with
 *  -sALLOW_MEMORY_GROWTH=1 and no -sMAXIMUM_MEMORY (cmake/wasm_module.cmake), so
 *  Emscripten's default of 2 GiB applies (WASM32 could address 4 GiB). */
export const WASM_HEAP_LIMIT = 2 ** 31;

export const INDEX_NAME = 'model.safetensors.index.json';

export interface MemoryEstimate {
  /** Bytes of the weight files (all shards), or what their headers declare when that is more. */
  fileBytes: number;
  /** Bytes of the f32 copies of the 16-bit tensors the engine widens. */
  f32CopyBytes: number;
  /** fileBytes + f32CopyBytes. */
  totalBytes: number;
  limitBytes: number;
  /** Tensors stored as F16/BF16 that the engine widens, and all tensors. */
  sixteenBit: number;
  tensors: number;
  files: number;
}

/** A named weight file (a File's name, or the name the index gives it). */
export interface NamedBlob { name: string; file: Blob }

/** The shard names an index's weight_map lists, each once, sorted (model-00001-of-… first). */
export function shardNames(indexText: string, what = INDEX_NAME): string[] {
  let index: unknown;
  try {
    index = JSON.parse(indexText);
  } catch (e) {
    throw new Error(`${what}: not JSON (${e instanceof Error ? e.message : String(e)})`);
  }
  const map = (index as { weight_map?: unknown } | null)?.weight_map;
  if (!map || typeof map !== 'object') throw new Error(`${what}: no "weight_map" object`);
  const names = new Set<string>();
  for (const [tensor, file] of Object.entries(map as Record<string, unknown>)) {
    if (typeof file !== 'string') throw new Error(`${what}: weight_map["${tensor}"] is not a file name`);
    names.add(file);
  }
  if (names.size === 0) throw new Error(`${what}: the weight_map is empty`);
  return [...names].sort();
}

/** The shards an index names, found among `files` by name; a missing one is named. */
export function pickShards(names: string[], files: NamedBlob[]): NamedBlob[] {
  return names.map((name) => {
    const f = files.find((x) => x.name === name);
    if (!f) throw new Error(`${INDEX_NAME} names ${name}, which is not among the files (${files.map((x) => x.name).join(', ') || 'none'})`);
    return f;
  });
}

/** model/names_table.h's kKeep16BitMinBytes: from this many bytes of 16-bit tensors on, the
 *  engine keeps matrices 16-bit instead of widening them at load. */
export const KEEP_16BIT_MIN_BYTES = 16 * 2 ** 20;

/** A 16-bit tensor of a header: its name, rank and element count. */
interface HalfTensor { name: string; rank: number; elements: number }

/** Whether the engine reads this tensor as stored when it keeps 16-bit matrices: Linear
 *  weights and token tables, not position/relative/type tables nor per-head fused q|k|v. */
function keptAsStored(t: HalfTensor): boolean {
  return t.rank === 2 && !/wpe|position|relative_attention_bias|token_type|query_key_value/.test(t.name);
}

/** Tensor count, the 16-bit tensors and the bytes the header declares (header + data). */
async function headerCost(f: NamedBlob): Promise<{ tensors: number; halves: HalfTensor[]; declared: number }> {
  if (f.file.size < 8) throw new Error(`${f.name}: ${f.file.size} bytes, too short for a safetensors header`);
  const head = new DataView(await f.file.slice(0, 8).arrayBuffer());
  const n = Number(head.getBigUint64(0, true));
  if (n <= 0 || 8 + n > f.file.size || n > 100_000_000)
    throw new Error(`${f.name}: the header length (${n} bytes) does not fit the file's ${f.file.size} bytes`);
  let header: Record<string, { dtype?: string; shape?: number[]; data_offsets?: number[] }>;
  try {
    header = JSON.parse(await f.file.slice(8, 8 + n).text()) as typeof header;
  } catch (e) {
    throw new Error(`${f.name}: the header is not JSON (${e instanceof Error ? e.message : String(e)})`);
  }
  let tensors = 0, declared = 8 + n;
  const halves: HalfTensor[] = [];
  for (const [name, t] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    tensors += 1;
    const end = Number(t.data_offsets?.[1]);
    if (Number.isFinite(end)) declared = Math.max(declared, 8 + n + end);
    if (t.dtype === 'F16' || t.dtype === 'BF16')
      halves.push({ name, rank: (t.shape ?? []).length, elements: (t.shape ?? []).reduce((a, b) => a * b, 1) });
    // other dtypes: F32 is used in place; the engine names those it refuses
  }
  return { tensors, halves, declared };
}

/** The estimate for these weight files (one model.safetensors, or every shard). */
export async function estimateMemory(weights: NamedBlob[], limitBytes = WASM_HEAP_LIMIT): Promise<MemoryEstimate> {
  let fileBytes = 0, f32CopyBytes = 0, tensors = 0, sixteenBit = 0;
  const halves: HalfTensor[] = [];
  for (const w of weights) {
    const c = await headerCost(w);
    fileBytes += Math.max(w.file.size, c.declared);
    tensors += c.tensors;
    halves.push(...c.halves);
  }
  const keep = halves.reduce((a, t) => a + 2 * t.elements, 0) >= KEEP_16BIT_MIN_BYTES;
  for (const t of halves) {
    if (keep && keptAsStored(t)) continue;
    sixteenBit += 1;
    f32CopyBytes += 4 * t.elements * (/query_key_value/.test(t.name) ? 2 : 1);
  }
  return { fileBytes, f32CopyBytes, totalBytes: fileBytes + f32CopyBytes, limitBytes, sixteenBit, tensors, files: weights.length };
}

/** "1,234 MB" (10^6 bytes, as file managers show sizes). */
export function megabytes(bytes: number): string {
  return `${Math.round(bytes / 1e6).toLocaleString('en')} MB`;
}

/** The refusal's text when a checkpoint cannot fit, else null. */
export function refusal(e: MemoryEstimate, what: string): string | null {
  if (e.totalBytes <= e.limitBytes) return null;
  return `${what} needs about ${megabytes(e.totalBytes)} of memory (${megabytes(e.fileBytes)} of weight files + `
    + `${megabytes(e.f32CopyBytes)} for the f32 copy of its 16-bit weights), more than the ${megabytes(e.limitBytes)} `
    + 'this page\'s WebAssembly module can use';
}
