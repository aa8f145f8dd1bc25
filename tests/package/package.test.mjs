// The npm package as an outside project gets it: tools/package.mjs builds package/, npm pack
// makes the tarball, an empty temporary project installs it (offline: the package has no
// dependencies) and runs examples/node/attention.mjs there, with no access to this
// repository's sources. Its tokens, next-token candidates and attention are compared with
// the engine's own answer (the WASM module called directly, tests/js/model_api.mjs); the same
// model opened by its Hub name from the local stand-in for the Hub (tests/hub) is stored and
// opened again with no byte sent; the shipped types check a correct use and refuse a wrong one.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadTfp } from '../js/tfp_module.mjs';
import { ModelApi, readShipped, MODELS } from '../js/model_api.mjs';
import { startHub } from '../hub/hub_server.mjs';
import { installPackage, run, ROOT } from './installed.mjs';

const TEXT = 'the jury said that the city';
let installed, tmp, project, pack;

before(async () => {
  installed = await installPackage();
  ({ tmp, project, pack } = installed);
  await copyFile(`${ROOT}examples/node/attention.mjs`, join(project, 'attention.mjs'));
});
after(async () => {
  await installed?.remove();
});

/** Runs the example in the outside project; its last line is JSON. */
async function example(args, env = {}) {
  const { stdout } = await run(process.execPath, ['attention.mjs', ...args], { cwd: project, env: { ...process.env, ...env }, maxBuffer: 16 << 20 });
  const lines = stdout.trim().split('\n');
  return { text: stdout, result: JSON.parse(lines.at(-1)) };
}

/** What the engine computes for TEXT on a shipped model, the module called directly. */
async function reference(name) {
  const api = new ModelApi(await loadTfp());
  const model = api.load(readShipped(name));
  const { ids } = api.tokenize(model, TEXT);
  const out = api.forward(model, ids, { attention: true });
  const T = ids.length;
  const [, V] = out.logits.dims;
  const lastLogits = out.logits.data.subarray((T - 1) * V, T * V);
  const next = [...lastLogits.keys()].sort((a, b) => lastLogits[b] - lastLogits[a]).slice(0, 5);
  const last = Object.keys(out).filter((k) => k.endsWith('.attn.probs')).at(-1);
  api.free(model);
  return { ids, next, vocab: V, lastRow: [...out[last].data.subarray((T - 1) * T, T * T)] };
}

function assertSameAnswer(got, want) {
  assert.deepEqual(got.ids, want.ids);
  assert.deepEqual(got.next, want.next);
  assert.equal(got.lastRow.length, want.lastRow.length);
  got.lastRow.forEach((p, k) => assert.ok(Math.abs(p - want.lastRow[k]) < 1e-6, `attention to key ${k + 1}: ${p} vs ${want.lastRow[k]}`));
}

