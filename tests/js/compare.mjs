// Numeric comparisons shared by the Node tests (tests/js) and the browser tests
// (tests/browser): arrays of numbers against an oracle's, element by element.
import assert from 'node:assert/strict';

/** A nested array (JSON fixtures) as one flat array; a number as [number]. */
export const flat = (x) => (Array.isArray(x) ? x.flat(Infinity) : [x]);

/**
 * The largest |a[i] - b[i]|; the lengths must be equal (asserted, named by `what`).
 * Identical entries count 0, so equal infinities (a masked logit's -Infinity) match;
 * a NaN on either side makes the result NaN, which no `<= tol` accepts.
 */
export function maxDiff(a, b, what = 'arrays') {
  assert.equal(a.length, b.length, `${what}: length`);
  let worst = 0;
  for (let i = 0; i < b.length; i++) {
    if (a[i] !== b[i]) worst = Math.max(worst, Math.abs(a[i] - b[i]));  // NaN stays NaN
  }
  return worst;
}

/** Asserts that the page's numbers `got` equal the engine's `want` within `tol`. */
export function close(got, want, what, tol = 1e-6) {
  const worst = maxDiff(got, want, what);
  assert.ok(worst <= tol, `${what}: page and engine differ by ${worst}`);
}

/** Asserts that `got` ({ name: { dims, data } }) holds exactly the attention maps
 * (names ending in .probs) of the engine's `want`, each with its dims and numbers. */
export function closeMaps(got, want, what, tol = 1e-6) {
  const names = Object.keys(want).filter((n) => n.endsWith('.probs')).sort();
  assert.deepEqual(Object.keys(got).sort(), names, `${what}: the same maps`);
  for (const n of names) {
    assert.deepEqual(got[n].dims, want[n].dims, `${what}: ${n} dims`);
    close(got[n].data, want[n].data, `${what}: ${n}`, tol);
  }
}
