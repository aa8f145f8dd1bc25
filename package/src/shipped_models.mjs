// The models published with the package (its models/ folder: config.json, model.safetensors,
// tokenizer.json each), by name: engine.load(shippedModel('brown-gpt')) works offline.
export const SHIPPED_MODELS = ['brown-gpt', 'brown-pos', 'dates', 'numbers-gru', 'numbers-transformer'];

/** The folder address (a URL string) of a shipped model (a name of SHIPPED_MODELS). */
export function shippedModel(name) {
  if (!SHIPPED_MODELS.includes(name)) throw new Error(`no shipped model "${name}": the package has ${SHIPPED_MODELS.join(', ')}`);
  // Not new URL(template, import.meta.url) written out: bundlers (Vite) take that form for
  // a file to bundle and rewrite it. The vite plugin (vite.mjs) copies the models instead.
  const here = import.meta.url;
  return new URL(`../models/${name}/`, here).href;
}
