// What a checkpoint will cost the module's heap, read from its safetensors headers only
// (the first bytes of each file, nothing else is read), and which files make it up when
// it is sharded. No DOM: the page asks before loading, the worker checks again before it
// allocates anything.
//
// As stored (no precision asked), the heap holds once a model is loaded (io/safetensors.h,
// model/model.h):
//   - every weight file's bytes (F32 tensors are used where they lie);
//   - an f32 copy of the F16/BF16 tensors the engine widens (model/names_table.h): all of
//     them when the file's 16-bit tensors total less than 16 MiB; otherwise only those that
//     are not matrices it reads as stored (Linear weights and token tables stay 16-bit; a
//     per-head fused q|k|v of GPT-NeoX or BLOOM is reordered where it lies).
// Asked for f32, f16 or int8 (model/precision.h), the matrices are held in that precision
// and everything else in f32. How the load gets there sets its peak:
//   - at f16 or int8, model.safetensors or each shard is narrowed as it streams in
//     (model/weights_stream.h): the heap holds the narrowed files, not the stored ones (a
//     GPT-2 file's own lm_head.weight stays as stored: the load checks its tie to wte);
//   - at f32 the stored files are bound first and, when they do not already hold f32,
//     rewritten in it: files + f32 copies + held.
// Activations, the KV cache and the tokenizer come on top; for the models this page is
// meant for they are small beside the weights (a 32-token forward pass of a 262k-token
// vocabulary's logits is 33 MB), so the estimate names the weights only.

import { INDEX_NAME, shardNames } from './shard_names.mjs';

export { INDEX_NAME, shardNames };

/** The most the module's heap can grow to: the module is linked with
 *  -sALLOW_MEMORY_GROWTH=1 and no -sMAXIMUM_MEMORY (cmake/wasm_module.cmake), so
 *  Emscripten's default of 2 GiB applies (WASM32 could address 4 GiB). */
export const WASM_HEAP_LIMIT = 2 ** 31;


/** The precision a load asks for (tfp_model_files_set_precision); '' = as stored. */
export type LoadPrecision = '' | 'f32' | 'f16' | 'int8';

export interface MemoryEstimate {
  precision: LoadPrecision;
  /** Bytes of the weight files (all shards), or what their headers declare when that is more. */
  fileBytes: number;
  /** As stored: bytes of the f32 copies of the 16-bit tensors the engine widens. */
  f32CopyBytes: number;
  /** The weights as the model holds them once loaded. */
  heldBytes: number;
  /** The most the heap holds while the weights load: what must fit. */
  totalBytes: number;
  limitBytes: number;
  /** Tensors stored as F16/BF16 that the engine widens (as stored), and all tensors. */
  sixteenBit: number;
  tensors: number;
  files: number;
}

/** A named weight file (a File's name, or the name the index gives it). */
export interface NamedBlob { name: string; file: Blob }
/** What the estimate reads of a weight file: its size and its first bytes (a Blob, or the
 *  header a Range request read of a file not downloaded yet: hub_open.mjs). */
export interface HeaderSource { name: string; file: Pick<Blob, 'size' | 'slice'> }

/** The shards an index names, found among `files` by name; a missing one is named. */
export function pickShards<T extends { name: string }>(names: string[], files: T[]): T[] {
  return names.map((name) => {
    const f = files.find((x) => x.name === name);
    if (!f) throw new Error(`${INDEX_NAME} names ${name}, which is not among the files (${files.map((x) => x.name).join(', ') || 'none'})`);
    return f;
  });
}

/** model/names_table.h's kKeep16BitMinBytes: from this many bytes of 16-bit tensors on, the
 *  engine keeps matrices 16-bit instead of widening them at load. */
export const KEEP_16BIT_MIN_BYTES = 16 * 2 ** 20;

/** One tensor of a header. */
interface HeaderTensor { name: string; dtype: string; shape: number[]; elements: number; bytes: number }

const isHalf = (t: HeaderTensor) => t.dtype === 'F16' || t.dtype === 'BF16';
const isFloat = (t: HeaderTensor) => t.dtype === 'F32' || isHalf(t);

/** A matrix the precision applies to (model/precision.h: Linear weights and token tables), not
 *  a position, relative-bias or token-type table. */
function isMatrix(t: HeaderTensor): boolean {
  return t.shape.length === 2 && (isFloat(t) || t.dtype === 'I8') && !/wpe|position|relative_attention_bias|token_type/.test(t.name);
}

/** Bytes of a matrix held at p: 4 (f32), 2 (f16), or 1 + its f32 scale per row (int8). */
function matrixBytes(t: HeaderTensor, p: Exclude<LoadPrecision, ''>): number {
  return p === 'f32' ? 4 * t.elements : p === 'f16' ? 2 * t.elements : t.elements + 4 * t.shape[0]!;
}

