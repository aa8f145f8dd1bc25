// The section "The same states, scored by a dot product" of the chapter on additive
// attention: Luong et al.'s (2015) "dot" score s·h_j and "general" score sᵀW_a h_j (here
// W_a = WᵀU, so the score is (W s)·(U h_j): the additive score's own projections,
// multiplied instead of added) beside the additive one, on the hand figure's states. The
// scores, weights and contexts of all three come from one tfp_learn_additive_attention
// call (the hand figure's); this module only lays them out for the step the reader picks.
import type { AdditiveResult, DotResult } from '../../../engine/learn_calls/additive';
import type { FloatTensor } from '../../../engine/messages';
import { onLocaleChange } from '../../../i18n/i18n';
import { NumberMatrix } from '../../../widgets/number_matrix';
import { argmax, bound, ch, D, debug, el, flexRow, lt, row, SRC, t, TGT, TK, valuesTable, type Key } from './shared';

const KINDS = ['kindAdditive', 'kindDot', 'kindGeneral'] as const satisfies readonly Key[];

export function compareSection(): { render: (r: AdditiveResult) => void } {
  const sec = ch.section('hCompare');
  ch.prose(sec, 'compare');
  ch.formula(sec, () => String.raw`\begin{aligned}
\text{additive:}\quad & \sym{e}{e_{tj}} = \sym{v}{v}^{\top}\tanh(\sym{W}{W}\sym{s}{s_{t-1}} + \sym{U}{U}\sym{h}{h_j}) \\
\text{dot:}\quad & \sym{e}{e_{tj}} = \sym{s}{s_{t-1}}^{\top}\sym{h}{h_j} \\
\text{general:}\quad & \sym{e}{e_{tj}} = \sym{s}{s_{t-1}}^{\top} W_a \sym{h}{h_j},\;\; W_a = \sym{W}{W}^{\top}\sym{U}{U}
\end{aligned}`);
  let last: AdditiveResult | null = null;
  let step = 0;
  const fig = ch.figure(sec, { caption: 'figCompare', label: 'figCompareLabel', table: (host) => table(host) });
  fig.element.classList.add('additive-compare');

  const pick = el('fieldset', 'additive-step-pick');
  pick.append(bound(el('legend'), () => t('stepPick')));
  TGT.forEach((w, i) => {
    const label = el('label');
    const r = el('input');
    r.type = 'radio';
    r.name = 'additive-compare-step';
    r.checked = i === step;
    r.addEventListener('change', () => {
      step = i;
      render();
    });
    label.append(r, bound(el('span'), () => t('stepOption', { t: i + 1, word: w })));
    pick.append(label);
  });
  fig.controls.append(pick);

  const kindLabels = KINDS.map((k) => lt(k));
  const dims = Array.from({ length: D }, (_, i) => lt('dim', { n: i + 1 }));
  const mE = new NumberMatrix(3, TK, { label: lt('cmpScores'), sym: 'e', rowLabels: kindLabels, colLabels: SRC.slice(), colAxis: lt('sourceWord'), digits: 3 });
  const mA = new NumberMatrix(3, TK, { label: lt('cmpWeights'), sym: 'alpha', rowLabels: kindLabels, colLabels: SRC.slice(), colAxis: lt('sourceWord'),
    digits: 3, heat: { domain: [0, 1] } });
  const mC = new NumberMatrix(3, D, { label: lt('cmpContext'), sym: 'c', rowLabels: kindLabels, colLabels: dims, digits: 3 });
  const note = el('p', 'additive-note');
  note.setAttribute('aria-live', 'polite');
  fig.view.append(flexRow(mE.element, mA.element), mC.element, note);

  const kinds = (r: AdditiveResult): { scores: FloatTensor; weights: FloatTensor; context: FloatTensor }[] =>
    [{ scores: r.scores, weights: r.weights, context: r.context }, r.dot as DotResult, r.general];

  function render(): void {
    const r = last;
    if (!r || !r.dot) return;
    const ks = kinds(r);
    const cat = (f: (k: (typeof ks)[number]) => FloatTensor) => Float32Array.from(ks.flatMap((k) => Array.from(row(f(k), step))));
    mE.set(cat((k) => k.scores));
    mA.set(cat((k) => k.weights));
    mC.set(cat((k) => k.context));
    const top = ks.map((k) => SRC[argmax(row(k.weights, step))]!);
    note.textContent = t('cmpNote', { t: step + 1, word: TGT[step]!, add: top[0]!, dot: top[1]!, gen: top[2]! });
    fig.refreshTable();
    debug.compare = { step, top, ...Object.fromEntries(KINDS.map((k, i) => [k, {
      scores: Array.from(row(ks[i]!.scores, step)), weights: Array.from(row(ks[i]!.weights, step)), context: Array.from(row(ks[i]!.context, step)),
    }])) };
    ch.debug.renders++;
  }
  onLocaleChange(() => render());

  function table(host: HTMLElement): void {
    const r = last;
    if (!r || !r.dot) return;
    const ks = kinds(r);
    const cols = [...SRC.map((w) => `e, ${w}`), ...SRC.map((w) => `α, ${w}`), ...Array.from({ length: D }, (_, d) => `c, ${t('dim', { n: d + 1 })}`)];
    valuesTable(host, t('cmpTable'), t('tableStep'), cols, TGT.flatMap((w, i) => KINDS.map((k, q) => ({
      label: `${t('stepOption', { t: i + 1, word: w })} · ${t(k)}`,
      values: [...row(ks[q]!.scores, i), ...row(ks[q]!.weights, i), ...row(ks[q]!.context, i)],
    }))));
  }

  return { render: (r) => { last = r; render(); } };
}
