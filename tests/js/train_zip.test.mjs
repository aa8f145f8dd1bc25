// The training page's zip writer (web/src/pages/train/zip.ts): stored files, CRC-32, local
// and central headers. Oracles, independent of the writer: Info-ZIP's `unzip -t` (Debian)
// and Python's zipfile when present, and in every case a reader written here from the
// format (APPNOTE.TXT) that checks both headers, the sizes and each file's CRC.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { transformWithOxc } from 'vite';

const source = readFileSync(new URL('../../web/src/pages/train/zip.ts', import.meta.url), 'utf8');
const dir = mkdtempSync(join(tmpdir(), 'tfp-zip-'));
// TypeScript to JavaScript with the bundler the site builds with (vite's Oxc transform).
const js = await transformWithOxc(source, 'zip.ts');
writeFileSync(join(dir, 'zip.mjs'), js.code);
const { zipStore, crc32 } = await import(pathToFileURL(join(dir, 'zip.mjs')).href);
test.after(() => rmSync(dir, { recursive: true, force: true }));

const enc = new TextEncoder();
const weights = new Uint8Array(70001);
for (let i = 0; i < weights.length; i++) weights[i] = (i * 2654435761) >>> 24;
const files = [
  { name: 'numbers-encdec-step300/config.json', data: enc.encode('{"model_type": "tfp"}\n') },
  { name: 'numbers-encdec-step300/model.safetensors', data: weights },
  { name: 'numbers-encdec-step300/tokenizer.json', data: enc.encode('{"model": {"type": "Char", "vocab": {"年": 70}}}') },
  { name: 'numbers-encdec-step300/empty', data: new Uint8Array(0) },
];
const zip = zipStore(files, new Date(2026, 10, 25, 4, 30, 10));

test('crc32: the published check values', () => {
  // CRC-32/ISO-HDLC check value of "123456789" (the CRC catalogue), and of nothing.
  assert.equal(crc32(enc.encode('123456789')), 0xcbf43926);
  assert.equal(crc32(new Uint8Array(0)), 0);
  assert.equal(crc32(enc.encode('The quick brown fox jumps over the lazy dog')), 0x414fa339);
});

/** A reader from the format: the end record → the central directory → each local header. */
function readZip(bytes) {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = bytes.length - 22;
  assert.equal(v.getUint32(end, true), 0x06054b50, 'end of central directory signature');
  const count = v.getUint16(end + 10, true), cdSize = v.getUint32(end + 12, true), cdOffset = v.getUint32(end + 16, true);
  assert.equal(cdOffset + cdSize, end, 'the central directory ends where the end record starts');
  const dec = new TextDecoder('utf-8', { fatal: true });
  const out = [];
  let p = cdOffset;
  for (let i = 0; i < count; i++) {
    assert.equal(v.getUint32(p, true), 0x02014b50, 'central header signature');
    const method = v.getUint16(p + 10, true), crc = v.getUint32(p + 16, true);
    const csize = v.getUint32(p + 20, true), size = v.getUint32(p + 24, true);
    const nlen = v.getUint16(p + 28, true), elen = v.getUint16(p + 30, true), clen = v.getUint16(p + 32, true);
    const local = v.getUint32(p + 42, true);
    const name = dec.decode(bytes.subarray(p + 46, p + 46 + nlen));
    assert.equal(method, 0);
    assert.equal(csize, size);
    assert.equal(v.getUint32(local, true), 0x04034b50, 'local header signature');
    assert.equal(v.getUint32(local + 14, true), crc, 'local CRC = central CRC');
    assert.equal(v.getUint32(local + 22, true), size);
    const lnlen = v.getUint16(local + 26, true), lelen = v.getUint16(local + 28, true);
    assert.equal(dec.decode(bytes.subarray(local + 30, local + 30 + lnlen)), name);
    const data = bytes.subarray(local + 30 + lnlen + lelen, local + 30 + lnlen + lelen + size);
    assert.equal(crc32(data), crc, `${name}: CRC-32 of the stored bytes`);
    out.push({ name, data, time: v.getUint16(p + 12, true), date: v.getUint16(p + 14, true) });
    p += 46 + nlen + elen + clen;
  }
  return out;
}

test('zip: the reader written here finds every file, byte for byte, with its CRC and date', () => {
  const got = readZip(zip);
  assert.deepEqual(got.map((f) => f.name), files.map((f) => f.name));
  for (const [i, f] of got.entries()) assert.deepEqual(f.data, files[i].data);
  // 2026-11-25 04:30:10 as MS-DOS fields.
  assert.equal(got[0].date, ((2026 - 1980) << 9) | (11 << 5) | 25);
  assert.equal(got[0].time, (4 << 11) | (30 << 5) | 5);
});

test('zip: Info-ZIP unzip -t and Python zipfile accept it', (t) => {
  const path = join(dir, 'model.zip');
  writeFileSync(path, zip);
  let checked = 0;
  if (existsSync('/usr/bin/unzip')) {
    const log = execFileSync('/usr/bin/unzip', ['-t', path], { encoding: 'utf8' });
    assert.match(log, /No errors detected/);
    checked++;
  }
  if (existsSync('/usr/bin/python3')) {
    const py = `import zipfile, sys, json
z = zipfile.ZipFile(sys.argv[1])
assert z.testzip() is None
print(json.dumps([[i.filename, i.file_size, i.compress_type, len(z.read(i.filename))] for i in z.infolist()]))`;
    const listed = JSON.parse(execFileSync('/usr/bin/python3', ['-c', py, path], { encoding: 'utf8' }));
    assert.deepEqual(listed, files.map((f) => [f.name, f.data.length, 0, f.data.length]));
    checked++;
  }
  if (checked === 0) t.diagnostic('neither unzip nor python3 here: only the reader written in this test checked the archive');
});

test('zip: an empty archive is the bare end record; bad names are refused', () => {
  const empty = zipStore([]);
  assert.equal(empty.length, 22);
  assert.equal(readZip(empty).length, 0);
  assert.throws(() => zipStore([{ name: '', data: new Uint8Array(1) }]), /bad file name/);
});
