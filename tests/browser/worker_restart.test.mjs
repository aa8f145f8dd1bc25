// The engine's worker dies and comes back (issue 15, the page), in the playground
// (Chromium, the production build under its Content-Security-Policy):
//   - window.tfpPlay.crashEngine() makes the module trap for real (an out-of-bounds read
//     in the C API: what an out-of-memory abort or a bug looks like, a
//     WebAssembly.RuntimeError); the worker reports it and closes, the Engine
//     (web/src/engine/engine.ts) starts a new one, and the page (shell/engine_restart.ts)
//     says so in a role="alert" notice, in English and, after a language switch, Chinese;
//   - the page reloads the model and keeps the reader's text and view: brown-gpt with a
//     chosen layer, head, query token and an ablated head shows the same state, the same
//     attention maps, the same shown panel and the same next-token bars as before, bit for
//     bit; numbers-transformer keeps its translation and its cross-attention view;
//   - the new worker works: typing after the restart computes the new text;
//   - no console errors besides none at all, no CSP violation (the harness).
// Each test opens the page afresh with the URL it needs (freshPage: 1280 × 720, no language
// saved by an earlier test).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { attentionOn, freshPage, openSite, playgroundProbes, shownOn } from './harness.mjs';
import { hasShipped } from '../js/model_api.mjs';

let site, page, base;
const { after: after_, num, translate } = playgroundProbes(() => page);

before(async () => {
  site = await openSite({ name: 'worker_restart' });
  ({ page, base } = site);
}, { timeout: 120_000 });

after(async () => {
  await site?.close();
});

/** What the reader sees and the engine computed: compared before and after a restart. */
const snapshot = async () => ({
  text: await page.locator('#text').inputValue(),
  state: await page.evaluate(() => ({ ...window.tfpPlay.state })),
  shown: await shownOn(page),
  attention: await attentionOn(page),
  bars: await page.evaluate(() => window.tfpPlay.outputs.nextTokens.map((c) => ({ id: c.id, prob: c.prob, token: c.token }))),
  translation: await page.evaluate(() => document.getElementById('translation')?.textContent ?? null),
  tokens: await page.evaluate(() => window.tfpPlay.encoding?.ids ?? null),
});

/** Crashes the engine and waits until the page has reloaded the model and rendered again. */
async function crashAndWait() {
  const restarts = await num('engineRestarts');
  const loads = await num('loads');
  const renders = await num('renders');
  const started = Date.now();
  await page.evaluate(() => window.tfpPlay.crashEngine());
  await after_('engineRestarts', restarts);
  assert.equal(await num('loads'), loads + 1, 'the model was loaded again');
  await after_('renders', renders);
  await page.waitForFunction(() => document.getElementById('status')?.textContent?.includes('ms'));
  return Date.now() - started;
}

const SKIP = hasShipped('brown-gpt') && hasShipped('numbers-transformer') ? false : 'no shipped models';

test('brown-gpt: a trap in the worker; the page says so, restarts it, reloads the model, same text, view and numbers', { timeout: 90_000, skip: SKIP }, async () => {
  const text = 'The jury said the city of Atlanta';
  await freshPage(page, `${base}/?model=brown-gpt&view=matrix&layer=3&head=2&token=4&ablate=${encodeURIComponent('dec.1.1=0')}&text=${encodeURIComponent(text)}`);
  await after_('renders', 0, 60_000);
  await page.waitForFunction(() => window.tfpPlay.outputs.nextTokens.length > 0 && document.getElementById('status')?.textContent?.includes('ms'));
  const before = await snapshot();
  assert.equal(before.state.view, 'matrix');
  assert.equal(before.state.layer, 2);
  assert.equal(before.state.ablate, 'dec.1.1=0');
  assert.equal(await page.locator('#engine-notice').count(), 0, 'no notice before anything happened');

  const ms = await crashAndWait();
  const notice = page.locator('#engine-notice');
  assert.equal(await notice.getAttribute('role'), 'alert');
  assert.match(await notice.textContent(), /^The engine stopped \(.*(out of bounds|unreachable|Aborted|trap).*\) and a new one took over/);
  assert.equal(await num('engineStops'), 1);
  const afterCrash = await snapshot();
  assert.deepEqual(afterCrash, before, 'text, view, maps, shown panel and next-token bars as before the restart');
  console.log(`restart: crash to re-rendered page ${ms} ms`);

  await page.locator('#lang-select').selectOption('zh-CN');
  assert.match(await notice.textContent(), /^引擎停止运行了（.*），新的引擎已接替.*关闭$/);
  await page.locator('#lang-select').selectOption('en');

  // The new worker computes new text.
  const renders = await num('renders');
  await page.locator('#text').fill('The jury said the city');
  await after_('renders', renders);
  await page.waitForFunction((n) => window.tfpPlay.encoding?.ids.length < n && document.getElementById('status')?.textContent?.includes('ms'),
    before.tokens.length);
  assert.notDeepEqual((await snapshot()).attention, before.attention);
  await site.shot('worker_restart_notice');
  await page.locator('#engine-notice-dismiss').click();
  assert.equal(await notice.isVisible(), false, 'the reader can dismiss the notice');
  assert.deepEqual(site.problems, []);
});

test('numbers-transformer: the translation and the cross-attention view survive a restart', { timeout: 90_000, skip: SKIP }, async () => {
  await freshPage(page, `${base}/?model=numbers-transformer&text=${encodeURIComponent('three hundred and forty-two')}`);
  await page.waitForFunction(() => window.tfpPlay?.modelInfo?.architecture === 'encoder_decoder' && document.getElementById('status')?.textContent?.includes('ms'), null, { timeout: 60_000 });
  await translate();
  await page.locator('#tab-cross').click();
  await page.waitForFunction(() => window.tfpPlay.shown?.view === 'cross');
  const before = await snapshot();
  assert.equal(before.translation, '342');
  await crashAndWait();
  await page.waitForFunction(() => document.getElementById('translation')?.textContent === '342');
  await page.waitForFunction(() => window.tfpPlay.shown?.view === 'cross');
  assert.deepEqual(await snapshot(), before, 'translation, cross view and maps as before the restart');
  assert.equal(await num('engineRestarts'), 1, 'a new page: its own count');
  assert.deepEqual(site.problems, []);
});
