// English and Simplified Chinese on every page (web/src/i18n/), in Chromium (site built
// and served by harness.mjs). Checks that
//   - ?lang=zh-CN gives <html lang="zh-CN">, Chinese headings, labels and engine-status
//     lines; nothing visible (text, aria-label, title) is an English message that has a
//     Chinese translation, a raw message key, or "undefined"; no markup key is missing;
//   - switching language in the page rewrites the text without reloading: a window
//     marker survives, the loaded model and the drawn attention result are the same
//     objects, and the engine was not asked again (render and load counters unchanged);
//   - the choice is kept in the URL (also after the page rewrites its URL state) and in
//     localStorage (a reload without ?lang keeps it); a browser whose language is zh
//     gets Chinese with no ?lang; an English browser gets English;
//   - screenshots of both pages in zh-CN at 1280×720 and 390 px wide (light theme):
//     build/screenshots/i18n_*.png.
// The oracle for "translated" is the catalogues themselves (window.tfpI18n.catalogs):
// every English message whose Chinese differs must not be seen in the Chinese page.
// Each test starts from a page opened afresh (freshPage: no saved language, 1280 × 720);
// what a reload keeps is saved and reloaded within the same test.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { counter, counterAbove, freshPage, openSite, urlMatches } from './harness.mjs';

let site, page, base, problems;

before(async () => {
  site = await openSite({ name: 'i18n', contextOptions: { locale: 'en-US', colorScheme: 'light' } });
  ({ page, base, problems } = site);
}, { timeout: 180_000 });

after(async () => { await site?.close(); });

const waitCounter = (p, key, above, timeout = 60_000) => counterAbove(p, key, above, timeout);

/**
 * English text a Chinese page must not show: the fixed pieces (between {params}) of every
 * English message whose Chinese differs, at least 8 characters and two words long (short
 * ones such as "id {id}" or "Top-k" are the same in both). `prefixes` limits the keys.
 */
function untranslatedPieces(catalogs, prefixes) {
  const pieces = new Set();
  for (const [key, en] of Object.entries(catalogs.en)) {
    if (!prefixes.some((p) => key.startsWith(p))) continue;
    const zh = catalogs['zh-CN'][key];
    for (const form of typeof en === 'string' ? [en] : Object.values(en)) {
      if (JSON.stringify(en) === JSON.stringify(zh)) continue;
      for (const piece of form.split(/\{\w+\}/)) {
        const p = piece.trim();
        if (p.length >= 8 && /[A-Za-z]{2,}\s+[A-Za-z]{2,}/.test(p)) pieces.add(p);
      }
    }
  }
  return [...pieces];
}

/** Visible text, plus every aria-label / title / placeholder, and the document title. */
function pageText(p) {
  return p.evaluate(() => {
    const attrs = [];
    for (const el of document.querySelectorAll('[aria-label], [title], [placeholder]'))
      for (const a of ['aria-label', 'title', 'placeholder']) if (el.hasAttribute(a)) attrs.push(el.getAttribute(a));
    return { body: document.body.innerText, attrs: attrs.join('\n'), title: document.title };
  });
}

/** Runs of four or more English words in the page's own text (not the model's): text the
 *  catalogues do not know yet (a string hard-coded in a page or widget). Model text —
 *  the text box, its echo, tokens, generations, predictions — is left out. */
function englishRuns(p) {
  return p.evaluate(() => {
    const skip = '#text, #text-echo, #tokens, .token-strip, .gen-output, .prob-bars, .per-token td, .qk-tokens, .qk-key, ' +
      '.heatmap-table th, .mask-fill h4, #model-info, script, style, [hidden], .visually-hidden, input, textarea, option, code, .katex';
    const out = [];
    const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      const el = n.parentElement;
      if (!el || el.closest(skip) || !el.getClientRects().length) continue;
      for (const m of n.textContent.matchAll(/[A-Za-z][A-Za-z'’-]+(?:[ ,]+[A-Za-z][A-Za-z'’-]+){3,}/g)) out.push(m[0]);
    }
    return out;
  });
}

async function assertChinese(p, prefixes, what) {
  const { catalogs, missing, lang } = await p.evaluate(() => ({
    catalogs: window.tfpI18n.catalogs, missing: [...window.tfpI18n.missing], lang: document.documentElement.lang,
  }));
  assert.equal(lang, 'zh-CN', `${what}: <html lang>`);
  assert.deepEqual(missing, [], `${what}: message keys missing from the catalogue`);
  const { body, attrs, title } = await pageText(p);
  const all = `${title}\n${body}\n${attrs}`;
  assert.ok(/[\u4e00-\u9fff]/.test(title), `${what}: document title is Chinese (${title})`);
  assert.doesNotMatch(all, /\bundefined\b|\bNaN\b/, `${what}: "undefined" or NaN visible`);
  assert.doesNotMatch(all, /\b(common|nav|play|lab|w)\.[a-z][A-Za-z.]+\b/, `${what}: a raw message key is visible`);
  const left = untranslatedPieces(catalogs, prefixes).filter((s) => all.includes(s));
  assert.deepEqual(left, [], `${what}: English left on the Chinese page`);
  assert.deepEqual(await englishRuns(p), [], `${what}: English sentences not in any catalogue`);
  return { catalogs, body };
}

