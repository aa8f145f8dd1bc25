// What the Learn chapters' browser tests share: reading a chapter's state back
// (window.tfpLearn, which every chapter publishes through learn/chapter.ts), waiting for
// its next render, the number matrices as shown, and exact-or-within comparisons.
import assert from 'node:assert/strict';

/** Probes bound to one page. */
export function learnProbes(page) {
  const renders = () => page.evaluate(() => window.tfpLearn?.renders ?? 0);
  return {
    renders,
    /** Waits until the chapter has rendered more than `n` times. */
    async rendersAbove(n, timeout = 30_000) {
      await page.waitForFunction((k) => (window.tfpLearn?.renders ?? 0) > k, n, { timeout });
      await page.waitForTimeout(50);
    },
    /** window.tfpLearn.state[name], typed arrays as plain arrays, ±∞/NaN as strings. */
    part: (name) => page.evaluate((k) => JSON.parse(JSON.stringify(window.tfpLearn.state[k] ?? null,
      (_, v) => (ArrayBuffer.isView(v) ? Array.from(v) : (typeof v === 'number' && !Number.isFinite(v) ? String(v) : v)))), name),
    /** The number matrix whose caption starts with `prefix`: its cells' values, row by row. */
    matrix: (prefix) => page.evaluate((p) => {
      const m = [...document.querySelectorAll('.number-matrix')].find((e) => e.querySelector('caption')?.textContent.startsWith(p));
      return m ? [...m.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => Number(td.dataset.value))) : null;
    }, prefix),
  };
}

/** got[i] equals want[i] within tol (NaN where want is NaN). */
export function sameArray(got, want, what, tol = 0) {
  assert.equal(got.length, want.length, `${what}: length`);
  for (let i = 0; i < got.length; i++) {
    const g = Number(got[i]), w = want[i];
    assert.ok(Number.isNaN(w) ? Number.isNaN(g) : Math.abs(g - w) <= tol, `${what}[${i}] = ${g}, engine ${w}`);
  }
}
