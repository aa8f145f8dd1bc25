// The playground's query–key drill-down in Chromium (web/src/pages/playground/drilldown.ts).
// Opens the playground with the shipped Brown LM, types a sentence, opens the Query·key
// tab, chooses query tokens (token strip click, the drill-down's own buttons, arrow keys)
// and layers/heads, and checks that every number the page shows (window.tfpPlay.shown,
// and the table cells' data-value) equals the engine's. Oracle: the same WASM module in
// Node through the C API (tests/js/model_api.mjs attentionSteps and forward); tolerance
// 1e-6 (same code, same inputs: equality expected). Also: the softmax equals the forward
// pass's attention row, masked keys are shown as masked, the URL holds the query token,
// the encoder–decoder's cross-attention drill-down, and no horizontal scroll at 390 px.
// Screenshots: build/screenshots/drilldown_{light,dark,390,cross}.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { openSite, playgroundProbes, SHOTS, urlMatches } from './harness.mjs';
import { loadTfp } from '../js/tfp_module.mjs';
import { hasShipped, ModelApi, MODELS, readShipped } from '../js/model_api.mjs';
import { close } from '../js/compare.mjs';

const TEXT = 'The cat sat on the mat because it was tired.';
const NAMES = ['q', 'k', 'v', 'scores', 'scaled', 'bias', 'mask', 'logits', 'probs', 'weighted_v', 'out', 'scale'];

let site, page, base, api, problems, requests;
before(async () => {
  api = new ModelApi(await loadTfp());
  site = await openSite({ name: 'drilldown' });
  ({ page, base, problems, requests } = site);
}, { timeout: 180_000 });
after(async () => { await site?.close(); });

const { after: after_, shown, translate } = playgroundProbes(() => page);
/** Waits until the drill-down shows `query` (0-based) of (layer, head), returns shown. */
async function drillShown(query, layer, head) {
  await page.waitForFunction(([q, l, h]) => {
    const s = window.tfpPlay.shown;
    return s && s.view === 'qk' && s.note === `query ${q}` && s.layer === l && s.head === h;
  }, [query, layer, head], { timeout: 30_000 });
  return shown();
}

/** Every panel against the Node oracle, the softmax against the forward pass, the table. */
async function checkAgainstEngine(model, s, ids, pick, opts, fwdProbs) {
  const want = api.attentionSteps(model, ids, { ...pick, ...opts });
  for (const n of NAMES) {
    assert.deepEqual(s.panels[n].dims, want[n].dims, `${n} dims`);
    close(s.panels[n].data, Array.from(want[n].data), `${n} (set ${pick.set}, L${pick.layer + 1} H${pick.head + 1} q${pick.query + 1})`);
  }
  const [, Tq, Tk] = fwdProbs.dims;
  close(s.panels.probs.data, Array.from(fwdProbs.data.subarray((pick.head * Tq + pick.query) * Tk, (pick.head * Tq + pick.query + 1) * Tk)),
    'softmax vs the forward pass\'s attention row');
  // The table: one row per key; masked rows say so; each weight cell holds the engine's value.
  const rows = page.locator('.qk-table tbody tr');
  assert.equal(await rows.count(), Tk);
  const masked = s.panels.mask.data.filter((m) => m !== 0).length;
  assert.equal(await page.locator('.qk-table tbody tr.masked').count(), masked);
  assert.equal(await page.locator('.qk-table tbody tr.masked td', { hasText: '0 (masked)' }).count(), masked);
  const cells = await page.locator('.qk-table tbody td.qk-weight').evaluateAll((tds) => tds.map((td) => Number(td.dataset.value)));
  close(cells, Array.from(want.probs.data), 'table weight cells');
  return want;
}

