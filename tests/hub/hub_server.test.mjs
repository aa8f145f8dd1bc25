// The local Hub stand-in (hub_server.mjs) checked with Node's fetch, as a client would use it:
// model info against the fixture files' own sizes and hashes, small files inline with a git-sha1
// ETag, safetensors via a 302 to the second (CDN) origin, ranges, the Hub's error codes, gated
// access (and the token not reaching the CDN), and the injected faults: a dropped connection,
// a corrupted byte, a slow link; plus the byte counters and the standalone command.
// Run: node --test tests/hub/
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startHub } from './hub_server.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const ckpt = (/** @type {string} */ name) => path.join(here, '..', 'fixtures', 'checkpoints', name);
const GPT2 = ckpt('gpt2_tiny'), BERT = ckpt('bert_tiny_f16');
const sha256 = (/** @type {Buffer} */ b) => crypto.createHash('sha256').update(b).digest('hex');
const gitSha1 = (/** @type {Buffer} */ b) =>
  crypto.createHash('sha1').update(`blob ${b.length}\0`).update(b).digest('hex');
const read = (/** @type {string} */ dir, /** @type {string} */ f) => fs.readFileSync(path.join(dir, f));
const bytes = async (/** @type {Response} */ r) => Buffer.from(await r.arrayBuffer());
const TAG = 'a'.repeat(40), PR = 'b'.repeat(40);

/** @type {import('./hub_server.mjs').Hub} */
let hub;
let sharded = '';
before(async () => {
  // No sharded fixture is checked in: two shards of gpt2_tiny's bytes and an index are enough
  // for the server (it never parses them).
  sharded = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-sharded-'));
  const whole = read(GPT2, 'model.safetensors'), half = whole.length >> 1;
  fs.writeFileSync(path.join(sharded, 'model-00001-of-00002.safetensors'), whole.subarray(0, half));
  fs.writeFileSync(path.join(sharded, 'model-00002-of-00002.safetensors'), whole.subarray(half));
  fs.writeFileSync(path.join(sharded, 'model.safetensors.index.json'), JSON.stringify({
    metadata: { total_size: whole.length },
    weight_map: { a: 'model-00001-of-00002.safetensors', b: 'model-00002-of-00002.safetensors' } }));
  fs.copyFileSync(path.join(GPT2, 'config.json'), path.join(sharded, 'config.json'));
  hub = await startHub({ repos: {
    'test/gpt2': { dir: GPT2, revisions: { main: sha256(Buffer.from('m')).slice(0, 40), v1: TAG, 'refs/pr/1': PR } },
    'test/bert': { dir: BERT, files: ['config.json', 'model.safetensors', 'tokenizer.json'] },
    'test/gated': { dir: BERT, token: 'hf_right' },
    'test/corrupt': { dir: GPT2 },
    'test/sharded': { dir: sharded },
  } });
});
after(async () => {
  await hub?.close();
  fs.rmSync(sharded, { recursive: true, force: true });
});

const info = async (/** @type {string} */ repo, rev = '', init = {}) =>
  fetch(`${hub.url}/api/models/${repo}${rev && `/revision/${encodeURIComponent(rev)}`}?blobs=true`, init);

test('model info lists every file with its size, blob id and (LFS) sha256', async () => {
  for (const [repo, dir] of [['test/bert', BERT], ['test/sharded', sharded]]) {
    const r = await info(repo);
    assert.equal(r.status, 200);
    const j = await r.json();
    assert.equal(j.id, repo); assert.equal(j.modelId, repo);
    assert.equal(j.sha, crypto.createHash('sha1').update(repo).digest('hex')); // default main
    assert.equal(j.gated, false); assert.equal(j.private, false);
    const names = repo === 'test/bert' ? ['config.json', 'model.safetensors', 'tokenizer.json']
      : fs.readdirSync(dir).sort();
    assert.deepEqual(j.siblings.map((s) => s.rfilename), names);
    for (const s of j.siblings) {
      const b = read(dir, s.rfilename);
      assert.equal(s.size, b.length, s.rfilename);
      const lfs = b.length >= 1024 || s.rfilename.endsWith('.safetensors');
      if (lfs) {
        assert.deepEqual({ sha256: s.lfs.sha256, size: s.lfs.size }, { sha256: sha256(b), size: b.length });
        assert.ok(s.lfs.pointerSize > 100 && s.lfs.pointerSize < 200);
      } else {
        assert.equal(s.lfs, undefined);
        assert.equal(s.blobId, gitSha1(b));
      }
    }
  }
});

