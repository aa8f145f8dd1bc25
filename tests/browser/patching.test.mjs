// The playground's activation-patching view (issue 33; pages/playground/patching.ts) in
// Chromium, on the shipped brown-gpt (else the bundled GPT-2 fixture):
//   - the answer is the clean run's most probable next token, the foil the corrupted
//     run's first candidate other than it (as the engine ranks them: its logits here);
//   - every sweep the page draws equals the engine's: the same model run here in Node on
//     the same WASM module through the C API (tfp_model_activation_patching, all layers
//     in one call; the page asks one layer per request) — the residual stream (L+1, T)
//     normalised, the heads by position laid out as (L·H) rows × T, raw log-probabilities;
//   - the URL keeps the corrupted prompt, the sweep, the metric and raw (pt, ps, pm, praw);
//   - a corrupted prompt of another length is refused, naming both lengths;
//   - pressing a head's cell opens that head in the matrix view;
//   - each head's q, k, v and pattern patched over every position: the engine's tables;
//   - mean ablation of each head: the engine's (tfp_model_head_ablation) raw and as the change;
//   - direct logit attribution: layers × (heads, bias, MLP) and the accumulated residual
//     are the engine's (tfp_model_logit_attribution), the terms add up to the metric;
//   - an encoder-only model says why it has no patching;
//   - a long sweep, and integrated gradients over many steps, show progress and stop on
//     Cancel; the engine then runs the next request.
// Screenshot: build/screenshots/playground_view_patch.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { openSite, playgroundProbes, SHOTS, urlMatches } from './harness.mjs';
import { loadTfp } from '../js/tfp_module.mjs';
import { ModelApi, readFixture, readShipped, hasShipped } from '../js/model_api.mjs';

const SHIPPED = hasShipped('brown-gpt');
const MODEL = SHIPPED ? 'brown-gpt' : 'fixture-gpt2_tiny';
const CLEAN = 'the jury said that the city';

let site, page, base, api, model, info, corruptedText, clean, corrupted;
before(async () => {
  api = new ModelApi(await loadTfp());
  model = api.load(SHIPPED ? readShipped('brown-gpt') : readFixture('gpt2_tiny'), MODEL);
  info = api.info(model);
  clean = Array.from(api.tokenize(model, CLEAN).ids);
  // A corrupted prompt of the same length that differs: the first candidate that fits.
  for (const c of ['the jury said that the county', 'the court said that the city', 'the jury knew that the city', 'a jury said that a city']) {
    const ids = Array.from(api.tokenize(model, c).ids);
    if (ids.length === clean.length && ids.some((v, i) => v !== clean[i])) { corruptedText = c; corrupted = ids; break; }
  }
  assert.ok(corruptedText, 'a corrupted prompt of the same length');
  site = await openSite({ name: 'patching' });
  ({ page, base } = site);
}, { timeout: 180_000 });
after(async () => { await site?.close(); });

const { after: after_, shown } = playgroundProbes(() => page, { timeout: 60_000 });

/** Waits for the patch view to show a note matching `re`; returns what is shown. */
async function patchShown(re) {
  await page.waitForFunction((src) => window.tfpPlay?.shown?.view === 'analyse' && new RegExp(src).test(window.tfpPlay.shown.note ?? ''),
    re.source, { timeout: 120_000 });
  return shown();
}

const lastLogits = (ids) => {
  const f = api.forward(model, ids);
  const [, V] = f.logits.dims;
  return f.logits.data.subarray((ids.length - 1) * V, ids.length * V);
};
const argmax = (row, skip = -1) => row.reduce((b, v, i) => (i !== skip && (b < 0 || v > row[b]) ? i : b), -1);
const close = (got, want, what) => {
  assert.equal(got.length, want.length, `${what}: length`);
  got.forEach((v, i) => assert.ok(Math.abs(v - want[i]) <= 1e-5 + 1e-5 * Math.abs(want[i]), `${what}[${i}]: page ${v}, engine ${want[i]}`));
};

