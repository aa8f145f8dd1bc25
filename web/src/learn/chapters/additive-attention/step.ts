// The section "How c_t feeds the next step" of the chapter on additive attention: one
// decoder step of numbers-gru on the reader's text, in the order gru_decoder_step
// (src/model/gru_seq2seq.cpp) runs it:
//   s_{t−1} → e_tj = vᵀtanh(W s_{t−1} + b + U h_j) → α_t → c_t = Σ_j α_tj h_j
//   x_t = [E[y_{t−1}] ; c_t] → s_t = GRU(x_t, s_{t−1}) → logits = W_o [s_t ; c_t] + b_o → p(y_t)
// and s_t is the query of step t + 1. Every vector is the engine's
// (tfp_learn_additive_gru_steps: "query", "weights", "context", "embed", "state",
// "probs", and "dot_weights", Luong's dot score on the same s_{t−1} and h_j); the page
// only places E[y_{t−1}] and c_t side by side (the concatenation the GRU reads) and
// picks the five most probable tokens.
import { onLocaleChange } from '../../../i18n/i18n';
import { Heatmap } from '../../../widgets/heatmap';
import { ProbBars } from '../../../widgets/prob_bars';
import { maxAbs, vectorBars } from '../../../widgets/vector_bars';
import { proseHtml } from '../../maths';
import { bound, ch, charLabel, debug, el, fmt, lt, row, t, valuesTable } from './shared';
import { outLabel, type ModelRun } from './model';