test('the tarball holds the engine, its workers, the .wasm, the types and the shipped models, and nothing else', (t) => {
  const files = pack.files.map((f) => f.path);
  for (const f of ['package.json', 'dist/browser.js', 'dist/worker.js', 'dist/node.js', 'dist/node_worker.js', 'dist/index.d.ts',
                   'dist/wasm/tfp.wasm', 'dist/wasm/tfp.mjs', 'dist/wasm/tfp_mt.wasm', 'dist/wasm/tfp_mt.mjs',
                   'dist/elements.js', 'dist/elements.d.ts', 'models/brown-gpt/model.safetensors', 'models/brown-gpt/tokenizer.json', 'CHANGELOG.md', 'README.md'])
    assert.ok(files.includes(f), `${f} is in the tarball`);
  const stray = files.filter((f) => !/^(package\.json|README\.md|CHANGELOG\.md|dist\/|models\/)/.test(f) || /(^|\/)(tests?|fixtures|src)\//.test(f) || /\.(map|tgz|log)$/.test(f));
  assert.deepEqual(stray, []);
  t.diagnostic(`${pack.filename}: ${(pack.size / 1e6).toFixed(2)} MB packed, ${(pack.unpackedSize / 1e6).toFixed(2)} MB unpacked, ${files.length} files`);
});

test('the Node example, run in a project that installed the tarball, prints what the engine computes', async () => {
  const { text, result } = await example([TEXT, 'brown-gpt']);
  assert.match(text, /^\w+ model "brown-gpt": 7 tokens$/m);
  assert.match(text, /head 1: /);
  assertSameAnswer(result, await reference('brown-gpt'));
});

test('in Node, a model opened by its Hub name is stored, then opened again with no byte sent', async () => {
  const hub = await startHub({ repos: { 'test/brown-gpt': { dir: `${MODELS}brown-gpt`, files: ['config.json', 'model.safetensors', 'tokenizer.json'] } } });
  try {
    const env = { HF_ENDPOINT: hub.url, TFP_HUB_CACHE: join(tmp, 'hub-cache') };
    const want = await reference('brown-gpt');
    const first = await example([TEXT, 'hf:test/brown-gpt'], env);
    assertSameAnswer(first.result, want);
    // The file once, and before it its header by Range (8 bytes, then the header).
    const file = await readFile(`${MODELS}brown-gpt/model.safetensors`);
    const header = 8 + Number(new DataView(file.buffer, file.byteOffset).getBigUint64(0, true));
    assert.equal(hub.bytesSentFor('test/brown-gpt', 'model.safetensors'), header + file.byteLength);
    hub.reset();
    const again = await example([TEXT, 'hf:test/brown-gpt'], env);
    assertSameAnswer(again.result, want);
    assert.equal(hub.bytesSentFor('test/brown-gpt', 'model.safetensors'), 0);
  } finally {
    await hub.close();
  }
});

test('the shipped types accept a correct use and refuse a wrong one', async () => {
  const tsconfig = { compilerOptions: { target: 'ES2022', module: 'ESNext', moduleResolution: 'bundler', strict: true, noEmit: true,
                                        skipLibCheck: false, lib: ['ES2022', 'DOM'], types: [] }, files: ['use.ts'] };
  await writeFile(join(project, 'tsconfig.json'), JSON.stringify(tsconfig));
  const tsc = (source) => writeFile(join(project, 'use.ts'), source)
    .then(() => run(`${ROOT}node_modules/.bin/tsc`, ['-p', project], { cwd: project }))
    .then(() => '', (e) => String(e.stdout));
  const good = [
    "import { Engine, shippedModel, type ForwardResult } from 'transformer-playground';",
    'const engine = await Engine.create();',
    "const model = await engine.load(shippedModel('brown-gpt'), { precision: 'f16' });",
    "const { ids } = await model.tokenize('the cat');",
    'const out: ForwardResult = await model.forward(ids, { attention: true });',
    'const first: Float32Array = out.attention[0]!.data;',
    'console.log(first.length);',
    "import { TfpAttentionElement, pageEngine } from 'transformer-playground/elements';",
    "const view: TfpAttentionElement | null = document.querySelector('tfp-attention');",
    'console.log(view?.shown, (await pageEngine()).info.threads);',
    "import transformerPlayground from 'transformer-playground/vite';",
    "console.log(transformerPlayground({ models: ['brown-gpt'] }).name);",
    'export {};',
  ].join('\n');
  assert.equal(await tsc(good), '');
  assert.match(await tsc(good.replace("{ precision: 'f16' }", "{ precision: 'f8' }")), /error TS2322/);
});

test('in Node, a folder path and files opened as Blobs load; a missing folder is a clear error and the engine stays usable', async () => {
  const script = [
    "import { Engine } from 'transformer-playground';",
    "import { openAsBlob } from 'node:fs';",
    "const dir = 'node_modules/transformer-playground/models/brown-gpt';",
    'const engine = await Engine.create();',
    'const answer = async (model) => [...(await model.tokenize(process.argv[2])).ids];',
    'const byPath = await engine.load(dir);',
    'let missing = null;',
    "try { await engine.load('no/such/folder'); } catch (e) { missing = `${e.name}: ${e.message}`; }",
    'const byBlobs = await engine.load({ config: await openAsBlob(`${dir}/config.json`), weights: await openAsBlob(`${dir}/model.safetensors`),',
    '                                    tokenizer: await openAsBlob(`${dir}/tokenizer.json`), name: "blobs" });',
    'const out = await byBlobs.forward(await answer(byBlobs), { logits: "last" });',
    'console.log(JSON.stringify({ path: await answer(byPath), blobs: await answer(byBlobs), missing, logits: out.logits.dims }));',
  ].join('\n');
  await writeFile(join(project, 'sources.mjs'), script);
  const { stdout } = await run(process.execPath, ['sources.mjs', TEXT], { cwd: project });
  const got = JSON.parse(stdout.trim().split('\n').at(-1));
  const want = await reference('brown-gpt');
  assert.deepEqual(got.path, want.ids);
  assert.deepEqual(got.blobs, want.ids);
  assert.match(got.missing, /^EngineError: .*no[/]such[/]folder[/]config\.json/);
  assert.deepEqual(got.logits, [1, want.vocab]);  // logits: 'last'
});

test('in Node, Model.activationPatching gives the torch reference\'s sweeps, reports progress, stops on abort and leaves the model usable', async () => {
  const golden = JSON.parse(await readFile(`${ROOT}tests/fixtures/patching/gpt2_tiny.json`, 'utf8'));
  const script = [
    "import { Engine, PATCH_SWEEPS } from 'transformer-playground';",
    "import { readFileSync } from 'node:fs';",
    'const g = JSON.parse(readFileSync(process.argv[3], "utf8"));',
    'const engine = await Engine.create();',
    'const model = await engine.load(process.argv[2]);',
    'const progress = [];',
    'const r = await model.activationPatching(g.clean, g.corrupted, { answer: g.answer, foil: g.foil, onProgress: (p) => progress.push(p) });',
    'const sweeps = Object.fromEntries(Object.entries(r.sweeps).map(([k, s]) => [k, { dims: s.dims, logitDiff: [...s.logitDiff], logprob: [...s.logprob],',
    '  logitDiffNorm: [...s.logitDiffNorm], logprobNorm: [...s.logprobNorm] }]));',
    // Abort after the first layer: the promise rejects with the reason, nothing more is asked.
    'const stop = new AbortController(); let after = 0, aborted = null;',
    "try { await model.activationPatching(g.clean, g.corrupted, { answer: g.answer, foil: g.foil, sweeps: ['head_pos'],",
    '  signal: stop.signal, onProgress: () => { after++; stop.abort(); } }); } catch (e) { aborted = e.name; }',
    // The same prompt twice: no normalisation; then a refusal by name; the model still answers.
    "const same = await model.activationPatching(g.clean, g.clean, { answer: g.answer, foil: g.foil, sweeps: ['head_all'] });",
    'let refused = null;',
    'try { await model.activationPatching(g.clean, g.clean.slice(1), { answer: g.answer, foil: g.foil }); } catch (e) { refused = e.message; }',
    "const out = await model.forward(g.clean, { logits: 'last' });",
    'console.log(JSON.stringify({ sweeps, clean: r.clean, corrupted: r.corrupted, passes: r.passes, progress, after, aborted,',
    '  sameNorm: same.sweeps.head_all.logitDiffNorm, sameRaw: [...same.sweeps.head_all.logitDiff], refused, vocab: out.logits.dims[1], order: PATCH_SWEEPS }));',
  ].join('\n');
  await writeFile(join(project, 'patching.mjs'), script);
  const { stdout } = await run(process.execPath, ['patching.mjs', `${ROOT}tests/fixtures/checkpoints/gpt2_tiny`, `${ROOT}tests/fixtures/patching/gpt2_tiny.json`],
    { cwd: project, maxBuffer: 16 << 20 });
  const got = JSON.parse(stdout.trim().split('\n').at(-1));
  const near = (a, b, what) => assert.ok(Math.abs(a - b) <= 2e-5 + 1e-4 * Math.abs(b), `${what}: ${a} vs torch ${b}`);
  near(got.clean.logitDiff, golden.metric[0], 'clean logit diff');
  near(got.corrupted.logitDiff, golden.metric[1], 'corrupted logit diff');
  near(got.clean.logprob, golden.metric[2], 'clean logprob');
  near(got.corrupted.logprob, golden.metric[3], 'corrupted logprob');
  assert.deepEqual(Object.keys(got.sweeps), got.order);
  const leaves = { logitDiff: 'logit_diff', logprob: 'logprob', logitDiffNorm: 'logit_diff_norm', logprobNorm: 'logprob_norm' };
  for (const [kind, s] of Object.entries(got.sweeps)) {
    assert.deepEqual(s.dims, golden[`${kind}.dims`], `${kind} dims`);
    for (const [ours, theirs] of Object.entries(leaves)) {
      const want = golden[`${kind}.${theirs}`];
      assert.equal(s[ours].length, want.length);
      s[ours].forEach((v, i) => near(v, want[i], `${kind}.${theirs}[${i}]`));
    }
  }
  // Progress: after every layer of every sweep, counting the patched passes, up to all of them.
  const [L, T, H] = [2, golden.clean.length, 4];
  // resid, attn_out, mlp_out, head_all, head_pos, then each head's q, k, v and pattern (one key/value head per head here).
  assert.equal(got.passes, (L + 1) * T + 2 * L * T + L * H + L * T * H + 4 * L * H);
  assert.equal(got.progress.length, (L + 1) + 8 * L);
  assert.deepEqual(got.progress.at(-1), { sweep: 'head_pattern', layer: L - 1, done: got.passes, total: got.passes });
  assert.ok(got.progress.every((p, i) => i === 0 || p.done > got.progress[i - 1].done));
  assert.equal(got.after, 1);
  assert.equal(got.aborted, 'AbortError');
  assert.equal(got.sameNorm, null);
  const same = golden.metric[0];
  got.sameRaw.forEach((v) => near(v, same, 'the same prompt: every cell the clean metric'));
  assert.match(got.refused, /the clean prompt has 8 tokens and the corrupted one 7/);
  assert.equal(got.vocab, 264);
});
