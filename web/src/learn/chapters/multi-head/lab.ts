// Chapter 6, figure 1: one attention, h heads, in the engine's attention lab
// (engine.attention): the reader's words, h = 1, 2 or 4 heads of d_model = 8 — Q with its
// columns labelled by head (the lab's weights depend on the seed and d_model only, so Q is
// the same for every h), each head's map, the concatenation of the heads' outputs and the
// block's output after W_O; the mistake box "each head sees only part of the tokens".
// Legend: T tokens, C = d_model, H heads, D = d_k = C/H.
import { proseHtml } from '../../maths';
import type { AttentionResult } from 'transformer-playground';
import { HeadGrid } from '../../../widgets/head_grid';
import { NumberMatrix, formatNumber } from '../../../widgets/number_matrix';
import { onThemeChange } from '../../../widgets/theme';
import { concatHeads, type MhChapter } from './dom';
import { el } from '../../../widgets/dom';
import { numberTable } from '../../../widgets/tables';

/** Builds section 1 into the chapter; run() asks the engine and draws. */
export function labSection(ch: MhChapter): { run: () => Promise<void> } {
  const state = ch.debug.state;
  const C_LAB = 8;
  const lab = { words: 'the cat sat on the mat', heads: 2, seed: 1 };
  let labResult: AttentionResult | null = null;

  const s1 = ch.section('hSplit');
  ch.prose(s1, 'introWhat');
  ch.prose(s1, 'introConvention');

  const labTokens = () => lab.words.trim().split(/\s+/).filter(Boolean).slice(0, 8);
  const headOfCol = (c: number, D: number) => Math.floor(c / D);
  const colLabels = (D: number) => Array.from({ length: C_LAB }, (_, c) => `${c + 1}·h${headOfCol(c, D) + 1}`);

  const fig1 = ch.figure(s1, {
    caption: 'figLabCaption', label: 'figLabLabel',
    table: (host) => {
      if (!labResult) return;
      const r = labResult, T = r.tokens.length, H = r.probs.dims[0]!, D = C_LAB / H;
      host.replaceChildren(
        numberTable(ch.t('matQ'), r.tokens, colLabels(D), concatHeads(r.q)),
        ...Array.from({ length: H }, (_, h) => numberTable(ch.t('headMapTitle', { i: h + 1, from: h * D + 1, to: (h + 1) * D }),
          r.tokens, r.tokens, r.probs.data.subarray(h * T * T, (h + 1) * T * T))),
        numberTable(ch.t('matConcat'), r.tokens, colLabels(D), concatHeads(r.headOut)),
        numberTable(ch.t('matOut'), r.tokens, colLabels(C_LAB).map((_, c) => String(c + 1)), r.out.data),
      );
    },
  });
  {
    const words = el('input');
    words.type = 'text';
    words.value = lab.words;
    words.autocomplete = 'off';
    words.spellcheck = false;
    words.addEventListener('input', () => { lab.words = words.value; void runLab(); });
    const seed = el('input');
    seed.type = 'number';
    seed.min = '0';
    seed.max = '999';
    seed.value = String(lab.seed);
    seed.addEventListener('input', () => {
      const v = Number(seed.value);
      if (Number.isInteger(v) && v >= 0) { lab.seed = v; void runLab(); }
    });
    fig1.controls.append(ch.field('wordsLabel', words, 'mh-words').element,
                         ch.segmented('headsLabel', 'mh-heads', [1, 2, 4], lab.heads, (v) => { lab.heads = v; void runLab(); }),
                         ch.field('seedLabel', seed, 'mh-seed').element);
  }
  const shapeLine = el('p', 'mh-shape');
  const qMatrix = new NumberMatrix(1, C_LAB, { label: () => ch.t('matQ'), sym: 'Q', digits: 2, heat: { map: 'viridis', domain: 'symmetric' } });
  const mapsBox = el('div', 'mh-maps');
  mapsBox.dataset.sym = 'A';
  const mapsTitle = el('h3', 'mh-sub');
  ch.bind(mapsTitle, 'mapsTitle');
  const headGrid = new HeadGrid();
  mapsBox.append(mapsTitle, headGrid.element);
  const concatMatrix = new NumberMatrix(1, C_LAB, { label: () => ch.t('matConcat'), sym: 'concat', digits: 2, heat: { map: 'viridis', domain: 'symmetric' } });
  const outMatrix = new NumberMatrix(1, C_LAB, { label: () => ch.t('matOut'), sym: 'out', digits: 2, heat: { map: 'viridis', domain: 'symmetric' } });
  const labFormula = el('div', 'mh-lab-formula');
  fig1.view.append(shapeLine, qMatrix.element, mapsBox, concatMatrix.element, outMatrix.element);
  fig1.view.classList.add('mh-lab');
  fig1.element.insertBefore(labFormula, fig1.view);
  const f1 = ch.formula(labFormula, () => {
    const H = lab.heads, D = C_LAB / H;
    return String.raw`\begin{aligned}
  d_k &= ${C_LAB}/${H} = ${D}, \quad i = 0 \ldots ${H - 1}\\
  \sym{Q}{Q_i} &= Q_{[:,\; ${D}i \,\ldots\, ${D}i + ${D - 1}]} \quad (K_i, V_i\ \text{${ch.t('fLikewise')}})\\
  \text{head}_i &= \sym{A}{\operatorname{softmax}\!\Big(\tfrac{Q_i K_i^\top}{\sqrt{${D}}}\Big)}\, V_i\\
  \sym{out}{\operatorname{MultiHead}(X)} &= \sym{concat}{\operatorname{Concat}(\text{head}_0, \ldots, \text{head}_{${H - 1}})}\\
  &\qquad \cdot W_O^\top + b_O
  \end{aligned}`;
  });

  // Mistake: "each head sees only part of the tokens" — the engine's shapes, live.
  const tokensDemo = el('div', 'mh-demo-lines');
  ch.mistake(s1, { title: 'mTokensTitle', body: 'mTokensBody', demo: (host) => host.append(tokensDemo) });

  function renderLab(): void {
    const r = labResult;
    if (!r) return;
    const T = r.tokens.length, H = r.probs.dims[0]!, D = r.q.dims[2]!;
    shapeLine.innerHTML = proseHtml(ch.t('shapeLine', { h: H, dk: D, T, C: C_LAB }));
    qMatrix.set(concatHeads(r.q), { rows: T, cols: C_LAB, rowLabels: r.tokens, colLabels: colLabels(D) });
    // Colour scale from 0 to the largest weight shown: seeded random weights give nearly
    // uniform rows, which a 0…1 scale would draw as one colour (the legend says the range).
    let top = 0;
    for (const v of r.probs.data) top = Math.max(top, v);
    headGrid.update({ tokens: r.tokens, probs: r.probs.data, heads: H, domain: [0, top || 1],
                      titleFor: (h) => ch.t('headMapTitle', { i: h + 1, from: h * D + 1, to: (h + 1) * D }) });
    concatMatrix.set(concatHeads(r.headOut), { rows: T, cols: C_LAB, rowLabels: r.tokens, colLabels: colLabels(D) });
    outMatrix.set(r.out.data, { rows: T, cols: C_LAB, rowLabels: r.tokens, colLabels: colLabels(C_LAB).map((_, c) => String(c + 1)) });
    f1.update();
    tokensDemo.replaceChildren(...Array.from({ length: H }, (_, h) => {
      const p = el('p');
      const row = Array.from(r.probs.data.subarray((h * T + T - 1) * T, (h * T + T) * T), (v) => formatNumber(v, 2)).join(', ');
      p.innerHTML = proseHtml(ch.t('mTokensLine', { i: h, T: r.q.dims[1]!, dk: D, C: C_LAB, word: r.tokens[T - 1]!, row: `[${row}]` }));
      return p;
    }));
    fig1.refreshTable();
    ch.debug.renders++;
  }
  ch.onLocale(renderLab);
  onThemeChange(() => headGrid.redraw());

  let labRun = 0;
  async function runLab(): Promise<void> {
    const tokens = labTokens();
    if (tokens.length === 0) return;
    const args = { tokens, dModel: C_LAB, heads: lab.heads, seed: lab.seed };
    const mine = ++labRun;
    try {
      const engine = await ch.engine();
      const r = await engine.attention(args);
      if (mine !== labRun) return;
      labResult = r;
      state['lab'] = { ...args, result: r };
      ch.setStatus(null);
      renderLab();
    } catch (e) {
      if (mine === labRun) ch.showError(e);
    }
  }

  return { run: runLab };
}
