// A Node script that loads a model and prints what it attends to:
//   node attention.mjs ["some text"] [model]
// model: a shipped model's name (default brown-gpt), a folder on disk (config.json,
// model.safetensors, tokenizer.json), or a Hugging Face Hub name "hf:owner/name".
// Prints the tokens, the next-token candidates and, for the last layer's heads, where the
// last token looks, then one line of JSON (what the package's test compares).
import { Engine, SHIPPED_MODELS, shippedModel } from 'transformer-playground';

const text = process.argv[2] ?? 'the jury said that the city';
const which = process.argv[3] ?? 'brown-gpt';
const source = SHIPPED_MODELS.includes(which) ? shippedModel(which) : which;

const engine = await Engine.create();
const model = await engine.load(source);
const { ids, tokens } = await model.tokenize(text);
const out = await model.forward(ids, { attention: true, logits: 'last', next: { topN: 5 } });

console.log(`${model.info.family} model "${which}": ${tokens.length} tokens`);
console.log(tokens.map((t, i) => `${i + 1}:${JSON.stringify(t)}`).join(' '));
console.log('next:', (out.next ?? []).map((c) => `${JSON.stringify(c.token)} ${(100 * c.prob).toFixed(1)}%`).join(', '));

const last = out.attention.filter((a) => a.name.endsWith('.attn.probs')).at(-1);
const [heads, T] = last.dims;
for (let h = 0; h < heads; h++) {
  const row = last.data.subarray((h * T + T - 1) * T, (h * T + T) * T);
  const top = [...row.keys()].sort((a, b) => row[b] - row[a]).slice(0, 3);
  console.log(`${last.name} head ${h + 1}: ${top.map((k) => `${JSON.stringify(tokens[k])} ${row[k].toFixed(2)}`).join(', ')}`);
}
console.log(JSON.stringify({ ids: [...ids], next: out.next?.map((c) => c.id), lastRow: [...last.data.subarray((T - 1) * T, T * T)] }));
await model.dispose();
