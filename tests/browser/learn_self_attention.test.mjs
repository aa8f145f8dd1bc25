// Learn, chapter 3 (self-attention step by step) and the Learn shell, in Chromium:
//   - the example's numbers, checked against values derived by hand (below), to 4 decimals;
//   - an edited input changes every intermediate, and the new numbers equal an
//     independent double-precision computation from the inputs the page shows;
//   - the exercise reveals the engine's answer and is kept as progress; the chapter is
//     marked read at its end; the contents page shows both;
//   - the "wrong axis" demonstration: its columns sum to 1, its rows do not;
//   - W_K = W_Q: the scores become symmetric and A does not (the page's readout and the
//     second exercise, both against the independent computation);
//   - the language switch rewrites the prose and keeps the reader's inputs;
//   - 390 px without sideways scrolling; the site navigation links the Learn section.
// Each test opens the chapter afresh (fresh(): no saved progress) and makes the changes and
// answers it checks itself: no test inherits another's inputs, progress, language or screen size.
// Screenshots: build/screenshots/learn/self_attention_{en,zh}_{1280,390}.png, contents_*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { freshPage, openSite, SHOTS } from './harness.mjs';
import { learnProbes } from './learn_harness.mjs';

let renders, rendersAbove, matrix;
let site, page, base;
before(async () => {
  site = await openSite({ name: 'learn_self_attention' });
  ({ page, base } = site);
  ({ renders, rendersAbove, matrix } = learnProbes(page));
  await mkdir(`${SHOTS}learn`, { recursive: true });
});
after(async () => { await site?.close(); });


// ---- the hand derivation of the example (main.ts EXAMPLE) ------------------------------
// X rows: x1 = (1,0,1,0), x2 = (0,2,0,2), x3 = (1,1,1,1). Row r of X W picks rows of W:
//   Q: q1 = WQ1 + WQ3 = (1,0,1,1)+(0,0,1,0) = (1,0,2,1); q2 = 2(WQ2 + WQ4) = 2((1,0,0,0)+(0,1,1,0)) = (2,2,2,0);
//      q3 = sum of WQ rows = (2,1,3,1)
//   K: k1 = WK1 + WK3 = (0,0,1,0)+(0,1,0,1) = (0,1,1,1); k2 = 2(WK2 + WK4) = (4,4,0,0); k3 = (2,3,1,1)
//   V: v1 = WV1 + WV3 = (1,2,3,0); v2 = 2(WV2 + WV4) = (2,8,0,0); v3 = (2,6,3,0)
// Scores q·k: row 1 (0+0+2+1, 4, 2+0+2+1) = (3,4,5); row 2 (0+2+2+0, 8+8, 4+6+2) = (4,16,12);
//   row 3 (0+1+3+1, 8+4, 4+3+3+1) = (5,12,11). ÷ √4 = 2: (1.5,2,2.5), (2,8,6), (2.5,6,5.5).
// Softmax (subtract the row max): row 1 (e^-1, e^-0.5, 1) / 1.974410 = 0.1863237, 0.3071959, 0.5064804;
//   row 2 (e^-6, 1, e^-2) / 1.137814 = 0.0021785, 0.8788782, 0.1189432;
//   row 3 (e^-3.5, 1, e^-0.5) / 1.636728 = 0.0184498, 0.6109751, 0.3705751.
const HAND_SCALED = [[1.5, 2, 2.5], [2, 8, 6], [2.5, 6, 5.5]];
const HAND_PROBS = [[0.1863237, 0.3071959, 0.5064804], [0.0021785, 0.8788782, 0.1189432], [0.0184498, 0.6109751, 0.3705751]];
const V_ROWS = [[1, 2, 3, 0], [2, 8, 0, 0], [2, 6, 3, 0]];
const HAND_Z = HAND_PROBS.map((w) => [0, 1, 2, 3].map((d) => w.reduce((s, p, j) => s + p * V_ROWS[j][d], 0)));

function near(got, want, tol, what) {
  assert.equal(got.length, want.length, `${what}: rows`);
  got.forEach((row, i) => row.forEach((v, j) =>
    assert.ok(Math.abs(v - want[i][j]) <= tol, `${what}[${i}][${j}] = ${v}, want ${want[i][j]} (±${tol})`)));
}

