// Chapter 6's own small pieces: its text's key type and the (h, T, d_k) → (T, d_model)
// arrangement of per-head rows (data movement, no maths). The controls, formats and
// tables every chapter uses come from the shell (chapter.ts, format.ts, widgets/tables.ts).
import type { Chapter } from '../../chapter';
import type { FloatTensor } from 'transformer-playground';
import type { TEXT } from './text';

export type Key = keyof typeof TEXT.en;
export type MhChapter = Chapter<Key>;

/** (H, T, D) per-head rows side by side: (T, H·D), head h in columns [h·D, (h+1)·D).
 *  Data movement only — the engine's "concatenation" before W_O. */
export function concatHeads(t: FloatTensor): Float32Array {
  const [H, T, D] = t.dims as [number, number, number];
  const out = new Float32Array(T * H * D);
  for (let h = 0; h < H; h++)
    for (let i = 0; i < T; i++) out.set(t.data.subarray((h * T + i) * D, (h * T + i + 1) * D), i * H * D + h * D);
  return out;
}

