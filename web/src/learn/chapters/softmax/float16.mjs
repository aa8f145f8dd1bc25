// Rounding a number to the 16-bit float formats, as a cast to them rounds: to the nearest
// representable value, ties to the one with an even last mantissa bit; past the largest
// finite value (after rounding) it is ±∞. The engine has no call that rounds a typed
// number to f16 or bf16 (it only widens 16-bit weights at load), so the chapter "Softmax"
// computes this one step in the page and says so in its caption. Tested against every
// f16 and a sample of bf16 bit patterns in tests/browser/learn_softmax.test.mjs.
//
//          mantissa bits  smallest normal exponent  largest finite
//   f16    10             −14                       65504 = (2 − 2^−10)·2^15
//   bf16   7              −126                      (2 − 2^−7)·2^127 ≈ 3.39e38
// Below the smallest normal both keep the spacing of their smallest binade (subnormals).

const FORMATS = {
  f16: { mant: 10, emin: -14, max: 65504 },
  bf16: { mant: 7, emin: -126, max: (2 - 2 ** -7) * 2 ** 127 },
};

/** x rounded to the nearest integer, ties to even (x finite). */
function roundHalfEven(x) {
  const f = Math.floor(x), d = x - f;
  if (d > 0.5) return f + 1;
  if (d < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}

/** x rounded to `format` ('f16' or 'bf16'); NaN stays NaN, ±∞ stay, the sign of 0 is kept. */
export function roundTo16(x, format) {
  const f = FORMATS[format];
  if (!f) throw new Error(`roundTo16: unknown format '${format}'`);
  if (!Number.isFinite(x) || x === 0) return x;
  const a = Math.abs(x);
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a) e -= 1;             // log2 can round up just below a power of two
  else if (2 ** (e + 1) <= a) e += 1;
  const ulp = 2 ** (Math.max(e, f.emin) - f.mant);
  const r = roundHalfEven(a / ulp) * ulp;  // a / ulp is exact: ulp is a power of two
  const v = r > f.max ? Infinity : r;
  return x < 0 ? -v : v;
}

/** The value of a 16-bit pattern (for tests): IEEE half, or bfloat16 (the top half of an f32). */
export function decode16(bits, format) {
  if (format === 'bf16') return new Float32Array(new Uint32Array([bits << 16]).buffer)[0];
  const s = bits & 0x8000 ? -1 : 1, e = (bits >> 10) & 31, m = bits & 1023;
  if (e === 31) return m ? NaN : s * Infinity;
  return s * (e === 0 ? m * 2 ** -24 : (1 + m / 1024) * 2 ** (e - 15));
}

/** x rounded to f32 (Math.fround), f16 or bf16. */
export function roundToDtype(x, dtype) {
  return dtype === 'f32' ? Math.fround(x) : roundTo16(x, dtype);
}