/** Self-attention in double precision from the page's inputs: the independent oracle. */
function oracle(X, WQ, WK, WV) {
  const mul = (A, B) => A.map((r) => B[0].map((_, c) => r.reduce((s, a, k) => s + a * B[k][c], 0)));
  const Q = mul(X, WQ), K = mul(X, WK), V = mul(X, WV);
  const S = Q.map((q) => K.map((k) => q.reduce((s, a, d) => s + a * k[d], 0) / 2));
  const P = S.map((r) => { const m = Math.max(...r); const e = r.map((x) => Math.exp(x - m)); const z = e.reduce((a, b) => a + b); return e.map((x) => x / z); });
  return { Q, S, P, Z: mul(P, V) };
}

/** The state each test starts from: chapter 3 loaded afresh in English at the example's
 *  values and drawn, 1280 × 720, light, no progress (read, answered) saved by an earlier test. */
async function fresh() {
  await freshPage(page, `${base}/learn/self-attention.html?lang=en`);
  await rendersAbove(0);
}

test('chapter 3: the example equals the hand derivation to 4 decimals', { timeout: 90_000 }, async () => {
  await fresh();
  const A = await matrix('A = softmax');
  near(A, HAND_PROBS, 5e-5, 'A');
  near(await matrix('Q Kᵀ / √d_k'), HAND_SCALED, 5e-5, 'scaled scores');
  near(await matrix('Z = A V'), HAND_Z, 5e-4, 'Z');
  // The cells show the same numbers (4 decimals).
  const shown = await page.evaluate(() => [...document.querySelectorAll('.number-matrix')]
    .find((e) => e.querySelector('caption').textContent.startsWith('A = softmax'))
    .querySelector('tbody tr:nth-child(2) td:nth-child(3)').textContent);
  assert.equal(shown, '0.8789');
  // The prose follows the marked query (row 3, "you") with the engine's numbers.
  const prose = await page.locator('.chapter-section').nth(2).innerText();
  assert.match(prose, /“you”/);
  assert.match(prose, /0\.0184, 0\.6110, 0\.3706/);
  assert.deepEqual(site.problems, []);
  await site.shot('learn/self_attention_en_1280', { fullPage: true });
});

/** The page's editable inputs X, W_Q, W_K, W_V as the reader sees them (the cells' values). */
async function inputs() {
  const read = (p) => page.evaluate((prefix) => {
    const m = [...document.querySelectorAll('.number-matrix')].find((e) => e.querySelector('caption')?.textContent.startsWith(prefix));
    return [...m.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('input')].map((i) => Number(i.value)));
  }, p);
  return { X: await read('X'), WQ: await read('W_Q'), WK: await read('W_K'), WV: await read('W_V') };
}

test('chapter 3: editing an input recomputes every step; the numbers equal an independent computation', { timeout: 60_000 }, async () => {
  await fresh();
  const before = await renders();
  const cell = page.getByRole('textbox', { name: /^X .*: 1 I, dim 1$/ });
  await cell.fill('2');
  await cell.press('Enter');
  await rendersAbove(before);
  const { X, WQ, WK, WV } = await inputs();
  assert.equal(X[0][0], 2);
  const o = oracle(X, WQ, WK, WV);
  near(await matrix('Q = X W_Q'), o.Q, 1e-5, 'Q');
  near(await matrix('Q Kᵀ / √d_k'), o.S, 1e-4, 'scaled');
  near(await matrix('A = softmax'), o.P, 1e-5, 'A');
  near(await matrix('Z = A V'), o.Z, 1e-4, 'Z');
  assert.notDeepEqual(await matrix('A = softmax'), HAND_PROBS.map((r) => r.map((v) => Math.fround(v))));
  // Arrow keys nudge by the step (0.5).
  const before2 = await renders();
  await cell.focus();
  await cell.press('ArrowUp');
  await rendersAbove(before2);
  assert.equal(Number(await cell.inputValue()), 2.5);
  await page.getByRole('button', { name: 'Back to the example values' }).click();
  await page.waitForFunction(() => document.querySelector('.number-matrix input')?.value === '1.00');
  await page.waitForTimeout(300);
  near(await matrix('A = softmax'), HAND_PROBS, 5e-5, 'A after reset');
});

