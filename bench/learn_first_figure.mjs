// Time to a Learn chapter's first figure in Chromium, on opening it in a new page (the first
// run's load is cold: the module and models fetched and compiled; later runs share the
// browser's HTTP cache) and after a reload of that page (the module cached). The chapters' browser
// tests used to assert the cached time (< 3 s); a timed assertion fails on a busy machine
// (issue 32), so the tests print it and this script measures it:
//
//   node bench/learn_first_figure.mjs [CHAPTER ...] [--runs N]     e.g.
//   node bench/learn_first_figure.mjs softmax multi-head --runs 5
//
// "First figure": the chapter's first render (window.tfpLearn.renders > 0, which every
// chapter publishes through web/src/learn/chapter.ts). Printed per chapter: one JSON line,
// the median, min and max over N runs, in ms. No chapter named: every chapter in web/learn/.
// The site is built into build/web-test/bench_learn/ (or $TFP_WEB_DIST).
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { openSite } from '../tests/browser/harness.mjs';

const argv = process.argv.slice(2);
const runsAt = argv.indexOf('--runs');
const RUNS = runsAt >= 0 ? Number(argv.splice(runsAt, 2)[1]) : 3;
const LEARN = fileURLToPath(new URL('../web/learn/', import.meta.url));
const chapters = argv.length ? argv
  : readdirSync(LEARN).filter((f) => f.endsWith('.html') && f !== 'index.html').map((f) => f.replace(/\.html$/, ''));

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const site = await openSite({ name: 'bench_learn' });
try {
  for (const chapter of chapters) {
    const cold = [], cached = [];
    for (let r = 0; r < RUNS; r++) {
      const page = await site.newPage();
      const drawn = () => page.waitForFunction(() => (window.tfpLearn?.renders ?? 0) > 0, null, { timeout: 120_000 });
      let t0 = Date.now();
      await page.goto(`${site.base}/learn/${chapter}.html?lang=en`);
      await drawn();
      cold.push(Date.now() - t0);
      t0 = Date.now();
      await page.reload();
      await drawn();
      cached.push(Date.now() - t0);
      await page.close();
    }
    const stats = (xs) => ({ median: median(xs), min: Math.min(...xs), max: Math.max(...xs) });
    console.log(JSON.stringify({ chapter, runs: RUNS, open_ms: stats(cold), first_open_ms: cold[0], cached_ms: stats(cached) }));
  }
  if (site.problems.length) console.error('page problems:', site.problems);
} finally {
  await site.close();
}