test('attention lab in Chinese; switching language keeps the engine result; the choice persists', { timeout: 120_000 }, async () => {
  await freshPage(page, `${base}/lab.html?lang=zh-CN&text=the+cat+sat+on+the+mat&heads=2&d=16&seed=5`);
  await waitCounter(page, 'renders', 0);
  await site.shot('i18n_lab_zh_1280x720');
  const { catalogs } = await assertChinese(page, ['common.', 'nav.', 'lab.', 'w.'], 'lab zh-CN');
  const zh = catalogs['zh-CN'];
  assert.equal(await page.locator('h1').textContent(), zh['lab.title']);
  assert.equal(await page.locator('#results-title').textContent(), zh['lab.results']);
  assert.equal(await page.locator('label[for="d-model"]').textContent(), zh['lab.dModel']);
  assert.match(await page.locator('#status').textContent(), /^6 个词元，2 个头，每个头 8 维。引擎 /);
  assert.equal(await page.locator('.head-grid-cells figcaption').first().textContent(), '第 1 个头（共 2 个）');
  assert.equal(await page.locator('#lang-select').inputValue(), 'zh-CN');
  await page.locator('#tokens button').first().hover();  // title of a token button: Chinese
  assert.match(await page.locator('#tokens button').first().getAttribute('title'), /点击标记为填充/);

  // Switch to English in the page: same document, same engine result, no new request.
  await page.evaluate(() => { window.i18nMarker = 'kept'; window.resultBefore = window.tfpLab.result; });
  const renders = await counter(page, 'renders');
  await page.selectOption('#lang-select', 'en');
  await page.waitForFunction(() => document.documentElement.lang === 'en');
  assert.equal(await page.locator('h1').textContent(), 'Multi-head attention lab');
  assert.ok((await englishRuns(page)).length > 5, 'the English-sentence scan finds the English page\'s sentences');
  assert.match(await page.locator('#status').textContent(), /^6 tokens, 2 heads of 8 dimensions\. Engine /);
  assert.equal(await page.locator('.head-grid-cells figcaption').first().textContent(), 'Head 1 of 2');
  assert.equal(await page.locator('.legend-title').first().textContent(), 'Attention weight');
  assert.equal(await page.evaluate(() => window.i18nMarker), 'kept', 'the page was reloaded');
  assert.ok(await page.evaluate(() => window.resultBefore === window.tfpLab.result), 'the engine result was replaced');
  assert.equal(await counter(page, 'renders'), renders, 'switching language asked the engine again');
  await urlMatches(page, /[?&]lang=en\b/);
  assert.equal(await page.title(), 'Multi-head attention lab — Transformer Playground');
  // English plural forms: "1 head" (the Chinese form has none).
  await page.locator('label[for="heads-1"]').click();
  await waitCounter(page, 'renders', renders);
  assert.match(await page.locator('#status').textContent(), /^6 tokens, 1 head of 16 dimensions\. /);

  // Back to Chinese; a change of settings rewrites the URL state and keeps lang in it.
  await page.selectOption('#lang-select', 'zh-CN');
  await page.waitForFunction(() => document.documentElement.lang === 'zh-CN');
  assert.equal(await page.locator('.legend-title').first().textContent(), zh['w.attentionWeight']);
  const renders1 = await counter(page, 'renders');
  await page.locator('label[for="heads-4"]').click();
  await waitCounter(page, 'renders', renders1);
  await urlMatches(page, /heads=4/);
  await urlMatches(page, /[?&]lang=zh-CN\b/);
  assert.match(await page.locator('#status').textContent(), /4 个头，每个头 4 维/);
  await assertChinese(page, ['common.', 'nav.', 'lab.', 'w.'], 'lab zh-CN after a change');

  // The choice survives a reload, and a visit without ?lang (localStorage).
  await page.reload();
  await waitCounter(page, 'renders', 0);
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'zh-CN');
  await page.goto(`${base}/lab.html`);
  await waitCounter(page, 'renders', 0);
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'zh-CN', 'localStorage choice ignored');
  assert.equal(await page.locator('h1').textContent(), zh['lab.title']);

  // 390 px wide (a phone): the Chinese page still lays out.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${base}/lab.html?lang=zh-CN`);
  await waitCounter(page, 'renders', 0);
  await site.shot('i18n_lab_zh_390', { fullPage: true });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 1, `the 390 px page scrolls sideways by ${overflow} px`);
  await page.setViewportSize({ width: 1280, height: 720 });
  assert.deepEqual(problems, []);
});

