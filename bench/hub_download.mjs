// The Hub road's throughput in Node against the local stand-in (tests/hub/hub_server.mjs):
// a plain fetch of a safetensors file beside the road's download of the same bytes (Range
// reads of the header, SHA-256 as they pass, stored in pieces in a cache folder), and a
// second open from the store. Prints MB/s and the ratio.
//   node bench/hub_download.mjs [--mb 256]
import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir, cpus } from 'node:os';
import { join } from 'node:path';
import { startHub } from '../tests/hub/hub_server.mjs';
import { HubClient } from '../web/src/hub/hub_client.mjs';
import { planHubModel, downloadWeights } from '../web/src/hub/hub_open.mjs';
import { NodeHubStore } from '../web/src/hub/hub_store_node.mjs';

const mb = Number(process.argv[process.argv.indexOf('--mb') + 1]) || 256;
const tmp = await mkdtemp(join(tmpdir(), 'tfp-hub-bench-'));
const dir = join(tmp, 'repo');
await mkdir(dir);
// One F32 tensor of `mb` MB: a valid safetensors file the size of a small model.
const n = Math.floor((mb * 1e6) / 4);
const header = new TextEncoder().encode(JSON.stringify({ w: { dtype: 'F32', shape: [n], data_offsets: [0, 4 * n] } }).padEnd(64, ' '));
const file = new Uint8Array(8 + header.length + 4 * n);
new DataView(file.buffer).setBigUint64(0, BigInt(header.length), true);
file.set(header, 8);
for (let i = 8 + header.length; i < file.length; i += 4096) file[i] = i & 255;
await writeFile(join(dir, 'model.safetensors'), file);
await writeFile(join(dir, 'config.json'), '{"model_type":"gpt2"}');
const hub = await startHub({ repos: { 'bench/model': { dir } } });
const seconds = async (f) => { const t = performance.now(); await f(); return (performance.now() - t) / 1000; };
try {
  const plain = await seconds(async () => {
    const r = await fetch(new HubClient({ hub: hub.url }).fileUrl('bench/model', 'main', 'model.safetensors'));
    for await (const _ of r.body) { /* read */ }
  });
  const client = new HubClient({ hub: hub.url });
  const store = new NodeHubStore(join(tmp, 'cache'));
  const road = await seconds(async () => downloadWeights(await planHubModel({ client, store, repo: 'bench/model' }), { client, store }));
  const again = await seconds(async () => downloadWeights(await planHubModel({ client, store, repo: 'bench/model' }), { client, store }));
  const rate = (s) => (file.length / 1e6 / s).toFixed(0);
  console.log(JSON.stringify({ cpu: cpus()[0]?.model, bytes: file.length,
    plainFetchMBps: Number(rate(plain)), roadMBps: Number(rate(road)), ratio: Number((plain / road).toFixed(2)),
    fromStoreMBps: Number(rate(again)) }));
} finally {
  await hub.close();
  await rm(tmp, { recursive: true, force: true });
}