test('patching: the page draws the engine\'s sweeps for the answer and foil it picked; URL, lengths, heads', { timeout: 300_000 }, async () => {
  const q = new URLSearchParams({ model: MODEL, text: CLEAN, view: 'analyse', pt: corruptedText });
  await page.goto(`${base}/?${q}`);
  await after_('loads', 0, 60_000);
  let s = await patchShown(/^resid diff norm /);
  const [, answer, foil] = / answer (\d+) foil (\d+)$/.exec(s.note).map(Number);
  assert.equal(answer, argmax(lastLogits(clean)), 'answer: the clean run\'s top token');
  assert.equal(foil, argmax(lastLogits(corrupted), answer), 'foil: the corrupted run\'s top other token');
  const want = api.activationPatching(model, clean, corrupted, { answer, foil });
  const L = info.n_decoder_layers, H = info.n_heads, T = clean.length;
  assert.deepEqual(s.panels['patch.resid'].dims, [L + 1, T]);
  close(s.panels['patch.resid'].data, Array.from(want['resid.logit_diff_norm'].data), 'resid normalised');
  close(s.panels['patch.metric'].data, Array.from(want.metric.data), 'metric');
  // Position by position, before block 0, only the positions that differ can move the metric.
  for (let p = 0; p < T; p++)
    if (clean[p] === corrupted[p]) assert.equal(s.panels['patch.resid'].data[p], 0, `resid before layer 1 at unchanged position ${p + 1}`);
  assert.match(await page.locator('.patching .help').innerText(), /TransformerLens/);
  assert.equal(await page.locator('.patch-answer').inputValue(), String(answer));
  assert.equal(await page.locator('.patch-foil').inputValue(), String(foil));
  await page.locator('#inspector').screenshot({ path: `${SHOTS}playground_view_patch.png` });
  // The table saved as JSON and CSV: the numbers drawn, their row and column labels, the prompts and tokens.
  const [jsonFile] = await Promise.all([page.waitForEvent('download'), page.locator('.patch-json').click()]);
  assert.equal(jsonFile.suggestedFilename(), 'patching_resid.json');
  const saved = JSON.parse(await readFile(await jsonFile.path(), 'utf8'));
  assert.deepEqual([saved.view, saved.sweep, saved.metric, saved.answer, saved.foil], ['patching', 'resid', 'diff', answer, foil]);
  assert.deepEqual(saved.clean.ids, clean);
  assert.equal(saved.corrupted.text, corruptedText);
  assert.equal(saved.rows.length, L + 1);
  assert.equal(saved.columns.length, T);
  close(saved.values.flat(), Array.from(want['resid.logit_diff_norm'].data), 'saved JSON values');
  const [csvFile] = await Promise.all([page.waitForEvent('download'), page.locator('.patch-csv').click()]);
  assert.equal(csvFile.suggestedFilename(), 'patching_resid.csv');
  const csvRows = (await readFile(await csvFile.path(), 'utf8')).trim().split('\n');
  assert.equal(csvRows.length, L + 2, 'a header and one line per row');

  // Heads by position: (L, T, H) drawn as (L·H) rows × T.
  await page.locator('.patch-sweep').selectOption('head_pos');
  s = await patchShown(/^head_pos diff norm /);
  const hp = want['head_pos.logit_diff_norm'].data;
  assert.deepEqual(s.panels['patch.head_pos'].dims, [L * H, T]);
  const laid = [];
  for (let l = 0; l < L; l++) for (let h = 0; h < H; h++) for (let p = 0; p < T; p++) laid.push(hp[(l * T + p) * H + h]);
  close(s.panels['patch.head_pos'].data, laid, 'head_pos normalised');
  await urlMatches(page, /[?&]ps=head_pos(&|$)/);

  // Raw log-probabilities of the answer.
  await page.locator('.patch-metric').selectOption('logprob');
  await patchShown(/^head_pos logprob norm /);  // the controls are redrawn: act on the new ones
  await page.locator('.patch-raw').check();
  s = await patchShown(/^head_pos logprob raw /);
  const raw = want['head_pos.logprob'].data, laidRaw = [];
  for (let l = 0; l < L; l++) for (let h = 0; h < H; h++) for (let p = 0; p < T; p++) laidRaw.push(raw[(l * T + p) * H + h]);
  close(s.panels['patch.head_pos'].data, laidRaw, 'head_pos raw logprob');
  await urlMatches(page, /[?&]pm=logprob(&|$)/);
  await urlMatches(page, /[?&]praw=1(&|$)/);

  // Heads over all positions; pressing a cell opens that head's map.
  await page.locator('.patch-sweep').selectOption('head_all');
  s = await patchShown(/^head_all logprob raw /);
  close(s.panels['patch.head_all'].data, Array.from(want['head_all.logprob'].data), 'head_all raw logprob');
  const canvas = page.locator('.patching .heatmap canvas').first();
  await canvas.focus();
  await page.keyboard.press('ArrowDown');   // layer 2 (0-based 1), head 1
  await page.keyboard.press('ArrowRight');  // head 2
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => window.tfpPlay?.shown?.view === 'matrix', null, { timeout: 30_000 });
  assert.deepEqual(await page.evaluate(() => [window.tfpPlay.state.layer, window.tfpPlay.state.head]), [Math.min(1, L - 1), 1]);

  // Reopened from the URL: the same settings.
  await page.goto(`${base}/?${new URLSearchParams({ model: MODEL, text: CLEAN, view: 'analyse', pt: corruptedText, ps: 'head_all', pm: 'logprob', praw: '1' })}`);
  s = await patchShown(/^head_all logprob raw /);
  close(s.panels['patch.head_all'].data, Array.from(want['head_all.logprob'].data), 'head_all from the URL');

  // Each head's queries, keys, values and pattern at every position (TransformerLens's *_all_pos sweeps).
  for (const sweep of ['head_q', 'head_k', 'head_v', 'head_pattern']) {
    await page.locator('.patch-sweep').selectOption(sweep);
    s = await patchShown(new RegExp(`^${sweep} logprob raw `));
    assert.deepEqual(s.panels[`patch.${sweep}`].dims, [L, want[`${sweep}.logprob`].dims[1]]);
    close(s.panels[`patch.${sweep}`].data, Array.from(want[`${sweep}.logprob`].data), `${sweep} raw logprob`);
  }

  // Direct logit attribution of the clean prompt (the corrupted one is not used).
  await page.locator('.patch-sweep').selectOption('dla');
  s = await patchShown(/^dla answer /);
  const dla = api.logitAttribution(model, clean, { answer, foil });
  close(s.panels['dla.heads'].data, Array.from(dla.heads.data), 'dla heads');
  const layers = [];
  for (let l = 0; l < L; l++) layers.push(...dla.heads.data.subarray(l * H, (l + 1) * H), dla.attn_bias.data[l], dla.mlp.data[l]);
  close(s.panels['dla.layers'].data, layers, 'dla layers × (heads, bias, MLP)');
  close(s.panels['dla.accumulated'].data, Array.from(dla.accumulated.data), 'accumulated residual');
  const [metric, sum, residual] = s.panels['dla.terms'].data;
  assert.ok(Math.abs(sum - metric) <= 1e-4 * Math.max(1, Math.abs(metric)) && Math.abs(residual) <= 1e-4, `terms ${sum} vs metric ${metric}`);
  assert.ok(Math.abs(s.panels['dla.accumulated'].data.at(-1) - metric) <= 1e-4 * Math.max(1, Math.abs(metric)));
  assert.match(await page.locator('.patch-status').innerText(), /add up to/);
  await page.locator('#inspector').screenshot({ path: `${SHOTS}playground_view_dla.png` });

  // Mean ablation of each head (the metric is log p(answer), raw, from the URL above), then as the change.
  await page.locator('.patch-sweep').selectOption('ablate_mean');
  s = await patchShown(/^ablate_mean logprob raw /);
  const abl = api.headAblation(model, clean, { answer, foil, mode: 1 });
  close(s.panels['ablate.mean'].data, Array.from(abl.logprob.data), 'mean ablation, raw log p');
  await page.locator('.patch-raw').uncheck();
  s = await patchShown(/^ablate_mean logprob change /);
  close(s.panels['ablate.mean'].data, Array.from(abl.logprob.data, (v) => v - abl.metric.data[1]), 'mean ablation, change');

  // Another length: refused with both lengths, nothing drawn.
  await page.locator('.patch-sweep').selectOption('resid');
  await patchShown(/^resid logprob change |^resid logprob norm /);
  await page.locator('.patch-corrupted').fill(`${corruptedText} and more words here`);
  await page.locator('.patch-corrupted').dispatchEvent('change');
  s = await patchShown(/^lengths differ$/);
  assert.match(await page.locator('.patch-status').innerText(), new RegExp(`has ${T} tokens and the corrupted one \\d+`));
});