export function stepSection(): { render: (run: ModelRun) => void } {
  const sec = ch.section('hStep');
  ch.prose(sec, 'step');
  ch.formula(sec, () => String.raw`\begin{aligned}
\sym{c}{c_t} &= \textstyle\sum_{j} \sym{alpha}{\alpha_{tj}}\, \sym{h}{h_j} \\
\sym{s}{s_t} &= \mathrm{GRU}\big([\,E[y_{t-1}]\,;\, \sym{c}{c_t}\,],\; \sym{s}{s_{t-1}}\big) \\
p(y_t) &= \mathrm{softmax}\big(W_o\,[\,\sym{s}{s_t}\,;\, \sym{c}{c_t}\,] + b_o\big)
\end{aligned}`);
  const st = { run: null as ModelRun | null, step: 1 };
  const fig = ch.figure(sec, { caption: 'figStep', label: 'figStepLabel', table: (host) => table(host) });
  fig.element.classList.add('additive-stepfig');

  const pickLabel = el('label', 'field additive-step-select');
  const select = el('select');
  pickLabel.append(bound(el('span'), () => t('stepSelect')), select);
  select.addEventListener('change', () => {
    st.step = Number(select.value);
    render();
  });
  fig.controls.append(pickLabel);

  const flow = el('ol', 'additive-flow');
  fig.view.append(flow);
  const alphaMap = new Heatmap({ title: t('stepAlphaTitle'), rowAxis: lt('stepScoreKind'), colAxis: lt('sourceChar'), digits: 3, maxCell: 26 });
  alphaMap.element.dataset.sym = 'alpha';
  const bars = new ProbBars(lt('stepProbs'), { absolute: true });

  /** y_{t−1}: the start mark at step 1, else the token written at the step before. */
  const prevLabel = (run: ModelRun, s: number) => (s === 0 ? t('startMark') : outLabel(run.out.tokens[s - 1]!, run.out.ids[s - 1]!));

  function item(title: string, ...content: (HTMLElement | string)[]): HTMLElement {
    const li = el('li', 'additive-flow-item');
    const head = el('p', 'additive-flow-head');
    head.innerHTML = proseHtml(title);
    li.append(head, ...content.map((c) => {
      if (typeof c !== 'string') return c;
      const p = el('p', 'additive-flow-text');
      p.innerHTML = proseHtml(c);
      return p;
    }));
    return li;
  }

  function render(): void {
    const run = st.run;
    if (!run) return;
    const o = run.out, T = o.ids.length, s = Math.min(st.step, T - 1);
    st.step = s;
    select.replaceChildren(...Array.from(o.ids, (id, i) => {
      const opt = el('option', undefined, t('stepOptionOut', { t: i + 1, prev: charLabel(prevLabel(run, i)), tok: outLabel(o.tokens[i]!, id) }));
      opt.value = String(i);
      opt.selected = i === s;
      return opt;
    }));
    const q = row(o.query, s), c = row(o.context, s), e = row(o.embed, s), sn = row(o.state, s), p = row(o.probs, s);
    const x = Float32Array.from([...e, ...c]);  // [E[y_{t−1}] ; c_t], as the GRU reads it
    const scale = maxAbs(q, sn);
    const cols = run.srcTokens.map(charLabel);
    const rows = [t('kindAdditive'), ...(o.dotWeights ? [t('kindDot')] : [])];
    const values = Float32Array.from([...row(o.weights, s), ...(o.dotWeights ? row(o.dotWeights, s) : [])]);
    alphaMap.setTitle(t('stepAlphaTitle'));
    alphaMap.update({ rowLabels: rows, colLabels: cols, values, domain: [0, 1] });
    const order = Array.from(p, (_, id) => id).sort((a, b) => p[b]! - p[a]!).slice(0, 5);
    bars.update(order.map((id) => ({ label: charLabel(outLabel(o.vocab[id]!, id)), value: p[id]!, note: `id ${id}` })));
    const next = s + 1 < T ? t('stepNext', { t: s + 2 }) : t('stepLast');
    const E = e.length, Ce = c.length, D = q.length;
    flow.replaceChildren(
      item(t('flowQuery', { t: s + 1, n: D }), vectorBars(q, { label: t('flowQuery', { t: s + 1, n: D }).replace(/<[^>]+>/g, ''), scale })),
      item(t('flowAlpha', { t: s + 1, n: run.srcIds.length }), alphaMap.element),
      item(t('flowContext', { n: Ce }), vectorBars(c, { label: `c_${s + 1}` })),
      item(t('flowInput', { prev: charLabel(prevLabel(run, s)), e: E, c: Ce, n: E + Ce }), vectorBars(x, { label: `[E[y]; c], ${E + Ce}` })),
      item(t('flowState', { t: s + 1, n: D }), vectorBars(sn, { label: `s_${s + 1}`, scale }), next),
      item(t('flowOut', { n: D + Ce, tok: charLabel(outLabel(o.tokens[s]!, o.ids[s]!)), p: fmt(p[o.ids[s]!]!) }), bars.element),
    );
    fig.refreshTable();
    debug.step = {
      step: s, text: run.text, query: Array.from(q), context: Array.from(c), embed: Array.from(e), input: Array.from(x), state: Array.from(sn),
      weights: Array.from(row(o.weights, s)), dotWeights: o.dotWeights ? Array.from(row(o.dotWeights, s)) : null,
      top: order.map((id) => ({ id, p: p[id] })), prev: prevLabel(run, s), out: o.ids[s],
      renders: ((debug.step as { renders?: number } | undefined)?.renders ?? 0) + 1,
    };
    ch.debug.renders++;
  }
  onLocaleChange(() => render());

  function table(host: HTMLElement): void {
    const run = st.run;
    if (!run) return;
    const o = run.out, s = st.step;
    const vec = (name: string, v: Float32Array) => ({ label: name, values: Array.from(v) });
    const dims = (n: number) => Array.from({ length: n }, (_, i) => String(i + 1));
    valuesTable(host, t('stepTableAlpha', { t: s + 1 }), '', run.srcTokens.map((c, j) => t('charRow', { n: j + 1, char: charLabel(c) })),
      [vec(t('kindAdditive'), row(o.weights, s)), ...(o.dotWeights ? [vec(t('kindDotUntrained'), row(o.dotWeights, s))] : [])]);
    valuesTable(host, t('stepTableVectors', { t: s + 1 }), t('stepTableComponent'), dims(o.query.dims[1]!),
      [vec('s_{t−1}', row(o.query, s)), vec('c_t', row(o.context, s)), vec('s_t', row(o.state, s))]);
    valuesTable(host, t('stepTableEmbed', { prev: charLabel(prevLabel(run, s)) }), t('stepTableComponent'), dims(o.embed.dims[1]!), [vec('E[y_{t−1}]', row(o.embed, s))]);
    const p = row(o.probs, s);
    valuesTable(host, t('stepTableProbs', { t: s + 1 }), t('stepTableToken'), ['p'],
      Array.from(p, (v, id) => ({ label: charLabel(outLabel(o.vocab[id]!, id)), values: [v] })));
  }

  return { render: (run) => { st.run = run; render(); } };
}
