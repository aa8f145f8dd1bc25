// A safetensors file split into shards, for the tests of sharded loads (weights_stream, the
// Hub road's sharded repositories).

/** A safetensors file split into two shards (its first tensors, the rest) and their index. */
export function twoShards(bytes) {
  const n = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n)));
  const names = Object.keys(header).filter((k) => k !== '__metadata__');
  const groups = [names.slice(0, names.length >> 1), names.slice(names.length >> 1)];
  const shards = groups.map((group, i) => {
    const head = {}, parts = [];
    let at = 0;
    for (const k of group) {
      const [b, e] = header[k].data_offsets;
      parts.push(bytes.subarray(8 + n + b, 8 + n + e));
      head[k] = { dtype: header[k].dtype, shape: header[k].shape, data_offsets: [at, at + e - b] };
      at += e - b;
    }
    let text = JSON.stringify(head);
    text += ' '.repeat((8 - (text.length % 8)) % 8);
    const h = new TextEncoder().encode(text), out = new Uint8Array(8 + h.length + at);
    new DataView(out.buffer).setBigUint64(0, BigInt(h.length), true);
    out.set(h, 8);
    let o = 8 + h.length;
    for (const p of parts) { out.set(p, o); o += p.length; }
    return { name: `model-0000${i + 1}-of-00002.safetensors`, bytes: out };
  });
  const index = { weight_map: Object.fromEntries(groups.flatMap((g, i) => g.map((k) => [k, shards[i].name]))) };
  return { shards, index: JSON.stringify(index) };
}
