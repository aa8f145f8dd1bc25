// Figure 1: LayerNorm on the reader's rows (engine.learn('layerNorm') →
// tfp_learn_layer_norm → nn::layer_norm): X, γ, β editable; Y and each row's mean and
// variance before and after, as the engine measured them; a worked line for row 1; the
// exercise "each row's mean and variance after LN" (answered by the engine with γ = 1,
// β = 0); the mistake box "LayerNorm normalises over the tokens" with the engine's
// per-column statistics. Legend: T tokens (rows), C features (columns).
import type { LayerNormResult } from '../../../engine/learn_calls/encoder';
import { NumberMatrix } from '../../../widgets/number_matrix';
import type { EncChapter } from './dom';
import { el } from '../../../widgets/dom';
import { fixed, listSep } from '../../format';
import { numberTable } from '../../../widgets/tables';

const T = 3, C = 4;
const X0 = [1.0, 2.0, 3.0, 6.0,
            0.5, -1.0, 0.0, 2.5,
            10.0, 10.5, 9.0, 12.5];

export function normSection(ch: EncChapter): { run: () => Promise<void> } {
  const state = ch.debug.state;
  const s = ch.section('hNorm');
  ch.prose(s, 'normWhat');
  const rowLabels = Array.from({ length: T }, (_, i) => () => ch.t('rowToken', { i: i + 1 }));
  const colLabels = Array.from({ length: C }, (_, c) => () => ch.t('colFeature', { c: c + 1 }));
  let x: Float32Array = Float32Array.from(X0), gamma: Float32Array = new Float32Array(C).fill(1), beta: Float32Array = new Float32Array(C);
  let result: LayerNormResult | null = null;

  const fig = ch.figure(s, {
    caption: 'figNormCaption', label: 'figNormLabel',
    table: (host) => {
      if (!result) return;
      const rl = rowLabels.map((f) => f()), cl = colLabels.map((f) => f());
      host.replaceChildren(
        numberTable(ch.t('matX'), rl, cl, x, 3),
        numberTable(ch.t('matY'), rl, cl, result.y.data, 4),
        numberTable(ch.t('matStats'), rl, [ch.t('colMeanIn'), ch.t('colVarIn'), ch.t('colMeanOut'), ch.t('colVarOut')], statsRows(result), 4),
      );
    },
  });
  const common = { rowLabels, colLabels, rowAxis: () => ch.t('rowAxis'), colAxis: () => ch.t('colAxis') };
  const xM = new NumberMatrix(T, C, { ...common, label: () => ch.t('matX'), sym: 'X', digits: 2, editable: true, step: 0.1, min: -1e4, max: 1e4,
    heat: { map: 'viridis', domain: 'auto' }, onChange: (v) => { x = v; void run(); } });
  const gM = new NumberMatrix(1, C, { label: () => ch.t('matGamma'), sym: 'gamma', colLabels, rowLabels: [() => 'γ'], digits: 2, editable: true,
    step: 0.1, min: -100, max: 100, onChange: (v) => { gamma = v; void run(); } });
  const bM = new NumberMatrix(1, C, { label: () => ch.t('matBeta'), sym: 'beta', colLabels, rowLabels: [() => 'β'], digits: 2, editable: true,
    step: 0.1, min: -100, max: 100, onChange: (v) => { beta = v; void run(); } });
  xM.set(x);
  gM.set(gamma);
  bM.set(beta);
  const reset = el('button', 'enc-reset');
  reset.type = 'button';
  ch.bind(reset, 'normReset');
  reset.addEventListener('click', () => { gamma = new Float32Array(C).fill(1); beta = new Float32Array(C); gM.set(gamma); bM.set(beta); void run(); });
  fig.controls.append(xM.element, gM.element, bM.element, reset);
  fig.controls.classList.add('enc-norm-controls');

  const yM = new NumberMatrix(T, C, { ...common, label: () => ch.t('matY'), sym: 'Y', digits: 3, heat: { map: 'viridis', domain: 'symmetric' } });
  const statCols = [() => ch.t('colMeanIn'), () => ch.t('colVarIn'), () => ch.t('colMeanOut'), () => ch.t('colVarOut')];
  const sM = new NumberMatrix(T, 4, { label: () => ch.t('matStats'), rowLabels, colLabels: statCols, rowAxis: () => ch.t('rowAxis'), digits: 4 });
  const formulaBox = el('div', 'enc-formula');
  fig.view.append(formulaBox, yM.element, sM.element);
  fig.view.classList.add('enc-norm-view');
  ch.formula(formulaBox, () => String.raw`\sym{Y}{Y}_{t,c} = \sym{gamma}{\gamma_c}\,\frac{\sym{X}{X}_{t,c} - \mu_t}{\sqrt{\sigma_t^2 + \varepsilon}} + \sym{beta}{\beta_c}`);
  let workedParams: Record<string, string> = {};
  const worked = ch.prose(fig.view, 'normWorked', () => workedParams);
  worked.classList.add('enc-worked');

  function statsRows(r: LayerNormResult): Float32Array {
    const out = new Float32Array(T * 4);
    for (let i = 0; i < T; i++) out.set([r.rowIn.data[2 * i]!, r.rowIn.data[2 * i + 1]!, r.rowOut.data[2 * i]!, r.rowOut.data[2 * i + 1]!], i * 4);
    return out;
  }

  function render(): void {
    const r = result;
    if (!r) return;
    yM.set(r.y.data);
    sM.set(statsRows(r));
    workedParams = { mean: fixed(r.rowIn.data[0]!, 4), var: fixed(r.rowIn.data[1]!, 4), x: fixed(x[0]!, 2), g: fixed(gamma[0]!, 2),
                     b: fixed(beta[0]!, 2), y: fixed(r.y.data[0]!, 4) };
    worked.rerender();
    colsM.set(r.colOut.data);
    fig.refreshTable();
    ch.debug.renders++;
  }

  let runId = 0;
  async function run(): Promise<void> {
    const mine = ++runId;
    try {
      const engine = await ch.engine();
      const r = await engine.learn('layerNorm', { x: { data: x, dims: [T, C] }, gamma, beta, eps: 1e-5 });
      if (mine !== runId) return;
      result = r;
      state['norm'] = { x: Array.from(x), gamma: Array.from(gamma), beta: Array.from(beta), result: r };
      render();
      ex.refresh();
    } catch (e) {
      if (mine === runId) ch.showError(e);
    }
  }

  const ex = ch.exercise(s, {
    id: 'layernorm-rows',
    question: 'exQuestion',
    choices: () => [ch.t('exChoice0'), ch.t('exChoice1'), ch.t('exChoice2'), ch.t('exChoice3')],
    answer: async () => {
      const engine = await ch.engine();
      const r = await engine.learn('layerNorm', { x: { data: x, dims: [T, C] }, eps: 1e-5 });
      const rows = Array.from({ length: T }, (_, i) => `${ch.t('rowToken', { i: i + 1 })}: ${fixed(r.rowOut.data[2 * i]!, 6)}, ${fixed(r.rowOut.data[2 * i + 1]!, 6)}`);
      const cols = Array.from({ length: C }, (_, c) => fixed(r.colOut.data[2 * c]!, 3)).join(', ');
      // The choice the engine's numbers match: every row mean 0 and variance 1 within 1e-3
      // (a row of equal values has variance 0 and is said apart, not counted against it).
      const constant = Array.from({ length: T }, (_, i) => r.rowIn.data[2 * i + 1]! < 1e-6);
      const unit = Array.from({ length: T }, (_, i) => constant[i] || (Math.abs(r.rowOut.data[2 * i]!) < 1e-3 && Math.abs(r.rowOut.data[2 * i + 1]! - 1) < 1e-3)).every(Boolean);
      state['exercise'] = { rowOut: Array.from(r.rowOut.data), unit };
      return { correct: unit ? 0 : 1, explanation: ch.t('exExplain', { rows: rows.join(listSep()), cols, constant: constant.some(Boolean) ? ch.t('exConstant') : '' }) };
    },
  });

  // The mistake box: the engine's statistics per column of Y (over the tokens).
  const colsM = new NumberMatrix(C, 2, { label: () => ch.t('matCols'), rowLabels: colLabels, colLabels: [() => ch.t('colMean'), () => ch.t('colVar')], digits: 3 });
  ch.mistake(s, { title: 'mistakeTokensTitle', body: 'mistakeTokensBody', demo: (host) => host.append(colsM.element) });
  ch.onLocale(render);
  return { run };
}