/** The header's tensors and the bytes it declares (header + data). */
async function readHeader(f: HeaderSource): Promise<{ tensors: HeaderTensor[]; declared: number }> {
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
  let declared = 8 + n;
  const tensors: HeaderTensor[] = [];
  for (const [name, t] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    const [begin, end] = [Number(t.data_offsets?.[0]), Number(t.data_offsets?.[1])];
    if (Number.isFinite(end)) declared = Math.max(declared, 8 + n + end);
    const shape = t.shape ?? [];
    const bytes = Number.isFinite(begin) && Number.isFinite(end) ? Math.max(0, end - begin) : 0;
    tensors.push({ name, dtype: t.dtype ?? '', shape, elements: shape.reduce((a, b) => a * b, 1), bytes });
  }
  return { tensors, declared };
}

/** f32 copies the engine makes of 16-bit tensors when it binds them; keep: matrices stay 16-bit. */
function f32Copies(tensors: HeaderTensor[], keep: boolean): { bytes: number; count: number } {
  let bytes = 0, count = 0;
  for (const t of tensors) {
    if (!isHalf(t) || (keep && isMatrix(t))) continue;
    count += 1;
    bytes += 4 * t.elements;
  }
  return { bytes, count };
}

/** The estimate for these weight files (one model.safetensors, or every shard), loaded
 *  in `precision` ('' = as stored). */
export async function estimateMemory(weights: HeaderSource[], limitBytes = WASM_HEAP_LIMIT,
                                     precision: LoadPrecision = ''): Promise<MemoryEstimate> {
  let fileBytes = 0;
  const tensors: HeaderTensor[] = [];
  for (const w of weights) {
    const h = await readHeader(w);
    fileBytes += Math.max(w.file.size, h.declared);
    tensors.push(...h.tensors);
  }
  const keep16 = tensors.filter(isHalf).reduce((a, t) => a + 2 * t.elements, 0) >= KEEP_16BIT_MIN_BYTES;
  const stored = f32Copies(tensors, keep16);
  const base = { precision, fileBytes, f32CopyBytes: stored.bytes, limitBytes, sixteenBit: stored.count,
    tensors: tensors.length, files: weights.length };
  if (precision === '') return { ...base, heldBytes: fileBytes + stored.bytes, totalBytes: fileBytes + stored.bytes };

  // GPT-2's own lm_head.weight beside wte: not a weight of the model (wte is its head), kept
  // in the files for the load's check of the tie.
  const names = new Set(tensors.map((t) => t.name));
  const tiedHead = (t: HeaderTensor) => /(^|\.)lm_head\.weight$/.test(t.name) && (names.has('wte.weight') || names.has('transformer.wte.weight'));
  const weightMatrix = (t: HeaderTensor) => isMatrix(t) && !tiedHead(t);
  // Held: matrices in the precision, every other float tensor in f32, the rest as stored.
  const held = tensors.reduce((a, t) => a + (tiedHead(t) ? 0 : weightMatrix(t) ? matrixBytes(t, precision) : isFloat(t) ? 4 * t.elements : t.bytes), 0);
  // Already so: what a matrix is stored as counts as held in that precision (f16 takes BF16 as is).
  const already = (t: HeaderTensor) => precision === 'f32' ? t.dtype === 'F32' : precision === 'f16' ? isHalf(t) : t.dtype === 'I8';
  if (precision === 'f32') {
    const rewritten = tensors.some((t) => weightMatrix(t) && !already(t) && (keep16 || !isHalf(t)));
    return { ...base, heldBytes: held, totalBytes: fileBytes + stored.bytes + (rewritten ? held : 0) };
  }
  // f16 / int8: narrowed as the files stream in; 16-bit matrices are bound as stored (only the
  // rest is widened).
  const copies = f32Copies(tensors, true).bytes;
  const narrows = (t: HeaderTensor) => weightMatrix(t) && isFloat(t) && !already(t);
  const narrowed = fileBytes + tensors.reduce((a, t) => a + (narrows(t) ? matrixBytes(t, precision) - t.bytes : 0), 0);
  // An int8 file asked for f16: its I8 matrices stream in as they are, then the model is rewritten.
  const rewritten = tensors.some((t) => weightMatrix(t) && !narrows(t) && !already(t));
  return { ...base, heldBytes: held, totalBytes: narrowed + copies + (rewritten ? held : 0) };
}

/** "1,234 MB" (10^6 bytes, as file managers show sizes). */
export function megabytes(bytes: number): string {
  return `${Math.round(bytes / 1e6).toLocaleString('en')} MB`;
}

/** The refusal's text when a checkpoint cannot fit, else null (the worker's words; the
 *  page shows its own, translated, before it asks). */
export function refusal(e: MemoryEstimate, what: string): string | null {
  if (e.totalBytes <= e.limitBytes) return null;
  const need = e.precision === ''
    ? `about ${megabytes(e.totalBytes)} of memory (${megabytes(e.fileBytes)} of weight files + `
      + `${megabytes(e.f32CopyBytes)} for the f32 copy of its 16-bit weights)`
    : `about ${megabytes(e.totalBytes)} of memory while it loads in ${e.precision} (${megabytes(e.heldBytes)} once loaded)`;
  return `${what} needs ${need}, more than the ${megabytes(e.limitBytes)} this page's WebAssembly module can use`;
}
