// The theme switch (widgets/theme.ts) in Chromium, on both pages:
//   - "Auto" follows the system scheme (emulated light, then dark);
//   - choosing Light or Dark overrides the system at once: the page's colours AND the
//     canvases (the masked cells of the model view are painted with the theme's mask
//     colour), and the choice survives a reload (localStorage); Auto gives the system back;
//   - the switch's labels are translated (zh-CN) and it is a labelled control;
//   - the lab page has the same switch and shares the saved choice.
// Each test starts from the playground opened afresh (fresh(): no saved theme, light system
// scheme); what a reload keeps is chosen and reloaded within the same test.
// Screenshots: build/screenshots/theme_dark_forced.png, theme_switch_zh_390.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { freshPage, openSite, SHOTS } from './harness.mjs';

let site, page, base;
before(async () => {
  site = await openSite({ name: 'theme' });
  ({ page, base } = site);
});
after(async () => { await site?.close(); });

const LIGHT_BG = 'rgb(251, 251, 252)', DARK_BG = 'rgb(18, 18, 22)';
const LIGHT_MASK = [230, 230, 234], DARK_MASK = [52, 52, 61];
const bodyBg = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);

/** The most frequent colour of a 6×6 patch at the top right of the first model-view tile:
 * masked (future) cells of a causal map, hatched — the patch is mostly the mask colour. */
async function maskPixel() {
  return page.evaluate(() => {
    const c = document.querySelector('#view .lh-tile canvas');
    const d = c.getContext('2d').getImageData(c.width - 8, 1, 6, 6).data;
    const counts = new Map();
    for (let i = 0; i < d.length; i += 4) {
      const k = `${d[i]},${d[i + 1]},${d[i + 2]}`;
      counts.set(k, (counts.get(k) ?? 0) + 1);
    }
    return [...counts].sort((a, b) => b[1] - a[1])[0][0].split(',').map(Number);
  });
}
const isNear = (got, want) => got.every((v, i) => Math.abs(v - want[i]) <= 3);
/** Waits (the system scheme's change event is asynchronous) for the masked cells' colour. */
async function maskIs(want, what) {
  const t0 = Date.now();
  let got = await maskPixel();
  while (!isNear(got, want) && Date.now() - t0 < 5000) {
    await page.waitForTimeout(50);
    got = await maskPixel();
  }
  assert.ok(isNear(got, want), `${what}: ${got} vs ${want}`);
}

/** Loads the playground (brown-gpt, model view) and waits for its first render; what the
 *  page saved (the theme) is kept: a test's own reloads. */
async function openPlayground(query = '') {
  await page.goto(`${base}/?model=brown-gpt&view=model${query}`);
  await page.waitForFunction(() => Number(document.body.dataset.renders ?? 0) > 0, null, { timeout: 60_000 });
}
/** The state each test starts from: the playground opened afresh with no saved theme or
 *  language, the system scheme light, 1280 × 720. */
async function fresh(query = '') {
  await freshPage(page, `${base}/?model=brown-gpt&view=model${query}`);
  await page.waitForFunction(() => Number(document.body.dataset.renders ?? 0) > 0, null, { timeout: 60_000 });
}

test('auto follows the system; Light / Dark override it, repaint the canvases and persist', { timeout: 120_000 }, async () => {
  await fresh();
  const select = page.locator('#theme-select');
  assert.equal(await select.inputValue(), 'auto');
  assert.equal(await page.getByRole('combobox', { name: 'Theme' }).count(), 1, 'a labelled control');
  assert.equal(await bodyBg(), LIGHT_BG);
  await maskIs(LIGHT_MASK, 'light mask cell');

  // Auto: the system's dark scheme applies, canvases included.
  await page.emulateMedia({ colorScheme: 'dark' });
  assert.equal(await bodyBg(), DARK_BG);
  await maskIs(DARK_MASK, 'auto, system dark: mask cell');

  // Light chosen while the system is dark.
  await select.selectOption('light');
  assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'light');
  assert.equal(await bodyBg(), LIGHT_BG);
  await maskIs(LIGHT_MASK, 'forced light: mask cell');

  // Dark chosen while the system is light; it survives a reload.
  await page.emulateMedia({ colorScheme: 'light' });
  await select.selectOption('dark');
  assert.equal(await bodyBg(), DARK_BG);
  await maskIs(DARK_MASK, 'forced dark: mask cell');
  await page.screenshot({ path: `${SHOTS}theme_dark_forced.png` });
  await openPlayground();
  assert.equal(await select.inputValue(), 'dark');
  assert.equal(await bodyBg(), DARK_BG);
  await maskIs(DARK_MASK, 'after reload: mask cell');

  // The lab shares the choice; Auto there gives the system (light) back on both pages.
  await page.goto(`${base}/lab.html`);
  await page.waitForSelector('#theme-select');
  assert.equal(await page.locator('#theme-select').inputValue(), 'dark');
  assert.equal(await bodyBg(), DARK_BG);
  await page.locator('#theme-select').selectOption('auto');
  assert.equal(await bodyBg(), LIGHT_BG);
  await openPlayground();
  assert.equal(await select.inputValue(), 'auto');
  assert.equal(await bodyBg(), LIGHT_BG);
  assert.equal(await page.evaluate(() => localStorage.getItem('tfp-theme')), null);
});

test('the switch speaks the page\'s language', { timeout: 60_000 }, async () => {
  await fresh('&lang=zh-CN');
  const labels = await page.locator('#theme-select option').allTextContents();
  assert.deepEqual(labels, ['跟随系统', '浅色', '深色']);
  assert.equal(await page.getByRole('combobox', { name: '主题' }).count(), 1);
  // On a phone the two switchers wrap under the page links; nothing scrolls sideways.
  await page.setViewportSize({ width: 390, height: 720 });
  assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 390);
  await page.screenshot({ path: `${SHOTS}theme_switch_zh_390.png` });
  await page.setViewportSize({ width: 1280, height: 720 });
});