test('gradients: attention beside gradient × input, its norm and integrated gradients, as the engine computes them', { timeout: 300_000 }, async () => {
  const q = new URLSearchParams({ model: MODEL, text: CLEAN, view: 'analyse', ps: 'gradients', pn: '16', layer: '2', head: '3' });
  await page.goto(`${base}/?${q}`);
  let s = await patchShown(/^gradients diff steps 16 /);
  const [, answer, foil] = / answer (\d+) foil (\d+)$/.exec(s.note).map(Number);
  assert.equal(answer, argmax(lastLogits(clean)), 'answer: the clean run\'s top token');
  // The page's WASM engine against the same module here; threads may sum in another order.
  const near = (got, want, what) => {
    assert.equal(got.length, want.length, `${what}: length`);
    got.forEach((v, i) => assert.ok(Math.abs(v - want[i]) <= 1e-4 + 1e-3 * Math.abs(want[i]), `${what}[${i}]: page ${v}, engine ${want[i]}`));
  };
  const check = (shownNow, metric, steps) => {
    const want = api.gradientAttribution(model, clean, { answer, foil, metric, steps });
    near(shownNow.panels['grad.x_input'].data, Array.from(want.grad_x_input.data), 'gradient × input');
    near(shownNow.panels['grad.norm'].data, Array.from(want.grad_norm.data), 'gradient norm');
    near(shownNow.panels['grad.integrated'].data, Array.from(want.integrated.data), 'integrated gradients');
    const [value, baseline, sum, gap] = shownNow.panels['grad.metric'].data;
    near([value, baseline], Array.from(want.metric.data), 'metric and baseline');
    near([sum, gap], Array.from(want.completeness.data), 'integrated sum and completeness gap');
    assert.ok(Math.abs(sum - gap - (value - baseline)) <= 1e-3 * Math.max(1, Math.abs(value - baseline)), 'gap = sum − change');
  };
  check(s, 0, 16);
  // The attention row: head 3 of layer 2 from the last position, as the forward pass gives it.
  const T = clean.length, map = api.forward(model, clean, { attention: true })['dec.1.attn.probs'];
  close(s.panels['grad.attention'].data, Array.from(map.data.subarray((2 * T + T - 1) * T, (2 * T + T) * T)), 'attention row');
  assert.match(await page.locator('.patch-status').innerText(), /completeness gap/);
  await page.locator('#inspector').screenshot({ path: `${SHOTS}playground_view_gradients.png` });

  // Steps from the control, then the log-probability: the URL keeps both.
  await page.locator('.patch-steps').fill('8');
  await page.locator('.patch-steps').dispatchEvent('change');
  s = await patchShown(/^gradients diff steps 8 /);
  check(s, 0, 8);
  await urlMatches(page, /[?&]pn=8(&|$)/);
  await page.locator('.patch-metric').selectOption('logprob');
  s = await patchShown(/^gradients logprob steps 8 /);
  check(s, 1, 8);
  await urlMatches(page, /[?&]pm=logprob(&|$)/);
});

