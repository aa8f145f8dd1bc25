// The engine's int8 rule (src/nn/quantize_int8.cpp, kernels::quantize_row_int8) replayed
// in the page for a matrix the reader types: the engine exports no call that quantises a
// given matrix (it quantises a model's weights at load). Every step is float32, as there:
//   s = max|x| / 127                       (f32 division; 0 for an all-zero group)
//   q = round(x / s), clamped to [−127, 127]  (f32 division; ties away from zero: 2.5 → 3, −2.5 → −3)
//   x' = q · s                             (f32 product; the dequantised value)
// A group is the whole tensor (one s, "per tensor") or one row (one s per row, "per
// channel": the engine's rows are output channels). −128 is never produced.
// Checked bit for bit against the engine's own int8 load in tests/browser/learn_efficiency.test.mjs.

/** One group: its scale, integers, dequantised values and errors x' − x (inputs as f32). */
export function quantiseGroup(values, amax) {
  const x = values.map(Math.fround);
  const m = amax ?? x.reduce((a, v) => Math.max(a, Math.abs(v)), 0);
  const s = Math.fround(m / 127);
  const q = x.map((v) => {
    if (!(s > 0)) return 0;
    const qf = Math.fround(v / s);
    const a = Math.abs(qf), t = Math.trunc(a);
    const r = Math.min(t + (a - t >= 0.5 ? 1 : 0), 127);
    return qf < 0 ? -r || 0 : r;
  });
  const deq = q.map((k) => Math.fround(k * s));
  return { scale: s, q, deq, err: deq.map((d, i) => d - x[i]) };
}

/** A (rows × cols) matrix, row-major, quantised per tensor and per row. */
export function quantiseMatrix(values, rows, cols) {
  const x = Array.from(values, Math.fround);
  if (x.length !== rows * cols) throw new Error(`quantiseMatrix: ${x.length} values for ${rows} × ${cols}`);
  const tensor = quantiseGroup(x);
  const perRow = Array.from({ length: rows }, (_, r) => quantiseGroup(x.slice(r * cols, (r + 1) * cols)));
  return {
    x,
    tensor: { scales: [tensor.scale], q: tensor.q, deq: tensor.deq, err: tensor.err },
    channel: {
      scales: perRow.map((g) => g.scale), q: perRow.flatMap((g) => g.q), deq: perRow.flatMap((g) => g.deq),
      err: perRow.flatMap((g) => g.err),
    },
  };
}

/** The reader's text as a matrix: rows on lines (or split by ';'), numbers by spaces or commas. */
export function parseMatrix(text, maxRows = 8, maxCols = 12) {
  const lines = text.split(/[\n;]/).map((l) => l.trim()).filter((l) => l.length > 0);
  if (lines.length === 0) return { error: 'empty' };
  if (lines.length > maxRows) return { error: 'rows' };
  const rows = lines.map((l) => l.split(/[\s,]+/).filter((w) => w.length > 0).map((w) => Number(w.replace('−', '-'))));
  const cols = rows[0].length;
  if (cols > maxCols || rows.some((r) => r.length > maxCols)) return { error: 'cols' };
  if (rows.some((r) => r.length !== cols)) return { error: 'ragged' };
  if (rows.some((r) => r.some((v) => !Number.isFinite(v)))) return { error: 'number' };
  return { rows: rows.length, cols, values: rows.flat() };
}
