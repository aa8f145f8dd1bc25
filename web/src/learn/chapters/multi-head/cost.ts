// Chapter 6, figure 3: parameter and FLOP counts of one multi-head attention block
// (engine.learn('mhaCost') → tfp_learn_mha_cost → nn/attention_cost.h) for the d_model, h
// and T the reader picks, the formula filled with the engine's numbers, and the mistake box
// "more heads mean more parameters" with the engine's counts for every h.
// Legend: T tokens, C = d_model, H heads, D = d_k = C/H.
import { proseHtml } from '../../maths';
import type { MhaCostResult } from '../../../engine/learn_calls/multihead';
import { type Key, type MhChapter } from './dom';
import { el } from '../../../widgets/dom';
import { num as fmt } from '../../format';

/** Builds section 3 into the chapter; run() asks the engine and draws. */
export function costSection(ch: MhChapter): { run: () => Promise<void> } {
  const state = ch.debug.state;
  const D_MODELS = [8, 64, 128, 256, 512, 768, 1024, 2048, 4096];
  const cost = { dModel: 512, heads: 8, tokens: 128 };
  let costResult: MhaCostResult | null = null;
  let sweep: { heads: number; result: MhaCostResult }[] = [];

  const s3 = ch.section('hCost');
  ch.prose(s3, 'costIntro');
  const ROWS: [Key, keyof MhaCostResult, string][] = [
    ['rowDk', 'headDim', String.raw`d_\text{model}/h`],
    ['rowParamsQ', 'paramsQ', String.raw`d_\text{model}^2 + d_\text{model}`],
    ['rowParamsTotal', 'paramsTotal', String.raw`4d_\text{model}^2 + 4d_\text{model}`],
    ['rowFlopsQkv', 'flopsQkv', String.raw`3 \cdot 2Td_\text{model}^2`],
    ['rowFlopsScores', 'flopsScores', String.raw`h \cdot 2T^2 d_k = 2T^2 d_\text{model}`],
    ['rowFlopsMix', 'flopsMix', String.raw`h \cdot 2T^2 d_k = 2T^2 d_\text{model}`],
    ['rowFlopsOut', 'flopsOut', String.raw`2Td_\text{model}^2`],
    ['rowFlopsTotal', 'flopsTotal', String.raw`8Td_\text{model}^2 + 4T^2 d_\text{model}`],
    ['rowMap', 'mapEntries', String.raw`hT^2`],
  ];

  function costTable(): HTMLTableElement {
    const table = el('table', 'mh-cost-table');
    const head = table.createTHead().insertRow();
    for (const k of ['costWhat', 'costFormula', 'costValue'] as Key[]) {
      const th = el('th');
      th.scope = 'col';
      th.textContent = ch.t(k);
      head.append(th);
    }
    const body = table.createTBody();
    for (const [key, field, tex] of ROWS) {
      const tr = body.insertRow();
      tr.dataset.field = field;
      const th = el('th');
      th.scope = 'row';
      th.textContent = ch.t(key);
      tr.append(th);
      tr.insertCell().innerHTML = proseHtml(`$${tex}$`);
      const td = tr.insertCell();
      td.className = 'num';
      td.textContent = costResult ? fmt(costResult[field]) : '';
    }
    return table;
  }

  const fig3 = ch.figure(s3, { caption: 'figCostCaption', label: 'figCostLabel', table: (host) => host.replaceChildren(costTable()) });
  const dSelect = el('select');
  D_MODELS.forEach((d) => { const o = el('option'); o.value = o.textContent = String(d); dSelect.append(o); });
  dSelect.value = String(cost.dModel);
  const hSelect = el('select');
  const tInput = el('input');
  tInput.type = 'number';
  tInput.min = '1';
  tInput.max = '65536';
  tInput.value = String(cost.tokens);
  const divisors = (C: number) => Array.from({ length: Math.min(C, 64) }, (_, i) => i + 1).filter((h) => C % h === 0);
  function fillHeads(): void {
    const hs = divisors(cost.dModel);
    if (!hs.includes(cost.heads)) cost.heads = hs.filter((h) => h <= cost.heads).pop() ?? 1;
    hSelect.replaceChildren(...hs.map((h) => { const o = el('option'); o.value = o.textContent = String(h); return o; }));
    hSelect.value = String(cost.heads);
  }
  fillHeads();
  dSelect.addEventListener('change', () => { cost.dModel = Number(dSelect.value); fillHeads(); void runCost(); });
  hSelect.addEventListener('change', () => { cost.heads = Number(hSelect.value); void runCost(); });
  tInput.addEventListener('input', () => {
    const v = Number(tInput.value);
    if (Number.isInteger(v) && v >= 1 && v <= 65536) { cost.tokens = v; void runCost(); }
  });
  fig3.controls.append(ch.field('dModelLabel', dSelect, 'mh-dmodel').element, ch.field('headsLabel', hSelect, 'mh-h').element, ch.field('tokensLabel', tInput, 'mh-tokens').element);
  const costFormulaBox = el('div');
  const costTableBox = el('div', 'mh-cost');
  fig3.view.append(costFormulaBox, costTableBox);
  fig3.view.classList.add('mh-cost-view');
  const f3 = ch.formula(costFormulaBox, () => {
    const { dModel: C, tokens: T } = cost;
    const r = costResult;
    const n = (v: number | undefined) => (v === undefined ? '?' : fmt(v).replace(/,/g, '{,}'));
    return String.raw`\begin{aligned}
  \text{${ch.t('fParams')}} &= 4d_\text{model}^2 + 4d_\text{model}\\
  &= 4 \cdot ${C}^2 + 4 \cdot ${C}\\
  &= ${n(r?.paramsTotal)}\\[0.4em]
  \text{${ch.t('fFlops')}} &= 8Td_\text{model}^2 + 4T^2 d_\text{model}\\
  &= 8 \cdot ${T} \cdot ${C}^2 + 4 \cdot ${T}^2 \cdot ${C}\\
  &= ${n(r?.flopsTotal)}
  \end{aligned}`;
  });

  // Mistake: "more heads mean more parameters" — the engine's counts for every h.
  const sweepBox = el('div', 'mh-sweep');
  const mistake = ch.mistake(s3, { title: 'mParamsTitle', body: 'mParamsBody', bodyParams: () => ({ C: cost.dModel, T: cost.tokens }),
                   demo: (host) => host.append(sweepBox) });

  function renderCost(): void {
    costTableBox.replaceChildren(costTable());
    f3.update();
    const table = el('table', 'mh-sweep-table');
    table.createCaption().textContent = ch.t('mParamsCaption');
    const head = table.createTHead().insertRow();
    for (const text of ['h', 'd_k', ch.t('rowParamsTotal'), ch.t('rowFlopsTotal'), ch.t('rowMap')]) {
      const th = el('th');
      th.scope = 'col';
      th.textContent = text;
      head.append(th);
    }
    const body = table.createTBody();
    for (const { heads, result } of sweep) {
      const tr = body.insertRow();
      tr.dataset.heads = String(heads);
      if (heads === cost.heads) tr.classList.add('is-current');
      for (const v of [heads, result.headDim, result.paramsTotal, result.flopsTotal, result.mapEntries]) {
        const td = tr.insertCell();
        td.className = 'num';
        td.textContent = fmt(v);
      }
    }
    sweepBox.replaceChildren(table);
    // The box's prose names d_model and T.
    mistake.rerender();
    fig3.refreshTable();
    ch.debug.renders++;
  }
  ch.onLocale(renderCost);

  let costRun = 0;
  async function runCost(): Promise<void> {
    const mine = ++costRun;
    const args = { dModel: cost.dModel, heads: cost.heads, tokens: cost.tokens };
    try {
      const engine = await ch.engine();
      const result = await engine.learn('mhaCost', args);
      const all = await Promise.all(divisors(cost.dModel).map(async (heads) =>
        ({ heads, result: await engine.learn('mhaCost', { ...args, heads }) })));
      if (mine !== costRun) return;
      costResult = result;
      sweep = all;
      state['cost'] = { ...args, result, sweep: all };
      renderCost();
    } catch (e) {
      if (mine === costRun) ch.showError(e);
    }
  }

  return { run: runCost };
}
