// Learn, chapter "Generating text", in Chromium:
//   - the step figure: the prompt's ids and the generated tokens equal the engine's
//     generator in Node (tests/js/model_api.mjs, the same wasm: exact) for the same prompt,
//     controls and seed; the shown step's logits equal tfp_model_forward on the context in
//     Node (exact), its p and q equal tfp_learn_sampling_probs in Node (exact) and an
//     independent double-precision computation written here (softmax(z/τ), then top-k,
//     then top-p on the renormalised top-k, renormalised; 2e-6); the bars show those
//     numbers; greedy (τ = 0) gives a one-hot q and the engine's greedy tokens; another
//     step shows a context one token longer; the same seed again gives the same tokens;
//     the exercise (top-k = 1) and the temperature-0 mistake show the engine's answers; the
//     playground link carries model, prompt and controls, and the playground generates the
//     same tokens with them;
//   - beam search: the page's two searches (width 1 and the reader's width) and every
//     traced candidate equal tfp_learn_beam_search in Node (exact); width 1 is the Node
//     generator's greedy continuation; the totals equal a teacher-forced recomputation
//     written here (model.forward on prompt + continuation, log softmax in double, 1e-4);
//     the preset (width 3) beats greedy; the steps, candidates and kept ones drawn are the
//     trace's; width 1 and a new width and length follow; the exercise's answer;
//   - the cache: the sizes equal tfp_learn_kv_cache_size in Node and layers × 2 × n × 128 ×
//     4 written here; the bytes exercise; the timing's token ids equal the Node generator's
//     for the longest length, both ways the same, and the mistake demo says so;
//   - the language switch rewrites the prose and keeps the inputs; 390 px without sideways
//     scrolling; no console error.
// Each test opens the chapter afresh (fresh()) and makes the changes it checks itself: no
// test inherits another's inputs, language or screen size.
// Screenshots: build/screenshots/learn/generation_{en,zh}_{1280,390}.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { freshPage, openSite, SHOTS } from './harness.mjs';
import { learnProbes, sameArray } from './learn_harness.mjs';
import { loadTfp } from '../js/tfp_module.mjs';
import { ModelApi, readShipped } from '../js/model_api.mjs';

let site, page, base, api, brown, renders, rendersAbove, part;
before(async () => {
  api = new ModelApi(await loadTfp());
  brown = api.load(readShipped('brown-gpt'), 'brown-gpt');
  site = await openSite({ name: 'learn_generation' });
  ({ page, base } = site);
  ({ renders, rendersAbove, part } = learnProbes(page));
  await mkdir(`${SHOTS}learn`, { recursive: true });
}, { timeout: 180_000 });
after(async () => {
  if (brown) api.free(brown);
  await site?.close();
});

/** tfp_learn_sampling_probs in Node. */
function samplingProbs(logits, temperature, topK, topP) {
  const V = logits.length;
  return api.withHeap((put) => {
    const z = put(Float32Array.from(logits)), out = api.m._tfp_alloc(8 * V + 4);
    try {
      api.check(api.m._tfp_learn_sampling_probs(z, V, temperature, topK, topP, out, out + 4 * V, out + 8 * V));
      return { raw: Array.from(new Float32Array(api.m.HEAPU8.buffer, out, V)), warped: Array.from(new Float32Array(api.m.HEAPU8.buffer, out + 4 * V, V)),
               kept: new DataView(api.m.HEAPU8.buffer).getInt32(out + 8 * V, true) };
    } finally {
      api.m._tfp_free(out);
    }
  });
}

/** tfp_learn_beam_search in Node: the result and the trace rows (step, rank). */
function beamSearch(prompt, width, maxTokens, alpha) {
  const W = 2 * width;
  return api.withHeap((put) => {
    const p = put(Int32Array.from(prompt));
    const ids = api.m._tfp_alloc(4 * maxTokens), res = api.m._tfp_alloc(40), tr = api.m._tfp_alloc(8 * maxTokens * W * 5);
    try {
      api.check(api.m._tfp_learn_beam_search(brown, p, prompt.length, width, maxTokens, alpha, -1, ids, res, tr));
      const r = Array.from(new Float64Array(api.m.HEAPU8.buffer, res, 5));
      const t = new Float64Array(api.m.HEAPU8.buffer, tr, maxTokens * W * 5);
      const steps = [];
      for (let s = 0; s < r[4]; s++) {
        const row = [];
        for (let k = 0; k < W; k++) {
          const o = 5 * (s * W + k);
          if (t[o] >= 0) row.push({ beam: t[o], token: t[o + 1], logProb: t[o + 2], tokenLogProb: t[o + 3], fate: t[o + 4] });
        }
        steps.push(row);
      }
      return { ids: Array.from(new Int32Array(api.m.HEAPU8.buffer, ids, r[0])), logProb: r[1], score: r[2], eos: r[3] === 1, steps };
    } finally {
      [ids, res, tr].forEach((x) => api.m._tfp_free(x));
    }
  });
}