test('brown-gpt: the drill-down shows the engine\'s steps for the chosen query, layer and head', {
  timeout: 120_000, skip: hasShipped('brown-gpt') ? false : 'no models/brown-gpt',
}, async () => {
  const gpt = api.load(readShipped('brown-gpt'), 'brown-gpt');
  try {
    await page.goto(`${base}/?model=brown-gpt`);
    await after_('loads', 0, 60_000);
    let r = await after_('renders', 0);
    await page.locator('#text').fill(TEXT);
    await page.waitForFunction((t) => window.tfpPlay.state.text === t && window.tfpPlay.encoding !== null, TEXT);
    r = await after_('renders', r);
    await page.locator('#tab-qk').click();
    const ids = api.tokenize(gpt, TEXT).ids;
    const T = ids.length;
    const fwd = api.forward(gpt, ids, { attention: true });
    // Default query: the last token, layer 1 head 1.
    let s = await drillShown(T - 1, 0, 0);
    await checkAgainstEngine(gpt, s, ids, { set: 'dec', layer: 0, head: 0, query: T - 1 }, {}, fwd['dec.0.attn.probs']);

    // Choose query 4 by pressing its token in the token strip, then layer 3, head 2.
    await page.locator('.token-span').nth(3).click();
    s = await drillShown(3, 0, 0);
    await page.locator('#layer-select').selectOption({ value: '2' });
    await page.locator('#head-select').selectOption({ value: '1' });
    s = await drillShown(3, 2, 1);
    await checkAgainstEngine(gpt, s, ids, { set: 'dec', layer: 2, head: 1, query: 3 }, {}, fwd['dec.2.attn.probs']);
    // Causal: keys after the query are masked (T - 4 of them), keys up to it never.
    assert.deepEqual(s.panels.mask.data, Array.from({ length: T }, (_, j) => (j > 3 ? 1 : 0)));
    await urlMatches(page, /[?&]token=4(&|$)/);
    await urlMatches(page, /[?&]view=qk(&|$)/);
    await page.screenshot({ path: `${SHOTS}drilldown_light.png`, fullPage: true });

    // Keyboard: the query buttons are one tab stop; ArrowRight moves to the next token.
    await page.locator('.qk-token[aria-pressed="true"]').focus();
    await page.keyboard.press('ArrowRight');
    s = await drillShown(4, 2, 1);
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.index), '4');
    assert.equal(await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle), 'solid');
    await checkAgainstEngine(gpt, s, ids, { set: 'dec', layer: 2, head: 1, query: 4 }, {}, fwd['dec.2.attn.probs']);
    // A link reproduces the drill-down (query 5 = 1-based in the URL).
    await urlMatches(page, /[?&]token=5(&|$)/);
    const url = page.url();
    const p2 = await site.newPage();
    await p2.goto(url);
    await p2.waitForFunction(() => window.tfpPlay?.shown?.view === 'qk' && window.tfpPlay.shown.note === 'query 4', null, { timeout: 60_000 });
    await p2.close();

    // Dark theme, then a 390 px phone: no horizontal page scroll.
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.waitForTimeout(150);
    await page.screenshot({ path: `${SHOTS}drilldown_dark.png`, fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    // Charts redraw for the new width when they get to it: wait for that, not for a time.
    await page.waitForFunction(() => document.documentElement.scrollWidth - window.innerWidth <= 0, null, { timeout: 30_000 }).catch(() => {});
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the drill-down overflows a 390 px screen by ${overflow} px`);
    await page.locator('.drilldown').screenshot({ path: `${SHOTS}drilldown_390.png` });
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1280, height: 720 });
  } finally {
    api.free(gpt);
  }
});

test('numbers-transformer: cross-attention drill-down (decoder query, encoder keys and values)', {
  timeout: 90_000, skip: hasShipped('numbers-transformer') ? false : 'no models/numbers-transformer',
}, async () => {
  const text = 'forty-two thousand';
  const nt = api.load(readShipped('numbers-transformer'), 'numbers-transformer');
  const cfg = JSON.parse(readFileSync(`${MODELS}numbers-transformer/config.json`, 'utf8'));
  try {
    await page.goto(`${base}/?model=numbers-transformer&text=${encodeURIComponent(text)}&view=qk&set=cross&layer=2&head=3&beam=4`);
    await after_('loads', 0, 60_000);
    await after_('renders', 0);
    await translate();
    const src = api.tokenize(nt, text).ids;
    const tr = api.translate(nt, src, { beamSize: 4, startId: cfg.decoder_start_token_id });
    const tgt = [cfg.decoder_start_token_id, ...tr.ids];
    const fwd = api.forward(nt, src, { attention: true, tgtIds: tgt });
    // Pick decoder query 3 with the drill-down's own buttons.
    await page.locator('.qk-token').nth(2).click();
    const s = await drillShown(2, 1, 2);
    assert.equal(s.set, 'cross');
    assert.equal(await page.locator('.qk-token').count(), tgt.length);
    await checkAgainstEngine(nt, s, src, { set: 'cross', layer: 1, head: 2, query: 2 }, { tgtIds: tgt }, fwd['dec.1.cross.probs']);
    assert.deepEqual(s.panels.k.dims, [src.length, cfg.d_model / cfg.n_heads]);  // keys: the source tokens
    await page.screenshot({ path: `${SHOTS}drilldown_cross.png`, fullPage: true });
  } finally {
    api.free(nt);
  }
});

test('only the page\'s own host was contacted and nothing logged an error', () => {
  const foreign = requests.filter((u) => !u.startsWith(base) && !u.startsWith('data:') && !u.startsWith('blob:'));
  assert.deepEqual(foreign, []);
  assert.deepEqual(problems, []);
});