test('patching: an encoder-only model says why it has none', { timeout: 120_000 }, async () => {
  await page.goto(`${base}/?model=fixture-bert_tiny&view=analyse`);
  await page.waitForFunction(() => window.tfpPlay?.shown?.view === 'analyse', null, { timeout: 60_000 });
  assert.equal((await shown()).note, 'no patching');
  assert.match(await page.locator('#view .view-note').innerText(), /decoder-only/);
});

test('patching: a long sweep shows its progress and stops on Cancel; the engine then runs the next one', { timeout: 300_000 }, async () => {
  // A clean prompt near the model's context, and one word changed at its end: heads by position is
  // L·T·H forward passes of that length — long enough to be cancelled in the middle.
  const ctx = info.max_positions ?? 128;
  let longClean = CLEAN, longCorrupted = corruptedText;
  while (api.tokenize(model, `${CLEAN} ${longClean}`).ids.length < Math.min(ctx, 128) - 8) {
    longClean = `${CLEAN} ${longClean}`;
    longCorrupted = `${CLEAN} ${longCorrupted}`;
  }
  const n = api.tokenize(model, longClean).ids.length;
  assert.equal(api.tokenize(model, longCorrupted).ids.length, n, 'the same length');
  const q = new URLSearchParams({ model: MODEL, text: longClean, view: 'analyse', pt: longCorrupted, ps: 'head_pos' });
  await page.goto(`${base}/?${q}`);
  await after_('loads', 0, 60_000);
  const cancel = page.locator('.patch-cancel');
  await cancel.waitFor({ state: 'visible', timeout: 60_000 });
  // Progress moves: a later count than the first.
  await page.waitForFunction(() => /Patching… [1-9]\d* of \d+/.test(document.querySelector('.patch-status')?.textContent ?? ''), null, { timeout: 60_000 });
  const before = await page.locator('.patch-status').innerText();
  const [, done, total] = /Patching… (\d+) of (\d+)/.exec(before).map(Number);
  assert.ok(done < total, `${done} of ${total}`);
  await cancel.click();
  const s = await patchShown(/^cancelled$/);
  assert.deepEqual(s.panels, {});
  assert.match(await page.locator('.patch-status').innerText(), /^Cancelled\./);
  assert.ok(await cancel.isHidden(), 'Cancel goes once the sweep stopped');
  // The same page and its engine go on: the residual-stream sweep of the same prompts is drawn and is the engine's.
  await page.locator('.patch-sweep').selectOption('resid');
  const r = await patchShown(/^resid diff norm /);
  const [, answer, foil] = / answer (\d+) foil (\d+)$/.exec(r.note).map(Number);
  const want = api.activationPatching(model, Array.from(api.tokenize(model, longClean).ids), Array.from(api.tokenize(model, longCorrupted).ids),
                                      { answer, foil, kinds: 1 });
  close(r.panels['patch.resid'].data, Array.from(want['resid.logit_diff_norm'].data), 'resid after a cancel');
  assert.deepEqual(site.problems, []);
});