test('chapter 3: the exercise reveals the engine\'s answer; the mistake box sums by columns', { timeout: 60_000 }, async () => {
  await fresh();
  const ex = page.locator('.exercise').first();
  await ex.getByRole('radio', { name: 'I' }).check();
  await ex.getByRole('button', { name: 'Check' }).click();
  await ex.locator('.verdict').waitFor();
  assert.match(await ex.locator('.verdict').innerText(), /Not quite: the engine says “love”/);
  assert.match(await ex.locator('.exercise-result').innerText(), /0\.0184, 0\.6110, 0\.3706/);
  assert.equal(await ex.locator('.choice.is-answer').innerText(), 'love');
  const progress = await page.evaluate(() => JSON.parse(localStorage.getItem('tfp.learn.progress')));
  assert.deepEqual(progress.exercises, ['self-attention:strongest-key']);
  // Follow another query: the exercise asks again.
  await page.locator('.fig-controls label', { hasText: 'love' }).click();
  await page.waitForFunction(() => document.querySelector('.exercise .question').textContent.includes('“love”'));
  assert.match(await ex.locator('.exercise-result').innerText(), /predict again/);
  const wrong = await matrix('softmax over queries');
  const colSums = [0, 1, 2].map((c) => wrong.reduce((s, r) => s + r[c], 0));
  colSums.forEach((s) => assert.ok(Math.abs(s - 1) < 1e-5, `column sum ${s}`));
  assert.ok(wrong.some((r) => Math.abs(r.reduce((a, b) => a + b) - 1) > 0.05), 'some row of the wrong softmax does not sum to 1');
  const right = await matrix('softmax over keys');
  right.forEach((r) => assert.ok(Math.abs(r.reduce((a, b) => a + b) - 1) < 1e-5));
});

test('chapter 3: the language switch rewrites the prose and keeps the inputs; 390 px', { timeout: 60_000 }, async () => {
  await fresh();
  const cell = page.getByRole('textbox', { name: /^X .*: 1 I, dim 1$/ });
  await cell.fill('3');
  await cell.press('Enter');
  await page.waitForTimeout(300);
  const enIdea = await page.locator('.chapter-section').first().innerText();
  await page.selectOption('#lang-select', 'zh-CN');
  await page.waitForFunction(() => document.querySelector('h1').textContent.includes('自注意力'));
  const zhIdea = await page.locator('.chapter-section').first().innerText();
  assert.notEqual(zhIdea, enIdea);
  assert.match(zhIdea, /查询/);
  assert.equal(Number(await page.locator('.number-matrix input').first().inputValue()), 3, 'the reader\'s value survives');
  assert.match(await page.locator('.exercise h3').first().innerText(), /先预测，再验证/);
  await site.shot('learn/self_attention_zh_1280', { fullPage: true });
  await page.setViewportSize({ width: 390, height: 800 });
  // Charts redraw for the new width when they get to it: wait for that, not for a time.
  await page.waitForFunction(() => document.documentElement.scrollWidth - document.documentElement.clientWidth <= 0, null, { timeout: 30_000 }).catch(() => {});
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `sideways scroll at 390 px: ${overflow}`);
  await site.shot('learn/self_attention_zh_390', { fullPage: true });
  await page.selectOption('#lang-select', 'en');
  await site.shot('learn/self_attention_en_390', { fullPage: true });
  await page.setViewportSize({ width: 1280, height: 720 });
  assert.deepEqual(site.problems, []);
});

test('the Learn contents: every chapter, progress kept in this browser, linked from every page', { timeout: 60_000 }, async () => {
  // One exercise answered in chapter 3, then reaching the chapter's end marks it read.
  await fresh();
  const ex = page.locator('.exercise').first();
  await ex.getByRole('radio', { name: 'I' }).check();
  await ex.getByRole('button', { name: 'Check' }).click();
  await ex.locator('.verdict').waitFor();
  await page.waitForFunction(() => JSON.parse(localStorage.getItem('tfp.learn.progress') ?? '{}').exercises?.length === 1);
  await page.locator('.chapter-pager').scrollIntoViewIfNeeded();
  await page.waitForFunction(() => JSON.parse(localStorage.getItem('tfp.learn.progress') ?? '{}').read?.includes('self-attention'));
  await page.getByRole('link', { name: 'Learn', exact: true }).first().click();
  await page.waitForURL(/learn\/index\.html/);
  const items = page.locator('.toc li');
  assert.ok(await items.count() >= 6, 'part 1 has six chapters');
  const sa = items.nth(2);
  assert.match(await sa.innerText(), /Self-attention, step by step/);
  assert.match(await sa.innerText(), /✓ read · 1 exercise answered/);
  assert.match(await items.nth(0).innerText(), /not read yet/);
  await site.shot('learn/contents_en_1280');
  await page.selectOption('#lang-select', 'zh-CN');
  assert.match(await sa.innerText(), /自注意力，一步一步算/);
  await page.setViewportSize({ width: 390, height: 800 });
  await site.shot('learn/contents_zh_390', { fullPage: true });
  await page.setViewportSize({ width: 1280, height: 720 });
  // The playground and the lab link here through the one shared navigation.
  for (const p of ['index.html', 'lab.html']) {
    await page.goto(`${base}/${p}?lang=en`);
    const href = await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Learn' }).getAttribute('href');
    assert.equal(href, 'learn/index.html');
  }
  await page.goto(`${base}/learn/index.html?lang=en`);
  await page.getByRole('button', { name: 'Forget my progress' }).click();
  assert.match(await page.locator('.toc li').nth(2).innerText(), /not read yet/);
  assert.deepEqual(site.problems, []);
});