test('revisions: branch, tag, URL-encoded PR ref and full commit', async () => {
  for (const [rev, sha] of [['v1', TAG], ['refs/pr/1', PR], [PR, PR]]) {
    const r = await info('test/gpt2', rev);
    assert.equal(r.status, 200, rev);
    assert.equal((await r.json()).sha, sha);
  }
  const r = await fetch(`${hub.url}/test/gpt2/resolve/refs%2Fpr%2F1/config.json`);
  assert.equal(r.headers.get('x-repo-commit'), PR);
  assert.deepEqual(await bytes(r), read(GPT2, 'config.json'));
});

test('resolve: a small file inline with a git-sha1 ETag; HEAD has the headers, no body', async () => {
  const want = read(GPT2, 'config.json');
  const r = await fetch(`${hub.url}/test/gpt2/resolve/main/config.json`);
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('etag'), `"${gitSha1(want)}"`);
  assert.equal(r.headers.get('x-repo-commit'), sha256(Buffer.from('m')).slice(0, 40));
  assert.equal(r.headers.get('content-length'), String(want.length));
  assert.deepEqual(await bytes(r), want);
  const h = await fetch(`${hub.url}/test/gpt2/resolve/v1/config.json`, { method: 'HEAD' });
  assert.equal(h.status, 200);
  assert.equal(h.headers.get('content-length'), String(want.length));
  assert.equal(h.headers.get('x-repo-commit'), TAG);
  assert.equal((await bytes(h)).length, 0);
});

test('resolve: safetensors 302 to the CDN origin with linked etag/size; followed, the bytes match', async () => {
  const want = read(GPT2, 'model.safetensors');
  const u = `${hub.url}/test/gpt2/resolve/main/model.safetensors`;
  const r = await fetch(u, { redirect: 'manual' });
  assert.equal(r.status, 302);
  assert.ok(r.headers.get('location')?.startsWith(`${hub.cdnUrl}/repos/test/gpt2/`));
  assert.notEqual(new URL(hub.cdnUrl).port, new URL(hub.url).port);
  assert.equal(r.headers.get('x-linked-etag'), `"${sha256(want)}"`);
  assert.equal(r.headers.get('x-linked-size'), String(want.length));
  assert.equal(r.headers.get('etag'), `"${sha256(want)}"`);
  await r.arrayBuffer();
  const f = await fetch(u);
  assert.equal(f.status, 200);
  assert.ok(f.url.startsWith(hub.cdnUrl));
  assert.equal(f.headers.get('etag'), `"${sha256(want)}"`);
  assert.equal(f.headers.get('accept-ranges'), 'bytes');
  assert.equal(sha256(await bytes(f)), sha256(want));
  // a shard, too
  const s = await fetch(`${hub.url}/test/sharded/resolve/main/model-00002-of-00002.safetensors`);
  assert.deepEqual(await bytes(s), read(sharded, 'model-00002-of-00002.safetensors'));
});

test('ranges: 206 with Content-Range on the CDN and on small hub files; 416 past the end', async () => {
  const big = read(GPT2, 'model.safetensors'), n = big.length;
  const u = `${hub.url}/test/gpt2/resolve/main/model.safetensors`;
  for (const [range, a, b] of [['bytes=10-19', 10, 19], [`bytes=${n - 5}-`, n - 5, n - 1],
    ['bytes=-8', n - 8, n - 1], [`bytes=0-${n + 100}`, 0, n - 1]]) {
    const r = await fetch(u, { headers: { Range: range } });
    assert.equal(r.status, 206, range);
    assert.equal(r.headers.get('content-range'), `bytes ${a}-${b}/${n}`);
    assert.equal(r.headers.get('content-length'), String(b - a + 1));
    assert.deepEqual(await bytes(r), big.subarray(a, b + 1));
  }
  const r416 = await fetch(u, { headers: { Range: `bytes=${n}-` } });
  assert.equal(r416.status, 416);
  assert.equal(r416.headers.get('content-range'), `bytes */${n}`);
  await r416.arrayBuffer();
  const small = read(GPT2, 'config.json');
  const s = await fetch(`${hub.url}/test/gpt2/resolve/main/config.json`, { headers: { Range: 'bytes=0-9' } });
  assert.equal(s.status, 206);
  assert.equal(s.headers.get('content-range'), `bytes 0-9/${small.length}`);
  assert.deepEqual(await bytes(s), small.subarray(0, 10));
});

