// Chapter 6, figure 2: brown-gpt's heads on the reader's sentence (model.forward with
// attention, engine.headStats with the causal rule): every layer × head map, the strongest
// previous-token and first-token heads by the engine's statistics (picking the largest of
// its numbers is a choice of what to show, not maths), any head opened large, the
// statistics table, a link into the playground, and the exercise "which head of this
// layer attends to the previous token?", answered by the engine's statistics.
// Legend: L layers, H heads, T tokens.
import { proseHtml } from '../../maths';
import { locale } from '../../../i18n/i18n';
import { Heatmap } from '../../../widgets/heatmap';
import { LayerHeadGrid } from '../../../widgets/layer_head_grid';
import { onThemeChange } from '../../../widgets/theme';
import { visibleToken } from '../../../widgets/token_text';
import { type Key, type MhChapter } from './dom';
import { el } from '../../../widgets/dom';
import { fixed, pct } from '../../format';
import { numberTable } from '../../../widgets/tables';

/** Builds section 2 into the chapter; run() loads brown-gpt once and draws. */
export function brownSection(ch: MhChapter): { run: () => Promise<void> } {
  const state = ch.debug.state;
  const MODEL = 'brown-gpt';
  const brown = {
    text: 'The jury said it did not find any evidence that the election was unfair.',
    selected: { layer: 1, head: 0 },
  };
  interface Found { layer: number; head: number; share: number }
  let brownView: {
    tokens: string[]; maps: Float32Array[]; stats: Float32Array[]; heads: number; T: number; total: number; max: number;
    prev: Found | null; first: Found | null; exLayer: number;
  } | null = null;

  const s2 = ch.section('hBrown');
  ch.prose(s2, 'brownIntro');
  const fig2 = ch.figure(s2, {
    caption: 'figBrownCaption', label: 'figBrownLabel',
    // The grid's pictures as numbers: every head of the selected layer.
    table: (host) => {
      const v = brownView;
      if (!v) return;
      const l = brown.selected.layer, T = v.T;
      host.replaceChildren(...Array.from({ length: v.heads }, (_, h) => numberTable(ch.t('selectedTitle', { layer: l + 1, head: h + 1 }),
        v.tokens, v.tokens, v.maps[l]!.subarray(h * T * T, (h + 1) * T * T))));
    },
  });
  const sentence = el('textarea');
  sentence.rows = 2;
  sentence.value = brown.text;
  sentence.spellcheck = false;
  sentence.addEventListener('input', () => { brown.text = sentence.value; scheduleBrown(); });
  fig2.controls.append(ch.field('sentenceLabel', sentence, 'mh-sentence').element);
  fig2.controls.classList.add('mh-sentence-controls');

  const foundBox = el('div', 'mh-found');
  const truncNote = el('p', 'mh-note');
  truncNote.hidden = true;
  const gridBox = el('div', 'mh-grid');
  const bigMap = new Heatmap({ title: '', maxCell: 36, digits: 3, rowAxis: () => ch.t('axisQuery'), colAxis: () => ch.t('axisKey') });
  const bigBox = el('div', 'mh-big');
  bigBox.append(bigMap.element);
  const lhGrid = new LayerHeadGrid((l, h) => selectHead(l, h));
  gridBox.append(lhGrid.element);
  fig2.view.append(truncNote, foundBox, gridBox, bigBox);
  fig2.view.classList.add('mh-brown');
  const statsBox = el('div', 'mh-stats');
  fig2.view.append(statsBox);
  const link = ch.playgroundLink(s2, 'openPlayground', () => ({
    model: MODEL, text: brown.text.trim(), layer: brown.selected.layer, head: brown.selected.head,
  }));
  onThemeChange(() => { lhGrid.redraw(); bigMap.redraw(); });

  const STAT_KEYS: Key[] = ['statsEntropy', 'statsDistance', 'statsFirst', 'statsPrev'];

  function statsTable(): HTMLTableElement {
    const table = el('table', 'mh-stats-table');
    table.createCaption().textContent = ch.t('statsCaption');
    const head = table.createTHead().insertRow();
    for (const k of ['statsLayer', 'statsHead', ...STAT_KEYS] as Key[]) {
      const th = el('th');
      th.scope = 'col';
      th.textContent = ch.t(k);
      head.append(th);
    }
    const body = table.createTBody();
    const v = brownView;
    if (!v) return table;
    v.stats.forEach((s, l) => {
      for (let h = 0; h < v.heads; h++) {
        const tr = body.insertRow();
        tr.dataset.layer = String(l);
        tr.dataset.head = String(h);
        if (v.prev && v.prev.layer === l && v.prev.head === h) tr.classList.add('is-prev');
        if (v.first && v.first.layer === l && v.first.head === h) tr.classList.add('is-first');
        tr.insertCell().textContent = String(l + 1);
        tr.insertCell().textContent = String(h + 1);
        tr.insertCell().textContent = fixed(s[h * 4]!, 2);
        tr.insertCell().textContent = fixed(s[h * 4 + 1]!, 2);
        tr.insertCell().textContent = pct(s[h * 4 + 2]!);
        tr.insertCell().textContent = pct(s[h * 4 + 3]!);
      }
    });
    return table;
  }

  /** The (layer, head) with the largest engine statistic `col` (NaN never wins). */
  function strongest(stats: Float32Array[], heads: number, col: number): Found | null {
    let best: Found | null = null;
    stats.forEach((s, layer) => {
      for (let head = 0; head < heads; head++) {
        const share = s[head * 4 + col]!;
        if (Number.isFinite(share) && (!best || share > best.share)) best = { layer, head, share };
      }
    });
    return best;
  }

  let causalCache: { T: number; mask: Float32Array } | null = null;
  /** The causal mask (T, T) as the heatmap draws it (1 = key after the query). */
  function causalMask(T: number): Float32Array {
    if (causalCache?.T !== T) {
      const mask = new Float32Array(T * T);
      for (let i = 0; i < T; i++) for (let j = i + 1; j < T; j++) mask[i * T + j] = 1;
      causalCache = { T, mask };
    }
    return causalCache.mask;
  }

  function renderBrown(): void {
    const v = brownView;
    if (!v) return;
    const { layer, head } = brown.selected;
    const T = v.T;
    const masked = causalMask(T);
    lhGrid.update({ layers: v.maps, heads: v.heads, rows: T, cols: T, masked, selected: brown.selected });
    bigMap.setTitle(ch.t('selectedTitle', { layer: layer + 1, head: head + 1 }));
    bigMap.update({ rowLabels: v.tokens, colLabels: v.tokens, values: v.maps[layer]!.subarray(head * T * T, (head + 1) * T * T), masked });
    truncNote.hidden = v.total <= v.T;
    truncNote.textContent = truncNote.hidden ? '' : ch.t('truncated', { n: v.total, max: v.max });
    foundBox.replaceChildren();
    const found = (f: Found | null, key: Key, kind: string) => {
      if (!f) return;
      const p = el('p');
      p.dataset.kind = kind;
      const span = el('span');
      span.innerHTML = proseHtml(ch.t(key, { layer: f.layer + 1, head: f.head + 1, share: pct(f.share) }));
      const b = el('button', 'mh-show');
      b.type = 'button';
      b.dataset.kind = kind;
      b.textContent = ch.t('showIt', { layer: f.layer + 1, head: f.head + 1 });
      b.addEventListener('click', () => selectHead(f.layer, f.head));
      p.append(span, ' ', b);
      foundBox.append(p);
    };
    found(v.prev, 'foundPrev', 'prev');
    found(v.first, 'foundFirst', 'first');
    statsBox.replaceChildren(statsTable());
    (link as HTMLAnchorElement & { update?: () => void }).update?.();
    fig2.refreshTable();
    ch.debug.renders++;
  }
  ch.onLocale(renderBrown);

  function selectHead(layer: number, head: number): void {
    brown.selected = { layer, head };
    const b = state['brown'] as Record<string, unknown> | undefined;
    if (b) b['selected'] = { layer, head };
    renderBrown();
  }

  let brownTimer = 0;
  let brownRun = 0;
  /** The latest run (the exercise waits for it). */
  let pending: Promise<void> = Promise.resolve();
  function scheduleBrown(): void {
    window.clearTimeout(brownTimer);
    brownTimer = window.setTimeout(() => void runBrown(), 250);
  }

  function runBrown(): Promise<void> {
    pending = forwardAndStats();
    return pending;
  }

  async function forwardAndStats(): Promise<void> {
    const text = brown.text.trim();
    if (!text) return;
    const mine = ++brownRun;
    try {
      const engine = await ch.engine();
      const model = await ch.model(MODEL);
      const enc = await model.tokenize(text);
      // The model's context is its limit; longer texts keep their first max_positions tokens.
      const n = Math.min(enc.ids.length, model.info.max_positions);
      const ids = enc.ids.slice(0, n);
      const out = await model.forward(ids, { attention: true });
      const layers = out.attention.filter((a) => /^dec\.\d+\.attn\.probs$/.test(a.name))
        .sort((a, b) => Number(a.name.split('.')[1]) - Number(b.name.split('.')[1]));
      const stats = await engine.headStats(layers, { causal: true });
      if (mine !== brownRun) return;
      const heads = layers[0]!.dims[0]!, T = layers[0]!.dims[1]!;
      const statData = stats.map((s) => s.data);
      const prev = strongest(statData, heads, 3), first = strongest(statData, heads, 2);
      const exLayer = prev?.layer ?? 1;
      brownView = { tokens: Array.from(enc.tokens.slice(0, n), (t) => visibleToken(t, true)), maps: layers.map((l) => l.data),
                    stats: statData, heads, T, total: enc.ids.length, max: model.info.max_positions, prev, first, exLayer };
      if (brown.selected.layer >= layers.length || brown.selected.head >= heads) brown.selected = { layer: 0, head: 0 };
      if (!state['brown']) brown.selected = prev ? { layer: prev.layer, head: prev.head } : brown.selected;
      state['brown'] = { text, ids: Array.from(ids), tokens: enc.tokens.slice(0, n), maps: layers, stats, prev, first,
                         exLayer, selected: { ...brown.selected } };
      renderBrown();
      refreshExercise();
    } catch (e) {
      if (mine === brownRun) ch.showError(e);
    }
  }

  // The exercise: which head of the layer holding the strongest previous-token head puts
  // the most weight on the previous token? Answered from the engine's statistics.
  const ex = ch.exercise(s2, {
    id: 'previous-token-head',
    question: 'exQuestion',
    questionParams: () => ({ layer: (brownView?.exLayer ?? 1) + 1 }),
    choices: () => Array.from({ length: brownView?.heads ?? 4 }, (_, h) => ch.t('exChoice', { head: h + 1 })),
    answer: async () => {
      await pending;
      const v = brownView;
      if (!v) throw new Error(ch.t('exTooShort'));
      // Ask the engine again for this layer's statistics: the answer is its numbers.
      const engine = await ch.engine();
      const [s] = await engine.headStats([{ data: v.maps[v.exLayer]!, dims: [v.heads, v.T, v.T] }], { causal: true });
      const shares = Array.from({ length: v.heads }, (_, h) => s!.data[h * 4 + 3]!);
      // Fewer than 3 tokens: no row has a previous token besides the first (NaN shares).
      if (!shares.some(Number.isFinite)) throw new Error(ch.t('exTooShort'));
      let correct = 0;
      shares.forEach((x, h) => { if (Number.isFinite(x) && !(shares[correct]! >= x)) correct = h; });
      state['exercise'] = { layer: v.exLayer, shares, correct };
      const list = shares.map((x, h) => `${ch.t('exChoice', { head: h + 1 })} ${pct(x)}`).join(locale() === 'zh-CN' ? '，' : ', ');
      return { correct, explanation: ch.t('exExplain', { layer: v.exLayer + 1, list, head: correct + 1, share: pct(shares[correct]!) }) };
    },
  });
  function refreshExercise(): void {
    // The question names the layer: re-render it with the new one, then the choices.
    ex.refresh();
  }

  return { run: runBrown };
}