/** The total log-probability of `cont` after `prompt`, teacher-forced: one forward pass,
 *  log softmax of each row in double, summed — independent of the search. */
function teacherForced(prompt, cont) {
  const out = api.forward(brown, [...prompt, ...cont]);
  const [, V] = out.logits.dims;
  let total = 0;
  cont.forEach((id, t) => {
    const row = out.logits.data.slice((prompt.length - 1 + t) * V, (prompt.length + t) * V);
    const m = Math.max(...row);
    let s = 0;
    for (const z of row) s += Math.exp(z - m);
    total += row[id] - m - Math.log(s);
  });
  return total;
}

const lp2 = (v) => new Intl.NumberFormat('en', { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(v);

/** Checks the beam figure against the engine in Node; returns the page's state and Node's searches. */
async function checkBeam() {
  const b = await part('beam');
  const o = b.controls;
  const tok = api.tokenize(brown, o.prompt);
  assert.deepEqual(b.promptIds, tok.ids.slice(0, b.promptIds.length), 'prompt ids');
  const g = beamSearch(b.promptIds, 1, o.maxTokens, o.alpha);
  const w = beamSearch(b.promptIds, o.width, o.maxTokens, o.alpha);
  for (const [got, want, what] of [[b.greedy, g, 'width 1'], [b.beam, w, `width ${o.width}`]]) {
    assert.deepEqual(got.ids, want.ids, `${what}: ids`);
    assert.equal(got.logProb, want.logProb, `${what}: log-prob`);
    assert.equal(got.score, want.score, `${what}: score`);
    assert.ok(Math.abs(got.logProb - teacherForced(b.promptIds, got.ids)) <= 1e-4, `${what}: teacher-forced total`);
  }
  // Width 1 is greedy generation: the generator at temperature 0, the model's eos.
  assert.deepEqual(b.greedy.ids, api.generate(brown, b.promptIds, { maxTokens: o.maxTokens, temperature: 0 }).ids, 'width 1 = greedy');
  // The trace: the engine's candidates, each with its whole continuation rebuilt here.
  assert.equal(b.steps.length, w.steps.length);
  let live = [[]];
  w.steps.forEach((st, s) => {
    assert.equal(b.steps[s].length, st.length, `step ${s + 1}: candidates`);
    const next = [];
    st.forEach((c, r) => {
      const x = b.steps[s][r];
      assert.deepEqual([x.rank, x.beam, x.token, x.logProb, x.tokenLogProb, x.fate], [r + 1, c.beam, c.token, c.logProb, c.tokenLogProb, c.fate]);
      const ids = [...live[c.beam], c.token];
      assert.deepEqual(x.ids, ids, `step ${s + 1} rank ${r + 1}: continuation`);
      if (c.fate === 1) next.push(ids);
    });
    live = next;
  });
  // What is drawn: a box per step, a line per candidate, the kept ones marked.
  const drawn = await page.locator('.gen-beam-step').evaluateAll((boxes) => boxes.map((bx) =>
    [...bx.querySelectorAll('li')].map((li) => [li.dataset.fate, li.querySelector('.gen-beam-nums').textContent])));
  assert.equal(drawn.length, w.steps.length);
  drawn.forEach((lis, s) => lis.forEach(([fate, nums], r) => {
    const c = w.steps[s][r];
    assert.equal(fate, String(c.fate));
    assert.equal(nums, `log p ${lp2(c.tokenLogProb)} · total ${lp2(c.logProb)}`);
  }));
  const totals = await page.locator('.gen-beam-results .gen-beam-total').allInnerTexts();
  assert.match(totals[0], new RegExp(`^Total log-probability ${lp2(g.logProb)} over ${g.ids.length} tokens`));
  assert.match(totals[1], new RegExp(`^Total log-probability ${lp2(w.logProb)} over ${w.ids.length} tokens; score ${lp2(w.score)}`));
  return { b, g, w };
}

/** The warped distribution computed here in double precision, independently of the engine:
 * softmax(z/τ) (τ = 0: one-hot argmax), keep the top k (ties to the lower id), then the
 * smallest prefix whose share of the kept mass reaches p, renormalised. */
function warpOracle(z, temperature, topK, topP) {
  const V = z.length;
  const q = new Array(V).fill(0);
  if (temperature === 0 || topK === 1) {
    let best = 0;
    for (let i = 1; i < V; i++) if (z[i] > z[best]) best = i;
    q[best] = 1;
    return q;
  }
  const m = Math.max(...z);
  const e = z.map((x) => Math.exp((x - m) / temperature));
  const s = e.reduce((a, b) => a + b, 0);
  const p = e.map((x) => x / s);
  const order = [...p.keys()].sort((a, b) => p[b] - p[a] || a - b);
  let keep = topK > 0 ? Math.min(topK, V) : V;
  const mass = order.slice(0, keep).reduce((a, i) => a + p[i], 0);
  if (topP < 1) {
    let cum = 0, n = 0;
    while (n < keep) { cum += p[order[n++]]; if (cum >= topP * mass) break; }
    keep = n;
  }
  const total = order.slice(0, keep).reduce((a, i) => a + p[i], 0);
  order.slice(0, keep).forEach((i) => { q[i] = p[i] / total; });
  return q;
}

/** Checks the generation and the shown step against the engine in Node; returns both. */
async function checkSteps() {
  const g = await part('generation');
  const o = g.controls;
  const tok = api.tokenize(brown, g.prompt);
  assert.deepEqual(g.promptIds, tok.ids.slice(0, g.promptIds.length), 'prompt ids');
  const want = api.generate(brown, g.promptIds, { maxTokens: o.maxTokens, temperature: o.temperature, topK: o.topK, topP: o.topP, seed: o.seed });
  assert.deepEqual(g.tokens.map((t) => t.id), want.ids, 'generated ids = the Node generator\'s');
  assert.equal(g.stopReason, want.reason);
  const s = await part('step');
  assert.deepEqual(s.context, [...g.promptIds, ...want.ids.slice(0, s.index)], 'the context of the shown step');
  const out = api.forward(brown, s.context);
  const [T, V] = out.logits.dims;
  sameArray(s.logits, Array.from(out.logits.data.slice((T - 1) * V, T * V)), 'logits of the context');
  const probs = samplingProbs(s.logits, o.temperature, o.topK, o.topP);
  sameArray(s.raw, probs.raw, 'p');
  sameArray(s.warped, probs.warped, 'q');
  assert.equal(s.kept, probs.kept);
  sameArray(s.warped, warpOracle(s.logits, o.temperature, o.topK, o.topP), 'q against the double oracle', 2e-6);
  sameArray(s.raw, warpOracle(s.logits, 1, 0, 1), 'p against the double oracle', 2e-6);
  assert.equal(s.kept, warpOracle(s.logits, o.temperature, o.topK, o.topP).filter((x) => x > 0).length, 'kept');
  assert.equal(s.chosen, want.ids[s.index]);
  // The bars: left p, right q, in the order of the generator's top list, the chosen one marked.
  const lists = await page.locator('.gen-bar-pair .prob-bars').evaluateAll((ols) => ols.map((ol) =>
    [...ol.querySelectorAll('li')].map((li) => [li.querySelector('.bar-label').textContent, li.querySelector('.bar-value').textContent])));
  assert.equal(lists.length, 2);
  const shownPct = (v) => `${(100 * v).toFixed(1)}%`;
  s.list.forEach((t, i) => {
    assert.equal(lists[0][i][1], shownPct(t.raw), `p bar ${i}`);
    assert.equal(lists[1][i][1], shownPct(t.warped), `q bar ${i}`);
    assert.equal(t.raw, probs.raw[t.id]);
    assert.equal(lists[0][i][0].startsWith('▶ '), t.id === s.chosen, `marker on bar ${i}`);
  });
  return { g, s, want };
}

const CHAPTER = () => `${base}/learn/generation.html?lang=en`;
/** The state each test starts from: the chapter loaded afresh in English at its defaults
 *  (the loop and the first timing drawn), 1280 × 720, light, nothing saved by an earlier test. */
async function fresh() {
  await freshPage(page, CHAPTER());
  await page.waitForFunction(() => window.tfpLearn?.state?.step && window.tfpLearn.state.timing, null, { timeout: 60_000 });
}

test('generation, the loop: tokens, p and q are the engine\'s; greedy, steps, seed, exercise, mistake, playground', { timeout: 120_000 }, async () => {
  const t0 = Date.now();
  await freshPage(page, CHAPTER());
  await page.waitForFunction(() => window.tfpLearn?.state?.step, null, { timeout: 60_000 });
  console.log(`first figure drawn ${Date.now() - t0} ms after navigation (module not cached)`);
  await page.waitForFunction(() => window.tfpLearn.state.timing, null, { timeout: 60_000 });
  const t1 = Date.now();
  await page.reload();
  await page.waitForFunction(() => window.tfpLearn?.state?.step, null, { timeout: 30_000 });
  const cached = Date.now() - t1;
  console.log(`first figure drawn ${cached} ms after navigation (module cached)`);
  const { g } = await checkSteps();
  assert.equal(g.prompt, 'The jury said');
  assert.deepEqual(g.controls, { prompt: 'The jury said', temperature: 0.8, topK: 20, topP: 0.9, seed: 1, maxTokens: 12 });
  assert.equal(await page.locator('.gen-token').count(), g.tokens.length);
  assert.match(await page.locator('.gen-chosen').innerText(), /The warpers kept \d+ of 2048 tokens/);

  // Another step: the context grows by the tokens chosen before it.
  let n = await renders();
  await page.locator('.gen-token[data-step="3"]').click();
  await page.waitForFunction(() => window.tfpLearn.state.step.index === 3, null, { timeout: 20_000 });
  await rendersAbove(n);
  const { s: s3 } = await checkSteps();
  assert.equal(s3.context.length, g.promptIds.length + 3);
  assert.equal(await page.locator('.gen-token[aria-pressed="true"]').getAttribute('data-step'), '3');
  assert.match(await page.locator('.gen-step h3').innerText(), /Step 4 of 12/);

  // The same seed again: the same tokens.
  n = await renders();
  await page.getByRole('button', { name: 'Generate again with seed 1' }).click();
  await rendersAbove(n);
  assert.equal((await part('again')).same, true);
  assert.match(await page.locator('.gen-again').innerText(), /the same 12 tokens/);

  // Greedy: temperature 0 → q one-hot on the argmax, the engine's greedy tokens.
  n = await renders();
  await page.getByRole('button', { name: 'Greedy', exact: true }).click();
  await page.waitForFunction(() => window.tfpLearn.state.generation.controls.temperature === 0, null, { timeout: 20_000 });
  await page.waitForFunction(() => window.tfpLearn.state.step.kept === 1, null, { timeout: 20_000 });
  const { s: sg } = await checkSteps();
  assert.equal(sg.kept, 1);
  assert.equal(Math.max(...sg.warped), 1);
  assert.match(await page.locator('.gen-controls output').first().innerText(), /greedy/);

  // A new prompt and top-k: new tokens, still the engine's.
  await page.locator('#gen-temperature').fill('1.2');
  await page.locator('#gen-topk').fill('5');
  await page.locator('#gen-prompt').fill('She opened the door and');
  await page.waitForFunction(() => window.tfpLearn.state.generation.prompt === 'She opened the door and'
    && window.tfpLearn.state.generation.controls.topK === 5 && window.tfpLearn.state.step.context.length >= 5, null, { timeout: 20_000 });
  await page.waitForTimeout(300);
  const { s: sk } = await checkSteps();
  assert.ok(sk.kept <= 5);

  // The mistake box: τ = 0 is the argmax, no division.
  await page.waitForFunction(() => window.tfpLearn.state.temps?.length === 5, null, { timeout: 20_000 });
  const temps = await part('temps');
  assert.deepEqual(temps.map((r) => r.temperature), [1, 0.5, 0.1, 0.01, 0]);
  assert.equal(temps[4].kept, 1);
  const sNow = await part('step');
  const z = sNow.logits;
  let arg = 0;
  z.forEach((v, i) => { if (v > z[arg]) arg = i; });
  for (const r of temps) {
    const want = samplingProbs(z, r.temperature, 0, 1);
    r.top.forEach((t) => assert.equal(t.q, want.warped[t.id], `τ = ${r.temperature}, id ${t.id}`));
  }
  assert.equal(temps[4].top.find((t) => t.id === arg)?.q, 1);
  assert.match(await page.locator('.gen-temps').innerText(), /100\.0%/);

  // The exercise: with top-k = 1 every temperature gives the greedy tokens.
  const ex = page.locator('.exercise').first();
  await ex.getByRole('radio', { name: /Nothing/ }).check();
  await ex.getByRole('button', { name: 'Check' }).click();
  await ex.locator('.verdict').waitFor();
  assert.equal(await ex.locator('.verdict').innerText(), 'Right.');
  const e = await part('exercise');
  assert.equal(e.same, true);
  const gNow = await part('generation');
  const greedy = api.generate(brown, gNow.promptIds, { maxTokens: gNow.controls.maxTokens, temperature: 0, seed: gNow.controls.seed });
  for (const ids of e.ids) assert.deepEqual(ids, greedy.ids);
  assert.equal(e.kept, 1);
  assert.match(await ex.locator('.exercise-result').innerText(), /all four continuations are identical/);

  // The playground link: model, prompt and controls; the playground generates the same tokens.
  const href = await page.locator('a.playground-link').getAttribute('href');
  const url = new URL(href, base);
  const c = gNow.controls;
  assert.deepEqual(Object.fromEntries(['model', 'text', 'temp', 'topk', 'topp', 'seed', 'max'].map((k) => [k, url.searchParams.get(k)])),
    { model: 'brown-gpt', text: c.prompt, temp: String(c.temperature), topk: String(c.topK), topp: String(c.topP), seed: String(c.seed), max: String(c.maxTokens) });
  const play = await site.newPage();
  await play.goto(url.href);
  await play.waitForFunction(() => window.tfpPlay?.encoding && window.tfpPlay.state.model === 'brown-gpt', null, { timeout: 60_000 });
  const st = await play.evaluate(() => window.tfpPlay.state);
  assert.deepEqual([st.text, st.temperature, st.topK, st.topP, st.seed, st.maxTokens], [c.prompt, c.temperature, c.topK, c.topP, c.seed, c.maxTokens]);
  await play.locator('#generate').click();
  await play.waitForFunction(() => Number(document.body.dataset.generations ?? 0) > 0, null, { timeout: 60_000 });
  const playIds = await play.evaluate(() => window.tfpPlay.outputs.generated.ids);
  assert.deepEqual(playIds, gNow.tokens.map((t) => t.id), 'the playground generates the same tokens');
  await play.close();
  assert.deepEqual(site.problems, []);
});

test('generation, beam search: width 1 is greedy, the preset\'s width 3 beats it, the trace is the engine\'s; width, length, exercise', { timeout: 120_000 }, async () => {
  await fresh();
  await page.waitForFunction(() => window.tfpLearn.state.beam, null, { timeout: 30_000 });
  let { b, g, w } = await checkBeam();
  assert.deepEqual(b.controls, { prompt: 'The jury said', width: 3, maxTokens: 5, alpha: 1 });
  // The preset: a wider beam finds a higher total than greedy, starting from another first token.
  assert.ok(w.logProb > g.logProb, `width 3 ${w.logProb} vs greedy ${g.logProb}`);
  assert.notEqual(w.ids[0], g.ids[0]);
  assert.equal(await page.locator('.gen-beam-verdict').innerText(),
    `Width 3 finds a continuation greedy missed, with a total log-probability higher by ${lp2(w.logProb - g.logProb)}.`);
  // Step 1 has one beam to extend: its best 2k = 6 tokens, 3 kept.
  assert.equal(w.steps[0].length, 6);
  assert.equal(w.steps[0].filter((c) => c.fate === 1).length, 3);

  // Width 1: the same search twice, greedy's tokens.
  let n = await renders();
  await page.locator('#gen-beam-width').fill('1');
  await page.waitForFunction(() => window.tfpLearn.state.beam.controls.width === 1, null, { timeout: 20_000 });
  await rendersAbove(n);
  ({ b, g, w } = await checkBeam());
  assert.deepEqual(b.beam.ids, b.greedy.ids);
  assert.match(await page.locator('.gen-beam-verdict').innerText(), /^Width 1 is greedy/);
  assert.equal(await page.locator('#gen-beam-width').evaluate((e) => e.closest('.field').querySelector('output').textContent), '1 (greedy)');

  // Width 5 and 7 new tokens on another prompt.
  await page.locator('#gen-beam-prompt').fill('His wife');
  await page.locator('#gen-beam-width').fill('5');
  await page.locator('#gen-beam-max').fill('7');
  await page.waitForFunction(() => { const c = window.tfpLearn.state.beam.controls; return c.width === 5 && c.maxTokens === 7 && c.prompt === 'His wife'; },
    null, { timeout: 20_000 });
  await page.waitForTimeout(300);
  ({ b, g, w } = await checkBeam());
  assert.equal(w.steps[1].length, 10);
  assert.equal(await page.locator('.gen-beam-step').count(), w.steps.length);

  // The exercise: width 3 against greedy on the reader's prompt and length, answered by the engine.
  const g3 = beamSearch(b.promptIds, 1, 7, 1), w3 = beamSearch(b.promptIds, 3, 7, 1);
  const same = g3.ids.join() === w3.ids.join();
  const right = same ? /finds greedy/ : w3.logProb > g3.logProb ? /Yes: higher/ : /ends lower/;
  const ex = page.locator('.exercise[data-exercise="beam-vs-greedy"]');
  assert.match(await ex.locator('.question').innerText(), /“His wife”, 7 new tokens/);
  await ex.getByRole('radio', { name: right }).check();
  await ex.getByRole('button', { name: 'Check' }).click();
  await ex.locator('.verdict').waitFor();
  assert.equal(await ex.locator('.verdict').innerText(), 'Right.');
  const e = await part('beamExercise');
  assert.deepEqual(e.greedy.ids, g3.ids);
  assert.deepEqual(e.beam.ids, w3.ids);
  assert.equal(e.beam.logProb, w3.logProb);
  assert.match(await ex.locator('.exercise-result').innerText(), new RegExp(`total ${lp2(g3.logProb)}.*total ${lp2(w3.logProb)}`, 's'));

  // The table alternative lists every candidate.
  const fig = page.locator('.gen-beam-search').locator('xpath=ancestor::figure');
  await fig.locator('details.data-table > summary').click();
  await page.waitForFunction(() => [...document.querySelectorAll('figure table caption')].some((c) => c.textContent.startsWith('Every candidate')), null, { timeout: 10_000 });
  const rows = await fig.locator('table').nth(1).locator('tbody tr').count();
  assert.equal(rows, w.steps.reduce((a, st) => a + st.length, 0));
  assert.deepEqual(site.problems, []);
});

test('generation, the KV cache: sizes from the config, the exercise, timing with identical tokens', { timeout: 120_000 }, async () => {
  await fresh();
  await page.waitForFunction(() => window.tfpLearn.state.cache, null, { timeout: 30_000 });
  const g = await part('generation');
  const cache = await part('cache');
  const n = g.promptIds.length + g.tokens.length;
  const size = (positions) => {
    const o = api.m._tfp_alloc(48);
    try {
      api.check(api.m._tfp_learn_kv_cache_size(brown, positions, o));
      return Array.from(new Float64Array(api.m.HEAPU8.buffer, o, 6));
    } finally {
      api.m._tfp_free(o);
    }
  };
  for (const [r, positions] of [[cache.context, n], [cache.full, 128]]) {
    const want = size(positions);
    assert.deepEqual([r.layers, r.heads, r.headDim, r.kvWidth, r.positions, r.bytes], want);
    // 4 layers × 2 (K, V) × positions × 128 (4 heads × 32) × 4 bytes.
    assert.equal(r.bytes, 4 * 2 * positions * 128 * 4);
  }
  assert.equal(cache.full.bytes, 524288);
  const rows = await page.locator('.gen-cache-view .gen-table tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
  assert.deepEqual(rows[1], [`the whole window (128 tokens, allocated)`, '524,288', '512.0']);
  assert.equal(rows[0][1], (4 * 2 * n * 128 * 4).toLocaleString('en'));

  const ex = page.locator('.exercise[data-exercise="cache-bytes"]');
  await ex.getByRole('radio', { name: /524,288/ }).check();
  await ex.getByRole('button', { name: 'Check' }).click();
  await ex.locator('.verdict').waitFor();
  assert.equal(await ex.locator('.verdict').innerText(), 'Right.');
  assert.match(await ex.locator('.exercise-result').innerText(), /4 layers × 2 \(K and V\) × 128 positions × 128 × 4 bytes = 524,288/);

  // Timing: measured again for the current prompt and controls; both ways the same ids.
  let r0 = await renders();
  // The measurement the page made on opening is already for this prompt: wait for a new one.
  await page.evaluate(() => { window.__timingBefore = window.tfpLearn.state.timing; });
  await page.getByRole('button', { name: 'Measure again' }).click();
  await page.waitForFunction(() => window.tfpLearn.state.timing !== window.__timingBefore
    && window.tfpLearn.state.timing?.prompt === window.tfpLearn.state.generation.prompt, null, { timeout: 60_000 });
  await page.waitForTimeout(100);
  const tm = await part('timing');
  const longest = Math.max(...tm.lengths);
  assert.equal(longest, 128 - tm.promptIds.length + 1);
  assert.equal(tm.result.rows.length, tm.lengths.length);
  for (const r of tm.result.rows) {
    assert.equal(r.same, true, `same tokens at ${r.length}`);
    assert.equal(r.tokens, r.length);
    assert.ok(r.msWith > 0 && r.msWithout > 0);
  }
  const last = tm.result.rows[tm.result.rows.length - 1];
  // With vs without the cache is a measurement: printed below, not asserted (a busy machine can reorder them).
  assert.ok(Number.isFinite(last.msWith) && Number.isFinite(last.msWithout));
  console.log('timing (ms, with / without):', tm.result.rows.map((r) => `${r.length}: ${r.msWith.toFixed(1)} / ${r.msWithout.toFixed(1)}`).join(', '));
  const o = tm.controls;
  const want = api.generate(brown, tm.promptIds, { maxTokens: longest, temperature: o.temperature, topK: o.topK, topP: o.topP, seed: o.seed, stop: [] });
  assert.deepEqual(tm.result.idsWith, want.ids);
  assert.deepEqual(tm.result.idsWithout, want.ids);
  assert.equal(await page.locator('.gen-timing-view .gen-table tbody tr').count(), tm.lengths.length);
  assert.equal(await page.locator('.gen-timing-view .line-chart path[fill="none"]').count(), 2);
  assert.match(await page.locator('.gen-both-same').innerText(), /Identical token ids: yes/);
  assert.ok(r0 >= 0);
  assert.deepEqual(site.problems, []);
});

test('generation, grouped-query attention: the cache of published configs and of a pasted one; a broken one is refused', { timeout: 120_000 }, async () => {
  await fresh();
  await page.waitForFunction(() => window.tfpLearn.state.gqa, null, { timeout: 60_000 });
  // layers × 2 × positions × H_kv·d_k × 4, from the published shapes (d_k = hidden / H).
  const bytes = (L, hidden, H, Hkv, n) => L * 2 * n * Hkv * (hidden / H) * 4;
  let g = await part('gqa');
  assert.equal(g.positions, 4096);
  const by = Object.fromEntries(g.rows.map((r) => [r.name, r]));
  assert.equal(by['Llama 2 7B'].bytes, bytes(32, 4096, 32, 32, 4096));
  assert.equal(by['Llama 3 8B'].bytes, bytes(32, 4096, 32, 8, 4096));
  assert.equal(by['Llama 3 8B'].kvHeads, 8);
  assert.equal(by['Qwen2.5 0.5B'].bytes, bytes(24, 896, 14, 2, 4096));
  assert.equal(by['Llama 2 7B'].bytes / by['Llama 3 8B'].bytes, 4);
  // A pasted multi-query config (one key/value head) at 1024 positions.
  const mqa = { model_type: 'llama', hidden_size: 2048, intermediate_size: 5632, num_attention_heads: 16, num_key_value_heads: 1,
                num_hidden_layers: 22, vocab_size: 32000, max_position_embeddings: 2048, rms_norm_eps: 1e-5, hidden_act: 'silu' };
  await page.locator('#gen-gqa-positions').selectOption('1024');
  await page.locator('#gen-gqa-config').fill(JSON.stringify(mqa));
  await page.locator('#gen-gqa-config').dispatchEvent('change');
  await page.waitForFunction(() => window.tfpLearn.state.gqa.positions === 1024 && window.tfpLearn.state.gqa.rows.length === 4, null, { timeout: 30_000 });
  g = await part('gqa');
  assert.equal(g.rows[3].name, 'your config');
  assert.equal(g.rows[3].bytes, bytes(22, 2048, 16, 1, 1024));
  assert.match(await page.locator('#gen-gqa-config').evaluate((e) => e.closest('figure').innerText), /your config/);
  await page.locator('#gen-gqa-config').fill('{"model_type": "llama", ');
  await page.locator('#gen-gqa-config').dispatchEvent('change');
  await page.waitForFunction(() => window.tfpLearn.state.gqa.refused !== '', null, { timeout: 30_000 });
  assert.match(await page.locator('#gen-gqa-note').innerText(), /^The engine refused this config: /);
  assert.equal((await part('gqa')).rows.length, 3, 'the presets are still shown');
});

test('generation, attention sinks: each head\'s first-token share is the engine\'s on the text; a new text reruns it', { timeout: 120_000 }, async () => {
  await fresh();
  await page.waitForFunction(() => window.tfpLearn.state.sinks, null, { timeout: 60_000 });
  const check = async () => {
    const got = await part('sinks');
    const out = api.forward(brown, got.ids, { attention: true });
    const names = Object.keys(out).filter((k) => /^dec\.\d+\.attn\.probs$/.test(k)).sort();
    const want = [];
    for (const n of names) {
      const [H, T] = out[n].dims;
      const p = api.put(out[n].data), o = api.m._tfp_alloc(H * 16);
      try {
        api.check(api.m._tfp_attention_head_stats_masked(p, H, T, T, 1, 0, o));
        const st = new Float32Array(api.m.HEAPU8.buffer, o, H * 4);
        for (let h = 0; h < H; h++) want.push(st[h * 4 + 2]);
      } finally { api.m._tfp_free(p); api.m._tfp_free(o); }
    }
    sameArray(got.shares, want, 'first-token shares', 1e-6);
    const T = got.ids.length;
    let u = 0;
    for (let i = 2; i <= T; i++) u += 1 / i;
    assert.ok(Math.abs(got.uniform - u / (T - 1)) < 1e-12, 'the uniform baseline');
    const line = await page.locator('#gen-sinks-readout').innerText();
    assert.match(line, new RegExp(`of ${want.length} heads give it more than half`));
    assert.match(line, new RegExp(`more than half`));
    return got;
  };
  const first = await check();
  await page.locator('#gen-sinks-text').fill('a jury said that the city had been given a fair and full report of the election');
  await page.locator('#gen-sinks-text').dispatchEvent('change');
  await page.waitForFunction((old) => JSON.stringify(window.tfpLearn.state.sinks.ids) !== old, JSON.stringify(first.ids), { timeout: 30_000 });
  await check();
});

test('generation: the language switch rewrites the prose and keeps the inputs; 390 px; screenshots', { timeout: 90_000 }, async () => {
  await fresh();
  // A prompt other than the default: the switch must keep it.
  const prompt = 'She opened the door and';
  await page.locator('#gen-prompt').fill(prompt);
  await page.waitForFunction((p) => window.tfpLearn.state.generation.prompt === p && window.tfpLearn.state.step.context.length >= 5,
    prompt, { timeout: 20_000 });
  await site.shot('learn/generation_en_1280', { fullPage: true });
  const enFirst = await page.locator('.chapter-section').first().innerText();
  const g = await part('generation');
  assert.equal(g.prompt, prompt);
  await page.selectOption('#lang-select', 'zh-CN');
  await page.waitForFunction(() => document.querySelector('.chapter-section h2').textContent.includes('词元'));
  const zhFirst = await page.locator('.chapter-section').first().innerText();
  assert.notEqual(zhFirst, enFirst);
  assert.match(zhFirst, /自回归/);
  assert.equal((await part('generation')).prompt, g.prompt);
  assert.equal(await page.locator('#gen-prompt').inputValue(), g.prompt);
  assert.match(await page.locator('.gen-chosen').innerText(), /保留了/);
  assert.match(await page.locator('.exercise h3').first().innerText(), /先预测/);
  assert.match(await page.locator('.gen-beam-step h4').first().innerText(), /^第 1 步：/);
  assert.match(await page.locator('.gen-beam-verdict').innerText(), /束宽 3 找到了贪心错过的续写/);
  assert.equal(await page.locator('#gen-beam-prompt').inputValue(), 'The jury said');
  await page.waitForTimeout(300);
  await site.shot('learn/generation_zh_1280', { fullPage: true });
  await page.setViewportSize({ width: 390, height: 800 });
  // Charts redraw for the new width when they get to it: wait for that, not for a time.
  await page.waitForFunction(() => document.documentElement.scrollWidth - document.documentElement.clientWidth <= 0, null, { timeout: 30_000 }).catch(() => {});
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `sideways scroll at 390 px: ${overflow}`);
  await site.shot('learn/generation_zh_390', { fullPage: true });
  await page.selectOption('#lang-select', 'en');
  await page.waitForTimeout(300);
  await site.shot('learn/generation_en_390', { fullPage: true });
  await page.setViewportSize({ width: 1280, height: 720 });
  assert.deepEqual(site.problems, []);
});