test('404s carry the Hub error codes', async () => {
  const cases = [
    [`${hub.url}/api/models/test/nope`, 'RepoNotFound'],
    [`${hub.url}/api/models/test/gpt2/revision/nope`, 'RevisionNotFound'],
    [`${hub.url}/api/models/test/gpt2/revision/${'c'.repeat(40)}`, 'RevisionNotFound'],
    [`${hub.url}/test/nope/resolve/main/config.json`, 'RepoNotFound'],
    [`${hub.url}/test/gpt2/resolve/nope/config.json`, 'RevisionNotFound'],
    [`${hub.url}/test/gpt2/resolve/main/nope.json`, 'EntryNotFound'],
  ];
  for (const [u, code] of cases) {
    const r = await fetch(u);
    assert.equal(r.status, 404, u);
    assert.equal(r.headers.get('x-error-code'), code, u);
    assert.equal(typeof (await r.json()).error, 'string');
  }
  const h = await fetch(`${hub.url}/test/gpt2/resolve/main/nope.json`, { method: 'HEAD' });
  assert.equal(h.headers.get('x-error-code'), 'EntryNotFound');
});

test('gated: 401 without a token, 403 with a wrong one, 200 with it; the token never reaches the CDN', async () => {
  const u = `${hub.url}/test/gated/resolve/main/model.safetensors`;
  for (const [auth, status] of [[null, 401], ['Bearer hf_wrong', 403]]) {
    const init = auth ? { headers: { Authorization: auth } } : {};
    for (const r of [await info('test/gated', '', init), await fetch(u, init)]) {
      assert.equal(r.status, status);
      assert.equal(r.headers.get('x-error-code'), 'GatedRepo');
      assert.equal(typeof (await r.json()).error, 'string');
    }
  }
  const ok = { headers: { Authorization: 'Bearer hf_right' } };
  const i = await info('test/gated', '', ok);
  assert.equal(i.status, 200);
  assert.equal((await i.json()).gated, 'manual');
  hub.reset();
  const r = await fetch(u, ok);
  assert.equal(r.status, 200);
  assert.deepEqual(await bytes(r), read(BERT, 'model.safetensors'));
  assert.deepEqual(hub.requests.map((q) => [q.origin, q.status, q.authorization]),
    [['hub', 302, 'Bearer hf_right'], ['cdn', 200, null]]);
});

test('CORS: preflight answered, headers exposed on both origins', async () => {
  for (const origin of [hub.url, hub.cdnUrl]) {
    const p = await fetch(`${origin}/test/gpt2/resolve/main/config.json`, { method: 'OPTIONS', headers: {
      Origin: 'http://localhost:5173', 'Access-Control-Request-Method': 'GET',
      'Access-Control-Request-Headers': 'authorization,range' } });
    assert.equal(p.status, 204);
    assert.equal(p.headers.get('access-control-allow-origin'), '*');
    assert.match(p.headers.get('access-control-allow-headers') ?? '', /authorization.*range/);
    assert.match(p.headers.get('access-control-allow-methods') ?? '', /GET.*HEAD/);
  }
  const r = await fetch(`${hub.url}/test/gpt2/resolve/main/model.safetensors`, { headers: { Origin: 'http://localhost:5173' } });
  assert.equal(r.headers.get('access-control-allow-origin'), '*');
  assert.match(r.headers.get('access-control-expose-headers') ?? '', /X-Linked-Size.*X-Error-Code/);
  await r.arrayBuffer();
});

test('dropAfter cuts the next body of that file once; the counters see what was sent', async () => {
  const u = `${hub.url}/test/gpt2/resolve/main/model.safetensors`;
  const want = read(GPT2, 'model.safetensors');
  hub.reset();
  hub.dropAfter('model.safetensors', 20000);
  const r = await fetch(u);
  assert.equal(r.status, 200);
  await assert.rejects(r.arrayBuffer()); // Content-Length promised more: the body read fails
  assert.equal(hub.bytesSentFor('test/gpt2', 'model.safetensors'), 20000);
  const again = await fetch(u); // one-shot
  assert.deepEqual(await bytes(again), want);
  assert.equal(hub.bytesSent(), 20000 + want.length);
  // dropped before any byte: the headers arrive, the body is empty and fails
  hub.dropAfter('config.json', 0);
  const z = await fetch(`${hub.url}/test/gpt2/resolve/main/config.json`);
  await assert.rejects(z.arrayBuffer());
});

