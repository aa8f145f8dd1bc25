// Training speed in the training page (web/train.html) in Chromium, the third column beside
// bench/trainer_api.cpp (native) and bench/trainer_wasm.mjs (the same module under Node):
//
//   node bench/train_page.mjs OPTIONS_JSON SEED [RUNS] [--clicks N]        e.g.
//   node bench/train_page.mjs '{"steps": 300}' 1 3
//   node bench/train_page.mjs '{"steps": 3000}' 7 1 --clicks 20
//
// OPTIONS_JSON takes the trainer's option keys (steps, batch, d_model, heads, layers,
// d_ff, size, lr; task copy); the page is opened with them in its URL, Train is pressed,
// and the page's own figure is read when the schedule ends: tokens/second over training
// time only (the sum of the worker's tfp_trainer_step_stats calls; held-out evaluation,
// probe maps and messages excluded), tokens = steps × tokens_per_step as `tfp train`
// counts them. Also printed: the wall time from the click to the end (everything
// included), and the page's tokens/second over that time. Each run is a fresh page (a
// fresh module). The site is built into build/web-test/bench_train/ (or $TFP_WEB_DIST).
//
// --clicks N: while training, N clicks on the loss table's toggle (one every ~80 ms), each
// timed in the page from the event's timestamp to the next frame after the page's handlers
// (what the reader sees change); median and max printed as click_response_ms. This was a
// timed assertion in tests/browser/train_page.test.mjs (< 100 ms) until it failed under load.
import { openSite } from '../tests/browser/harness.mjs';

const argv = process.argv.slice(2);
const clicksAt = argv.indexOf('--clicks');
const CLICKS = clicksAt >= 0 ? Number(argv.splice(clicksAt, 2)[1]) : 0;
const [optionsText, seedText, runsText] = argv;
if (!seedText || !(CLICKS >= 0)) {
  console.error("usage: node bench/train_page.mjs OPTIONS_JSON SEED [RUNS] [--clicks N]");
  process.exit(2);
}
const o = JSON.parse(optionsText), runs = Number(runsText ?? 1);
const URL_KEYS = { steps: 'steps', batch: 'batch', d_model: 'd', heads: 'heads', layers: 'layers', d_ff: 'ff', size: 'size', lr: 'lr' };
const q = new URLSearchParams({ lang: 'en', seed: seedText });
for (const [k, v] of Object.entries(o)) {
  if (!(k in URL_KEYS)) throw new Error(`train_page: option ${k} is not in the page's URL`);
  q.set(URL_KEYS[k], String(v));
}
// The page's defaults are the small test configuration; `tfp train copy`'s are these.
const CLI_DEFAULTS = { d: 64, heads: 4, layers: 2, ff: 256, batch: 32, size: 8, steps: 600 };
for (const [k, v] of Object.entries(CLI_DEFAULTS)) if (!q.has(k)) q.set(k, String(v));

const site = await openSite({ name: 'bench_train' });
try {
  for (let r = 0; r < runs; r++) {
    const page = r === 0 ? site.page : await site.newPage();
    await page.goto(`${site.base}/train.html?${q}`);
    await page.waitForFunction(() => document.body.dataset.trainState === 'idle', null, { timeout: 60_000 });
    if (CLICKS) await page.evaluate(() => {
      window.__clicks = [];
      document.addEventListener('click', (ev) => {
        requestAnimationFrame(() => setTimeout(() => window.__clicks.push(performance.now() - ev.timeStamp), 0));
      }, { capture: true });
    });
    const t0 = Date.now();
    await page.click('#run');
    let clickResponse;
    if (CLICKS) {
      await page.waitForFunction(() => window.tfpTrain.step >= 5, null, { timeout: 600_000 });
      for (let i = 0; i < CLICKS; i++) {
        await page.click('#curve-table summary');
        await page.waitForTimeout(80);
      }
      const ms = (await page.evaluate(() => window.__clicks)).slice(1).sort((a, b) => a - b);
      clickResponse = { clicks: ms.length, median: +ms[Math.floor(ms.length / 2)].toFixed(1), max: +ms.at(-1).toFixed(1),
                        still_training: await page.evaluate(() => window.tfpTrain.state === 'running') };
    }
    await page.waitForFunction(() => document.body.dataset.trainState === 'done', null, { timeout: 600_000 });
    const wall = (Date.now() - t0) / 1000;
    const d = await page.evaluate(() => {
      const x = window.tfpTrain;
      return { info: x.info, simd: x.simd, tokensPerSecond: x.tokensPerSecond, evals: x.evals.length, last: x.evals.at(-1) };
    });
    const tokens = d.info.tokens_per_step * d.info.steps;
    console.log(JSON.stringify({
      run: r + 1, query: q.toString(), simd: d.simd, parameters: d.info.parameters, tokens_per_step: d.info.tokens_per_step,
      steps: d.info.steps, tokens_per_second: Math.round(d.tokensPerSecond), train_seconds: +(tokens / d.tokensPerSecond).toFixed(3),
      wall_seconds: wall, tokens_per_wall_second: Math.round(tokens / wall), evaluations: d.evals,
      held_out_sequence_accuracy: d.last.sequenceAccuracy, ...(clickResponse ? { click_response_ms: clickResponse } : {}),
    }));
    if (r > 0) await page.close();
  }
  if (site.problems.length) console.error('page problems:', site.problems);
} finally {
  await site.close();
}
