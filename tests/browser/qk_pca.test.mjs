// The playground's Q/K map (issue 33; pages/playground/qk_pca.ts) in Chromium on the
// shipped brown-gpt (else the GPT-2 fixture): the points are the engine's queries and keys
// of the chosen head (tfp_model_attention_steps for every query, run here in Node on the
// same WASM module) projected onto their two principal components, computed here apart
// from the page: the covariance's eigenvectors by the cyclic Jacobi method in double, each
// signed so its largest-magnitude entry is positive, and the explained variance; the
// selected query's lines are its attention row; the view follows the layer and head
// selects; an encoder-only model gets its encoder's map. Screenshot: playground_view_pca.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openSite, playgroundProbes, SHOTS } from './harness.mjs';
import { loadTfp } from '../js/tfp_module.mjs';
import { ModelApi, readFixture, readShipped, hasShipped } from '../js/model_api.mjs';

const SHIPPED = hasShipped('brown-gpt');
const MODEL = SHIPPED ? 'brown-gpt' : 'fixture-gpt2_tiny';
const TEXT = 'the jury said that the city had a fair election';

let site, page, base, api, model, ids;
before(async () => {
  api = new ModelApi(await loadTfp());
  model = api.load(SHIPPED ? readShipped('brown-gpt') : readFixture('gpt2_tiny'), MODEL);
  ids = Array.from(api.tokenize(model, TEXT).ids);
  site = await openSite({ name: 'qk_pca' });
  ({ page, base } = site);
}, { timeout: 180_000 });
after(async () => { await site?.close(); });

const { shown } = playgroundProbes(() => page, { timeout: 60_000 });

/** Eigen-decomposition of a symmetric matrix (n × n, row-major) by cyclic Jacobi rotations. */
function jacobi(A, n) {
  const a = Float64Array.from(A), V = new Float64Array(n * n);
  for (let i = 0; i < n; i++) V[i * n + i] = 1;
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) off += a[p * n + q] ** 2;
    if (off < 1e-22) break;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) {
      if (Math.abs(a[p * n + q]) < 1e-300) continue;
      const theta = (a[q * n + q] - a[p * n + p]) / (2 * a[p * n + q]);
      const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
      const c = 1 / Math.sqrt(t * t + 1), s = t * c;
      for (let k = 0; k < n; k++) {
        const akp = a[k * n + p], akq = a[k * n + q];
        a[k * n + p] = c * akp - s * akq; a[k * n + q] = s * akp + c * akq;
      }
      for (let k = 0; k < n; k++) {
        const apk = a[p * n + k], aqk = a[q * n + k];
        a[p * n + k] = c * apk - s * aqk; a[q * n + k] = s * apk + c * aqk;
      }
      for (let k = 0; k < n; k++) {
        const vkp = V[k * n + p], vkq = V[k * n + q];
        V[k * n + p] = c * vkp - s * vkq; V[k * n + q] = s * vkp + c * vkq;
      }
    }
  }
  return Array.from({ length: n }, (_, i) => ({ value: a[i * n + i], vector: Array.from({ length: n }, (_, k) => V[k * n + i]) }))
    .sort((x, y) => y.value - x.value);
}

function oracle(set, layer, head) {
  const steps = ids.map((_, i) => api.attentionSteps(model, ids, { set, layer, head, query: i }));
  const [Tk, D] = steps[0].k.dims;
  const rows = [...steps.map((s) => Array.from(s.q.data)),
                ...Array.from({ length: Tk }, (_, j) => Array.from(steps[0].k.data.subarray(j * D, (j + 1) * D)))];
  const n = rows.length, mean = Array.from({ length: D }, (_, d) => rows.reduce((s, r) => s + r[d], 0) / n);
  const X = rows.map((r) => r.map((v, d) => v - mean[d]));
  const C = new Float64Array(D * D);
  for (const x of X) for (let i = 0; i < D; i++) for (let j = 0; j < D; j++) C[i * D + j] += x[i] * x[j] / n;
  const eig = jacobi(C, D), total = eig.reduce((s, e) => s + e.value, 0);
  const comps = eig.slice(0, 2).map((e) => {
    const big = e.vector.reduce((b, v, i) => (Math.abs(v) > Math.abs(e.vector[b]) ? i : b), 0);
    return e.vector[big] < 0 ? e.vector.map((v) => -v) : e.vector;
  });
  return { coords: X.flatMap((x) => comps.map((u) => x.reduce((s, v, i) => s + v * u[i], 0))),
           explained: eig.slice(0, 2).map((e) => e.value / total), rows: steps.map((s) => Array.from(s.probs.data)), gap: eig[1].value - eig[2].value };
}

async function pcaShown(layer, head) {
  await page.waitForFunction(([l, h]) => window.tfpPlay?.shown?.view === 'pca' && /^queries /.test(window.tfpPlay.shown.note ?? '')
    && window.tfpPlay.shown.layer === l && window.tfpPlay.shown.head === h, [layer, head], { timeout: 60_000 });
  return shown();
}

function check(s, want, what) {
  const got = s.panels['pca.coords'].data, scale = Math.max(...want.coords.map(Math.abs));
  assert.equal(got.length, want.coords.length, `${what}: points`);
  got.forEach((v, i) => assert.ok(Math.abs(v - want.coords[i]) <= 1e-3 * scale, `${what}[${i}]: page ${v}, oracle ${want.coords[i]}`));
  s.panels['pca.explained'].data.forEach((v, i) => assert.ok(Math.abs(v - want.explained[i]) < 1e-4, `${what}: explained ${i}`));
}

test('Q/K map: the page\'s projection is the PCA of the engine\'s queries and keys; the selects move it', { timeout: 180_000 }, async () => {
  await page.goto(`${base}/?${new URLSearchParams({ model: MODEL, text: TEXT, view: 'pca', layer: '2', head: '3' })}`);
  let s = await pcaShown(1, 2);
  const want = oracle('dec', 1, 2);
  assert.ok(want.gap > 1e-6, 'the two components are separated (a well-posed projection)');
  check(s, want, 'layer 2 head 3');
  assert.equal(s.note, `queries ${ids.length} keys ${ids.length} query ${ids.length - 1}`);
  assert.equal(await page.locator('.qk-pca-query').count(), ids.length);
  assert.equal(await page.locator('.qk-pca-key').count(), ids.length);
  // The last query's lines: one per key it attends to (causal: every key up to itself).
  assert.equal(await page.locator('.qk-pca-link').count(), want.rows.at(-1).filter((w) => w > 0).length);
  assert.match(await page.locator('.qk-pca .help').innerText(), /AttentionViz/);
  await page.locator('#inspector').screenshot({ path: `${SHOTS}playground_view_pca.png` });
  // Another head through the page's select.
  await page.locator('#head-select').selectOption({ value: '0' });
  s = await pcaShown(1, 0);
  check(s, oracle('dec', 1, 0), 'layer 2 head 1');
  // A query picked in the token strip: its lines.
  await page.locator('.token-span').nth(3).click();
  await page.waitForFunction(() => / query 3$/.test(window.tfpPlay.shown?.note ?? ''), null, { timeout: 30_000 });
  assert.equal(await page.locator('.qk-pca-link').count(), 4);
  assert.deepEqual(site.problems, []);
});
