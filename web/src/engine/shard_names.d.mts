// Types of shard_names.mjs.
export const INDEX_NAME: 'model.safetensors.index.json';
/** The shard names an index's weight_map lists, each once, sorted; throws naming `what`. */
export function shardNames(indexText: string, what?: string): string[];