test('gradients: integrated gradients over many steps show their progress and stop on Cancel; the next run is the engine\'s', { timeout: 300_000 }, async () => {
  // 1024 steps on a prompt near the context: one forward and one backward pass each, in
  // requests of a few steps, long enough to be cancelled in the middle.
  let longClean = CLEAN;
  while (api.tokenize(model, `${CLEAN} ${longClean}`).ids.length < Math.min(info.max_positions ?? 128, 128) - 8) longClean = `${CLEAN} ${longClean}`;
  const q = new URLSearchParams({ model: MODEL, text: longClean, view: 'analyse', ps: 'gradients', pn: '1024' });
  await page.goto(`${base}/?${q}`);
  const cancel = page.locator('.patch-cancel');
  await cancel.waitFor({ state: 'visible', timeout: 60_000 });
  await page.waitForFunction(() => /Integrated gradients… [1-9]\d* of 1024 steps/.test(document.querySelector('.patch-status')?.textContent ?? ''),
    null, { timeout: 60_000 });
  const [, done] = /Integrated gradients… (\d+) of 1024/.exec(await page.locator('.patch-status').innerText()).map(Number);
  assert.ok(done < 1024, `${done} of 1024 steps before Cancel`);
  await cancel.click();
  const s = await patchShown(/^cancelled$/);
  assert.deepEqual(s.panels, {});
  assert.match(await page.locator('.patch-status').innerText(), /^Cancelled\./);
  assert.ok(await cancel.isHidden(), 'Cancel goes once the run stopped');
  // The same page goes on: 6 steps (two requests, the last one short) equal the engine's one call.
  await page.locator('.patch-steps').fill('6');
  await page.locator('.patch-steps').dispatchEvent('change');
  const r = await patchShown(/^gradients diff steps 6 /);
  const [, answer, foil] = / answer (\d+) foil (\d+)$/.exec(r.note).map(Number);
  const ids = Array.from(api.tokenize(model, longClean).ids);
  const want = api.gradientAttribution(model, ids, { answer, foil, metric: 0, steps: 6 });
  r.panels['grad.integrated'].data.forEach((v, i) => {
    const w = want.integrated.data[i];
    assert.ok(Math.abs(v - w) <= 1e-4 + 1e-3 * Math.abs(w), `integrated[${i}]: page ${v}, engine ${w}`);
  });
  const [value, baseline, sum, gap] = r.panels['grad.metric'].data;
  assert.ok(Math.abs(baseline - want.metric.data[1]) <= 1e-4 + 1e-3 * Math.abs(want.metric.data[1]), 'baseline');
  assert.ok(Math.abs(sum - want.completeness.data[0]) <= 1e-4 + 1e-3 * Math.abs(want.completeness.data[0]), 'sum');
  assert.ok(Math.abs(sum - gap - (value - baseline)) <= 1e-3 * Math.max(1, Math.abs(value - baseline)), 'gap = sum − change');
  assert.deepEqual(site.problems, []);
});