test('the browser language picks the locale when there is no ?lang and no saved choice', { timeout: 60_000 }, async () => {
  for (const [locale, want, h1] of [['zh-CN', 'zh-CN', '多头注意力实验室'], ['zh-TW', 'zh-CN', '多头注意力实验室'], ['en-GB', 'en', 'Multi-head attention lab'], ['fr-FR', 'en', 'Multi-head attention lab']]) {
    const ctx = await site.browser.newContext({ locale });
    const p = await ctx.newPage();
    await p.goto(`${base}/lab.html`);
    await p.waitForFunction(() => window.tfpI18n !== undefined);
    assert.equal(await p.evaluate(() => document.documentElement.lang), want, `browser ${locale}`);
    assert.equal(await p.locator('h1').textContent(), h1, `browser ${locale}`);
    assert.doesNotMatch(p.url(), /lang=/, 'a language from the browser is not written into the URL');
    await ctx.close();
  }
});

test('playground in Chinese; switching language keeps the loaded model and its attention maps', { timeout: 180_000 }, async () => {
  await freshPage(page, `${base}/index.html?lang=zh-CN`);
  await waitCounter(page, 'loads', 0, 120_000);
  await waitCounter(page, 'renders', 0);
  await page.waitForFunction(() => window.tfpPlay.attention.length > 0 && window.tfpPlay.shown?.view === 'model');
  await site.shot('i18n_playground_zh_1280x720');
  const { catalogs } = await assertChinese(page, ['common.', 'nav.', 'play.', 'w.'], 'playground zh-CN');
  const zh = catalogs['zh-CN'];
  assert.equal(await page.locator('h1').textContent(), zh['play.title']);
  assert.equal(await page.locator('#inspector-title').textContent(), zh['play.inspector']);
  assert.equal(await page.locator('#tab-model').textContent(), zh['play.view.model']);
  assert.equal(await page.locator('#copy-link').textContent(), zh['play.copyLink']);
  assert.match(await page.locator('#status').textContent(), /个词元/);

  // Switch to English: the same model object, the same attention tensors, no new load.
  await page.evaluate(() => {
    window.i18nMarker = 'kept';
    window.before = { info: window.tfpPlay.modelInfo, attention: window.tfpPlay.attention };
  });
  const loads = await counter(page, 'loads');
  await page.selectOption('#lang-select', 'en');
  await page.waitForFunction(() => document.documentElement.lang === 'en');
  assert.equal(await page.locator('h1').textContent(), 'Transformer playground');
  assert.equal(await page.locator('#tab-model').textContent(), 'Model');
  assert.match(await page.locator('#status').textContent(), /^\d+ tokens?\. Forward pass /);
  assert.equal(await page.evaluate(() => window.i18nMarker), 'kept', 'the page was reloaded');
  assert.equal(await counter(page, 'loads'), loads, 'switching language reloaded the model');
  assert.ok(await page.evaluate(() => window.before.info === window.tfpPlay.modelInfo), 'the model changed');
  assert.ok(await page.evaluate(() => window.before.attention === window.tfpPlay.attention), 'the attention maps were recomputed');
  await urlMatches(page, /[?&]lang=en\b/);

  // The page's own URL state keeps lang; back in Chinese the inspector's text follows.
  await page.locator('#tab-matrix').click();
  await page.waitForFunction(() => window.tfpPlay.shown?.view === 'matrix');
  await urlMatches(page, /view=matrix/);
  await urlMatches(page, /[?&]lang=en\b/);
  await page.selectOption('#lang-select', 'zh-CN');
  await page.waitForFunction(() => document.documentElement.lang === 'zh-CN');
  await page.waitForFunction(() => /第 1 层/.test(document.querySelector('#view figcaption')?.textContent ?? ''));
  await assertChinese(page, ['common.', 'nav.', 'play.', 'w.'], 'playground matrix view zh-CN');
  assert.ok(await page.evaluate(() => window.before.attention === window.tfpPlay.attention));

  await page.reload();
  await waitCounter(page, 'loads', 0, 120_000);
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'zh-CN');
  await urlMatches(page, /view=matrix/);

  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${base}/index.html?lang=zh-CN`);
  await waitCounter(page, 'loads', 0, 120_000);
  await waitCounter(page, 'renders', 0);
  await site.shot('i18n_playground_zh_390', { fullPage: true });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 1, `the 390 px page scrolls sideways by ${overflow} px`);
  await page.setViewportSize({ width: 1280, height: 720 });
  assert.deepEqual(problems, []);
});