test('corrupt flips one byte while model info keeps the true sha256', async () => {
  const want = read(GPT2, 'model.safetensors');
  hub.corrupt('test/corrupt', 'model.safetensors', 20000);
  const got = await bytes(await fetch(`${hub.url}/test/corrupt/resolve/main/model.safetensors`));
  assert.equal(got.length, want.length);
  const diff = [...got.keys()].filter((i) => got[i] !== want[i]);
  assert.deepEqual(diff, [20000]);
  assert.equal(got[20000], want[20000] ^ 0xff);
  const r = await fetch(`${hub.url}/test/corrupt/resolve/main/model.safetensors`, { headers: { Range: 'bytes=19990-20009' } });
  assert.deepEqual([...(await bytes(r))].map((b, i) => b !== want[19990 + i]).indexOf(true), 10);
  const j = await (await info('test/corrupt')).json();
  assert.equal(j.siblings.find((s) => s.rfilename === 'model.safetensors').lfs.sha256, sha256(want));
  // another repo of the same folder is untouched
  assert.deepEqual(await bytes(await fetch(`${hub.url}/test/gpt2/resolve/main/model.safetensors`)), want);
});

test('bytesSent counts file bodies only (not API JSON, HEAD or redirects); reset zeroes it', async () => {
  hub.reset();
  assert.equal(hub.bytesSent(), 0);
  assert.equal(hub.requests.length, 0);
  await (await info('test/bert')).arrayBuffer();
  await (await fetch(`${hub.url}/test/bert/resolve/main/model.safetensors`, { method: 'HEAD' })).arrayBuffer(); // follows to the CDN
  await (await fetch(`${hub.url}/test/bert/resolve/main/config.json`, { method: 'HEAD' })).arrayBuffer();
  assert.equal(hub.bytesSent(), 0);
  await (await fetch(`${hub.url}/test/bert/resolve/main/config.json`)).arrayBuffer();
  await (await fetch(`${hub.url}/test/bert/resolve/main/model.safetensors`, { headers: { Range: 'bytes=0-99' } })).arrayBuffer();
  const cfg = read(BERT, 'config.json').length;
  assert.equal(hub.bytesSentFor('test/bert', 'config.json'), cfg);
  assert.equal(hub.bytesSentFor('test/bert', 'model.safetensors'), 100);
  assert.equal(hub.bytesSent(), cfg + 100);
  assert.deepEqual(hub.requests.map((q) => [q.origin, q.method, q.status, q.range]), [
    ['hub', 'GET', 200, null], ['hub', 'HEAD', 302, null], ['cdn', 'HEAD', 200, null], ['hub', 'HEAD', 200, null],
    ['hub', 'GET', 200, null], ['hub', 'GET', 302, 'bytes=0-99'], ['cdn', 'GET', 206, 'bytes=0-99']]);
  assert.equal(hub.requests[0].path, '/api/models/test/bert');
});

test('slow throttles bodies', async () => {
  const n = read(GPT2, 'model.safetensors').length;
  hub.slow(200_000);
  try {
    const t = performance.now();
    const got = await bytes(await fetch(`${hub.url}/test/gpt2/resolve/main/model.safetensors`));
    assert.equal(got.length, n);
    assert.ok(performance.now() - t >= (n / 200_000) * 1000 * 0.8, 'took at least ~size/rate');
  } finally {
    hub.slow(null);
  }
});

test('standalone: --repo owner/name=DIR prints both origins and serves', async () => {
  const child = spawn(process.execPath, [path.join(here, 'hub_server.mjs'), '--repo', `solo/gpt2=${GPT2}`],
    { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    let out = '';
    for await (const chunk of child.stdout) { out += chunk; if (/cdn http\S+\n/.test(out)) break; }
    const [, url] = /^hub (http\S+)$/m.exec(out) ?? [];
    assert.match(out, /^cdn http:\/\/127\.0\.0\.1:\d+$/m);
    const j = await (await fetch(`${url}/api/models/solo/gpt2`)).json();
    assert.equal(j.id, 'solo/gpt2');
  } finally {
    child.kill();
  }
});
