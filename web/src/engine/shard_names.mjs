// The shard files a model.safetensors.index.json names. Plain JavaScript (typed by
// shard_names.d.mts): the page, its worker and Node (the Hub road, hub_open.mjs) share it.

export const INDEX_NAME = 'model.safetensors.index.json';

/** The shard names an index's weight_map lists, each once, sorted (model-00001-of-… first). */
export function shardNames(indexText, what = INDEX_NAME) {
  let index;
  try {
    index = JSON.parse(indexText);
  } catch (e) {
    throw new Error(`${what}: not JSON (${e instanceof Error ? e.message : String(e)})`);
  }
  const map = index?.weight_map;
  if (!map || typeof map !== 'object') throw new Error(`${what}: no "weight_map" object`);
  const names = new Set();
  for (const [tensor, file] of Object.entries(map)) {
    if (typeof file !== 'string') throw new Error(`${what}: weight_map["${tensor.slice(0, 100)}"] is not a file name`);
    names.add(file);
  }
  if (names.size === 0) throw new Error(`${what}: the weight_map is empty`);
  return [...names].sort();
}