test('chapter 3: with W_K = W_Q the scores are symmetric and A is not; the exercise says so with the engine\'s numbers', { timeout: 60_000 }, async () => {
  await fresh();
  const before = await renders();
  await page.locator('#sa-tie').click();
  await rendersAbove(before);
  const { X, WQ, WK, WV } = await inputs();
  assert.deepEqual(WK, WQ);
  const o = oracle(X, WQ, WK, WV);
  const asym = (m) => Math.max(...m.flatMap((r, i) => r.map((v, j) => Math.abs(v - m[j][i]))));
  assert.ok(asym(o.S) < 1e-9 && asym(o.P) > 0.01, 'the oracle: S symmetric, A not');
  near(await matrix('A = softmax'), o.P, 1e-5, 'A with W_K = W_Q');
  const line = await page.locator('#sa-symmetry').innerText();
  const [, s, a] = /max \|S − Sᵀ\| = ([\d.]+), max \|A − Aᵀ\| = ([\d.]+)/.exec(line);
  assert.equal(Number(s), 0);
  assert.ok(Math.abs(Number(a) - asym(o.P)) < 1e-4, `readout ${a} vs ${asym(o.P)}`);
  const ex = page.locator('.exercise').nth(1);
  await ex.getByRole('radio', { name: /^Yes/ }).check();
  await ex.getByRole('button', { name: 'Check' }).click();
  await ex.locator('.verdict').waitFor();
  assert.match(await ex.locator('.verdict').innerText(), /Not quite/);
  assert.match(await ex.locator('.exercise-result').innerText(), /divides each row by its own sum/);
  assert.equal(await ex.locator('.choice.is-answer').innerText(), 'No, not in general');
});

test('the conventions are stated once, the same under every chapter\'s header and on the contents page, in both languages; maps say which way they read', { timeout: 120_000 }, async () => {
  const slugs = ['why-attention', 'additive-attention', 'self-attention', 'softmax', 'scaling', 'multi-head',
                 'positions', 'encoder-layer', 'decoder', 'generation', 'efficiency', 'training'];
  const read = async () => {
    const box = page.locator('.conventions');
    assert.equal(await box.count(), 1, 'one conventions box');
    if (!(await box.evaluate((d) => d.open))) await box.locator('summary').click();
    return box.innerText();
  };
  await page.goto(`${base}/learn/index.html?lang=en`);
  const contents = await read();
  assert.match(contents, /Counting starts at 1/);
  assert.match(contents, /Rows are queries, columns are keys/);
  assert.match(contents, /p=0 for token 1/);
  for (const slug of slugs) {
    await page.goto(`${base}/learn/${slug}.html?lang=en`);
    assert.equal(await read(), contents, `${slug}: the same statement`);
  }
  await page.selectOption('#lang-select', 'zh-CN');
  const zh = await read();
  assert.match(zh, /计数从 1 开始/);
  assert.match(zh, /行是查询，列是键/);
  // Every attention map on a page with several says which way it reads.
  await page.goto(`${base}/learn/positions.html?lang=en`);
  await page.locator('.heatmap-axes').first().waitFor();
  for (const t of await page.locator('.heatmap-axes').allInnerTexts()) assert.match(t, /^rows ↓ .+ · columns → .+$/);
  assert.match(await page.locator('.heatmap-axes').allInnerTexts().then((a) => a.join('\n')), /rows ↓ query position i \(from 0\) · columns → key position j \(from 0\)/);  // ch. 7 counts positions as p from 0 and says so
  assert.deepEqual(site.problems, []);
});
