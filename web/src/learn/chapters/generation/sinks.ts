// Chapter "Generating text", section 4: attention sinks. brown-gpt reads the reader's text
// once (model.forward with attention); the engine's head statistics (engine.headStats,
// tfp_attention_head_stats_masked, causal) give each head's first-token share, averaged
// over the rows that see more than one key; drawn as a layers × heads heatmap with the
// uniform baseline (the mean of 1/i over those rows) and the spread in one line.
import { Heatmap } from '../../../widgets/heatmap';
import { el } from '../../../widgets/dom';
import { num } from '../../format';
import { latest } from '../../latest';
import { MODEL, type GenChapter } from './dom';

const DEFAULT_TEXT = 'the jury said that the city had been given a fair and full report of the election';
const FIRST_TOKEN = 2;  // column of the engine's (H, 4) statistics: entropy, distance, first token, previous

export function sinksSection(ch: GenChapter): { run: () => Promise<void> } {
  const state = ch.debug.state;
  const s4 = ch.section('hSinks');
  ch.prose(s4, 'sinksIntro');
  const fig = ch.figure(s4, { caption: 'figSinks', label: 'figSinksLabel' });
  const input = el('input');
  input.type = 'text';
  input.value = DEFAULT_TEXT;
  input.spellcheck = false;
  input.style.width = 'min(36rem, 90vw)';
  fig.controls.append(ch.field('sinksText', input, 'gen-sinks-text').element);
  const map = new Heatmap({ title: '', rowAxis: () => ch.t('sinksRow'), colAxis: () => ch.t('sinksCol'), digits: 3 });
  const readout = el('p', 'help');
  readout.id = 'gen-sinks-readout';
  fig.view.append(map.element, readout);

  let shown: { shares: Float32Array; L: number; H: number; uniform: number } | null = null;
  function render(): void {
    if (!shown) return;
    const { shares, L, H, uniform } = shown;
    map.setTitle(ch.t('figSinksLabel'));
    map.update({ rowLabels: Array.from({ length: L }, (_, l) => `L${l + 1}`), colLabels: Array.from({ length: H }, (_, h) => `H${h + 1}`),
                 values: shares, domain: [0, 1] });
    const all = Array.from(shares);
    readout.textContent = ch.t('sinksReadout', { uniform: num(uniform, 3), min: num(Math.min(...all), 3), max: num(Math.max(...all), 3),
                                                 over: all.filter((v) => v > 0.5).length, heads: all.length });
    ch.debug.renders++;
  }
  ch.onLocale(render);

  const run = latest(ch, async (isLatest) => {
    const engine = await ch.engine();
    const model = await ch.model(MODEL);
    const { ids } = await model.tokenize(input.value);
    const kept = ids.slice(0, model.info.max_positions);
    if (kept.length < 2) return;
    const out = await model.forward(kept, { attention: true, logits: 'none' });
    const maps = out.attention.filter((a) => /^dec\.\d+\.attn\.probs$/.test(a.name));
    const stats = await engine.headStats(maps.map((a) => ({ data: a.data, dims: a.dims })), { causal: true });
    if (!isLatest()) return;
    const H = maps[0]!.dims[0]!, L = maps.length, T = kept.length;
    const shares = new Float32Array(L * H);
    stats.forEach((s, l) => { for (let h = 0; h < H; h++) shares[l * H + h] = s.data[h * 4 + FIRST_TOKEN]!; });
    // Even weights: row i (1-based) gives the first token 1/i; the mean over rows 2 … T.
    let uniform = 0;
    for (let i = 2; i <= T; i++) uniform += 1 / i;
    uniform /= T - 1;
    shown = { shares, L, H, uniform };
    state['sinks'] = { ids: Array.from(kept), shares: Array.from(shares), uniform };
    render();
  });
  input.addEventListener('change', () => void run());
  return { run };
}
