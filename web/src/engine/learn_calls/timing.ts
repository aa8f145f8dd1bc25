// The worker's side of src/api/tfp_learn_timing_api.h (Learn chapter "Why attention"):
// the engine times its GRU against one self-attention layer. Marshalling only: the
// lengths go onto the heap, the engine measures and counts, the rows come back.
//
// Legend: T tokens, d width, H heads.
import type { TfpModule } from '../wasm/tfp.mjs';
import type { Calls } from '../calls';

export interface TimeGruAttentionArgs {
  d: number;          // width of the GRU's input and state, and the attention's d_model
  heads: number;      // attention heads (must divide d)
  lengths: number[];  // sequence lengths T to time, each 1..4096
  repeats: number;    // timed batches of each (1..50); the median is reported
  seed: number;       // draws the weights and the input
}

/** One row per length, straight from the engine's columns (TFP_TIMING_*). */
export interface TimingRow {
  T: number;
  gruMs: number;         // median milliseconds of one GRU pass over T steps
  attnMs: number;        // median milliseconds of one self-attention layer
  gruMinMs: number;
  gruMaxMs: number;
  attnMinMs: number;
  attnMaxMs: number;
  gruSteps: number;      // sequential steps: T
  attnSteps: number;     // sequential steps: 1
  gruMacs: number;       // multiply-adds in matrix products: 6·T·d²
  attnMacs: number;      // 4·T·d² + 2·T²·d
}

const COLUMNS = 10;  // TFP_TIMING_COLUMNS

export function timeGruAttention(c: Calls, m: TfpModule, a: TimeGruAttentionArgs): { rows: TimingRow[] } {
  const n = a.lengths.length;
  const lengths = Int32Array.from(a.lengths);
  const lp = c.put(new Uint8Array(lengths.buffer));
  try {
    return c.withBuffer(n * COLUMNS * 8, (out) => {
      c.check(m._tfp_learn_time_gru_attention(a.d, a.heads, lp, n, a.repeats, a.seed >>> 0, out));
      // out comes from tfp_alloc, aligned for doubles.
      const v = new Float64Array(m.HEAPU8.buffer, out, n * COLUMNS).slice();
      const rows = a.lengths.map((T, i): TimingRow => {
        const r = v.subarray(i * COLUMNS, (i + 1) * COLUMNS);
        return {
          T, gruMs: r[0]!, attnMs: r[1]!, gruMinMs: r[2]!, gruMaxMs: r[3]!, attnMinMs: r[4]!, attnMaxMs: r[5]!,
          gruSteps: r[6]!, attnSteps: r[7]!, gruMacs: r[8]!, attnMacs: r[9]!,
        };
      });
      return { rows };
    });
  } finally {
    c.free(lp);
  }
}
