// Rasterising a matrix for a canvas: every device pixel of the picture gets the colour of
// the cell under it from a 256-entry colour table, written as one uint32 into an
// ImageData that is put on the canvas at once (no per-cell paths, no scaling, no
// smoothing). Masked cells get a diagonal hatch drawn in device pixels, in neutral
// greys that no colour-map value has, so a mask never reads as a small weight.
//
// When the matrix has more cells than the picture has pixels (a 128 × 128 map in an
// 88 px thumbnail), one pixel covers several cells and shows the LARGEST of them
// (max-pooling): a thumbnail keeps every strong weight (a previous-token diagonal, a
// sink column) instead of dropping the rows that fall between pixels. A pooled pixel is
// hatched only when every cell it covers is masked.
//
// Legend: rows × cols cells, W × H device pixels.

export interface RasterMatrix {
  values: Float32Array;            // (rows, cols) row-major, from `offset`
  offset?: number;                 // where the matrix starts in `values` (a head of (H, rows, cols))
  rows: number;
  cols: number;
  masked?: Float32Array | null;    // (rows, cols) non-zero = masked
  domain?: [number, number];       // colour scale; default [0, 1]
}

export interface RasterStyle {
  lut: Uint32Array;                // 256 pixels, low → high (Colormap.rgba)
  maskBg: number;                  // hatch background pixel
  maskLine: number;                // hatch stripe pixel
  dpr: number;                     // device pixels per CSS pixel (hatch period 6 CSS px)
}

/** For each of `n` pixels along an axis of `cells` cells: the cells it covers, [from, to). */
function spans(n: number, cells: number): Int32Array {
  const s = new Int32Array(2 * n);
  for (let x = 0; x < n; x++) {
    const a = Math.min(cells - 1, Math.floor((x * cells) / n));
    const b = Math.max(a + 1, Math.min(cells, Math.floor(((x + 1) * cells) / n)));
    s[2 * x] = a;
    s[2 * x + 1] = b;
  }
  return s;
}

/** Paints matrix `m` over the whole of `img` (W × H device pixels). */
export function rasterize(img: ImageData, m: RasterMatrix, st: RasterStyle): void {
  const W = img.width, H = img.height, { rows, cols } = m;
  const out = new Uint32Array(img.data.buffer, img.data.byteOffset, W * H);
  if (rows === 0 || cols === 0) {
    out.fill(0);
    return;
  }
  const off = m.offset ?? 0, v = m.values, mk = m.masked ?? null;
  const [lo, hi] = m.domain ?? [0, 1];
  const scale = hi > lo ? 255 / (hi - lo) : 0;
  const xs = spans(W, cols), ys = spans(H, rows);
  // One row of colour indices per distinct row span (-1 = masked), reused by every
  // pixel row that span covers; the hatch depends on (x + y), so it is applied per row.
  const idx = new Int16Array(W);
  const pooledV = new Float32Array(cols), pooledM = new Uint8Array(cols);
  const period = Math.max(3, Math.round(6 * st.dpr)), line = Math.max(1, Math.round(st.dpr));
  const lut = st.lut;
  let lastR0 = -1, lastR1 = -1;
  for (let y = 0; y < H; y++) {
    const r0 = ys[2 * y]!, r1 = ys[2 * y + 1]!;
    if (r0 !== lastR0 || r1 !== lastR1) {
      lastR0 = r0; lastR1 = r1;
      // Pool the covered rows column by column: max value, masked only if all are.
      for (let c = 0; c < cols; c++) {
        let best = -Infinity, all = 1;
        for (let r = r0; r < r1; r++) {
          const k = r * cols + c;
          if (mk && mk[k] !== 0) continue;
          all = 0;
          const x = v[off + k]!;
          if (x > best) best = x;
        }
        pooledV[c] = best;
        pooledM[c] = all;
      }
      for (let x = 0; x < W; x++) {
        const c0 = xs[2 * x]!, c1 = xs[2 * x + 1]!;
        let best = -Infinity, all = 1;
        for (let c = c0; c < c1; c++) {
          if (pooledM[c]) continue;
          all = 0;
          if (pooledV[c]! > best) best = pooledV[c]!;
        }
        if (all) idx[x] = -1;
        else {
          const t = (best - lo) * scale;
          // NaN (a broken value) shows as the low end rather than as a mask.
          idx[x] = t > 0 ? (t < 255 ? Math.round(t) : 255) : 0;
        }
      }
    }
    const base = y * W;
    for (let x = 0; x < W; x++) {
      const i = idx[x]!;
      out[base + x] = i >= 0 ? lut[i]! : (x + y) % period < line ? st.maskLine : st.maskBg;
    }
  }
}
