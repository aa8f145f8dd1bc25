// The weights streamed into the module piece by piece (tfp_model_files_stream_*), as the
// page's worker streams a file or a download. Oracle: the same files staged whole
// (tfp_model_files_create) at the same precision: identical info and logits, bit for bit
// (model/weights_stream.h narrows exactly as the whole-file load does; the native suite,
// test_weights_stream.cpp, checks every family). Bad input is a message, and the module
// then loads and runs a good model. A sharded checkpoint streams shard by shard
// (tfp_model_files_stream_shard_begin): the same info and logits as its shards reserved whole.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { loadTfp } from './tfp_module.mjs';
import { ModelApi, readFixture } from './model_api.mjs';
import { twoShards } from './shards.mjs';

let api;
before(async () => {
  api = new ModelApi(await loadTfp());
});

const ids = [5, 77, 3, 200, 13, 1, 263, 42];

/** For pieces of 1, 333 and 65,536 bytes, the model streamed(piece) holds the info and gives
 *  the logits of `whole` (freed after). */
function sameAsWhole(whole, streamed) {
  try {
    const want = api.forward(whole, ids).logits;
    for (const piece of [1, 333, 65536]) {
      const m = streamed(piece);
      try {
        const a = api.info(m), b = api.info(whole);
        assert.equal(a.precision, b.precision);
        assert.equal(a.weights_bytes, b.weights_bytes);
        const got = api.forward(m, ids).logits;
        assert.deepEqual(got.dims, want.dims);
        assert.deepEqual(Array.from(got.data), Array.from(want.data), `piece ${piece}`);
      } finally {
        api.free(m);
      }
    }
  } finally {
    api.free(whole);
  }
}

for (const precision of ['', 'f16', 'int8']) {
  test(`gpt2_tiny streamed at ${precision || 'stored'}: the info and logits of a whole-file load`, () => {
    const files = readFixture('gpt2_tiny');
    sameAsWhole(api.load(files, 'fixture', precision), (piece) => api.loadStreamed(files, { precision, piece }));
  });
}

test('streamed bad input: more bytes than announced, a NaN to quantise, a truncated file; then a good load', () => {
  const good = readFixture('gpt2_tiny');
  const files = api.out((s) => api.m._tfp_model_files_create(0, s));
  try {
    api.check(api.m._tfp_model_files_stream_begin(files, 100));
    assert.throws(() => api.out((s) => api.m._tfp_model_files_stream_next(files, 101, s)),
      (e) => e.status === 2 && /only 100 of the announced 100/.test(e.message));
  } finally {
    api.m._tfp_model_files_free(files);
  }
  // A NaN in the first matrix the stream quantises (the weights' last 4 bytes are in a bias:
  // the header names the tensors; the NaN goes into wte.weight's first element).
  const header = JSON.parse(new TextDecoder().decode(good.weights.subarray(8, 8 + Number(new DataView(good.weights.buffer, good.weights.byteOffset).getBigUint64(0, true)))));
  const start = 8 + Number(new DataView(good.weights.buffer, good.weights.byteOffset).getBigUint64(0, true));
  const bad = good.weights.slice();
  new DataView(bad.buffer).setFloat32(start + header['wte.weight'].data_offsets[0] + 4 * 3, NaN, true);
  assert.throws(() => api.loadStreamed({ ...good, weights: bad }, { precision: 'int8', name: 'nan' }),
    (e) => e.status === 2 && /'wte\.weight' holds NaN at flat index 3/.test(e.message));
  const cut = good.weights.subarray(0, good.weights.length - 100);
  assert.throws(() => api.loadStreamed({ ...good, weights: cut }, { precision: 'int8', name: 'cut' }),
    (e) => e.status === 2 && /cut\/model\.safetensors/.test(e.message));
  const m = api.loadStreamed(good, { precision: 'int8' });
  try {
    assert.equal(api.forward(m, [1, 2, 3]).logits.dims.join(), '3,264');
    assert.equal(api.info(m).precision, 'int8');
  } finally {
    api.free(m);
  }
});


for (const precision of ['', 'f16', 'int8']) {
  test(`gpt2_tiny in two shards streamed at ${precision || 'stored'}: the info and logits of its shards reserved whole`, () => {
    const files = readFixture('gpt2_tiny');
    const sharded = { config: files.config, ...twoShards(files.weights) };
    const whole = api.loadShards(sharded, { precision });
    assert.equal(api.info(whole).precision, precision || 'f32');
    sameAsWhole(whole, (piece) => api.loadShards(sharded, { precision, stream: true, piece }));
  });
}

test('a streamed shard short of its bytes is named when the next begins; the module then loads a good model', () => {
  const files = readFixture('gpt2_tiny');
  const { shards, index } = twoShards(files.weights);
  // Announce one byte more than the first shard holds: it ends short.
  const m = api.m, enc = new TextEncoder();
  const staged = api.out((s) => m._tfp_model_files_create(0, s));
  try {
    api.withBytes(enc.encode(files.config), (p, n) => api.check(m._tfp_model_files_set_config(staged, p, n)));
    api.withBytes(enc.encode('short\0'), (p) => api.check(m._tfp_model_files_set_name(staged, p)));
    api.withBytes(enc.encode(shards[0].name + '\0'), (p) => api.check(m._tfp_model_files_stream_shard_begin(staged, p, shards[0].bytes.length + 1)));
    m.HEAPU8.set(shards[0].bytes, api.out((s) => m._tfp_model_files_stream_next(staged, shards[0].bytes.length, s)));
    api.check(m._tfp_model_files_stream_commit(staged, shards[0].bytes.length));
    assert.throws(() => api.withBytes(enc.encode(shards[1].name + '\0'), (p) => api.check(m._tfp_model_files_stream_shard_begin(staged, p, shards[1].bytes.length))),
      (e) => e.status === 2 && /short\/model-00001-of-00002\.safetensors/.test(e.message));
  } finally {
    m._tfp_model_files_free(staged);
  }
  const good = api.loadShards({ config: files.config, shards, index }, { precision: 'int8', stream: true });
  try {
    assert.equal(api.info(good).precision, 'int8');
  } finally {
    api.free(good);
  }
});
