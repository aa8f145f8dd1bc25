// The elements and the engine from the package, bundled by Vite: the elements draw, and the
// page asks the same engine (pageEngine) for a number of its own.
import { pageEngine } from 'transformer-playground/elements';

const input = document.getElementById('text');
const views = document.querySelectorAll('tfp-tokens, tfp-attention');
const show = () => views.forEach((v) => v.setAttribute('text', input.value));
input.addEventListener('input', show);
show();

const engine = await pageEngine();
const model = await document.getElementById('m').model;
const { ids } = await model.tokenize(input.value);
document.getElementById('summary').textContent =
  `${model.info.family} on ${engine.info.threads} thread(s): ${ids.length} tokens`;
