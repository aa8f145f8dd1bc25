// Section 5: RoPE (engine.learn('ropeScore') → tfp_learn_rope_score → nn::rope): the
// reader's q and k (editable, d = 8), q rotated at m and k at n, their score before and
// after, and the score with both shifted by s (the same, up to rounding); the exercise
// "q at 5 and k at 3 against q at 12 and k at 10", answered by the engine.
// Legend: D head size.
import type { RopeScoreResult } from '../../../engine/learn_calls/positions';
import { NumberMatrix } from '../../../widgets/number_matrix';
import { numberTable } from '../../../widgets/tables';
import { fixed } from '../../format';
import { latest } from '../../latest';
import { intInput, type PosChapter } from './dom';

const D = 8;
const Q0 = [0.5, -1.0, 0.3, 0.8, -0.2, 1.1, 0.7, -0.4];
const K0 = [0.9, 0.1, -0.6, 0.4, 1.0, -0.3, 0.2, 0.5];

type Pairing = 'interleaved' | 'half-split';

export function ropeSection(ch: PosChapter): { run: () => Promise<void> } {
  const state = ch.debug.state;
  const rope = { m: 5, n: 2, s: 3, pairing: 'interleaved' as Pairing };
  let q: Float32Array = Float32Array.from(Q0), k: Float32Array = Float32Array.from(K0);
  let base: RopeScoreResult | null = null, shifted: RopeScoreResult | null = null;
  const s = ch.section('hRope');
  ch.prose(s, 'ropeWhat');
  const cols = Array.from({ length: D }, (_, c) => () => ch.t('colDim', { c }));
  const fig = ch.figure(s, {
    caption: 'figRopeCaption', label: 'figRopeLabel',
    table: (host) => {
      if (!base) return;
      const cl = cols.map((f) => f());
      host.replaceChildren(numberTable(ch.t('matQ'), ['q'], cl, q), numberTable(ch.t('matK'), ['k'], cl, k),
                           numberTable(ch.t('matQRot'), [`m = ${rope.m}`], cl, base.qRot, 4),
                           numberTable(ch.t('matKRot'), [`n = ${rope.n}`], cl, base.kRot, 4));
    },
  });
  const common = { colLabels: cols, digits: 2, heat: { map: 'viridis' as const, domain: 'symmetric' as const } };
  const qM = new NumberMatrix(1, D, { ...common, label: () => ch.t('matQ'), sym: 'q', rowLabels: [() => 'q'], editable: true, step: 0.1, min: -10, max: 10,
                                      onChange: (v) => { q = v; void run(); } });
  const kM = new NumberMatrix(1, D, { ...common, label: () => ch.t('matK'), sym: 'k', rowLabels: [() => 'k'], editable: true, step: 0.1, min: -10, max: 10,
                                      onChange: (v) => { k = v; void run(); } });
  qM.set(q);
  kM.set(k);
  const pos = (key: 'mLabel' | 'nLabel' | 'shiftLabel', id: string, field: 'm' | 'n' | 's') =>
    intInput(ch, key, id, { min: 0, max: 1000, value: rope[field] }, (v) => { rope[field] = v; void run(); }).element;
  fig.controls.append(qM.element, kM.element, pos('mLabel', 'pos-rope-m', 'm'), pos('nLabel', 'pos-rope-n', 'n'), pos('shiftLabel', 'pos-rope-s', 's'),
                      ch.segmented('pairingLabel', 'pos-rope-pairing', ['interleaved', 'half-split'] as const, rope.pairing,
                                   (v) => { rope.pairing = v; void run(); }, (v) => ch.t(v === 'interleaved' ? 'pairInter' : 'pairHalf')));
  fig.controls.classList.add('pos-rope-controls');
  const qR = new NumberMatrix(1, D, { ...common, digits: 3, label: () => ch.t('matQRot'), sym: 'qm', rowLabels: [() => `m = ${rope.m}`] });
  const kR = new NumberMatrix(1, D, { ...common, digits: 3, label: () => ch.t('matKRot'), sym: 'kn', rowLabels: [() => `n = ${rope.n}`] });
  fig.view.append(qR.element, kR.element);
  const formula = ch.formula(fig.view, () => String.raw`\sym{qm}{R_{${rope.m}}\,\sym{q}{q}} \cdot \sym{kn}{R_{${rope.n}}\,\sym{k}{k}} = \sym{q}{q}^\top R_{${rope.n - rope.m}}\,\sym{k}{k}`);
  let params: Record<string, string | number> = {};
  const line = ch.prose(fig.view, 'ropeLine', () => params);

  function render(): void {
    if (!base || !shifted) return;
    qR.set(base.qRot, { rows: 1, cols: D, rowLabels: [() => `m = ${rope.m}`], colLabels: cols });
    kR.set(base.kRot, { rows: 1, cols: D, rowLabels: [() => `n = ${rope.n}`], colLabels: cols });
    formula.update();
    params = { raw: fixed(base.raw, 4), m: rope.m, n: rope.n, score: fixed(base.score, 4), off: rope.m - rope.n, s: rope.s,
               ms: rope.m + rope.s, ns: rope.n + rope.s, shifted: fixed(shifted.score, 4) };
    line.rerender();
    state['rope'] = { ...rope, q: Array.from(q), k: Array.from(k), base, shifted };
    fig.refreshTable();
    ch.debug.renders++;
  }
  ch.onLocale(render);

  const run = latest(ch, async (isLatest) => {
    const engine = await ch.engine();
    const a = { q, k, pairing: rope.pairing };
    const r0 = await engine.learn('ropeScore', { ...a, m: rope.m, n: rope.n });
    const r1 = await engine.learn('ropeScore', { ...a, m: rope.m + rope.s, n: rope.n + rope.s });
    if (!isLatest()) return;
    base = r0;
    shifted = r1;
    render();
    ex.refresh();
  });

  const ex = ch.exercise(s, {
    id: 'rope-offset',
    question: 'exQuestion',
    choices: () => [ch.t('exChoice0'), ch.t('exChoice1'), ch.t('exChoice2')],
    answer: async () => {
      const engine = await ch.engine();
      const a = { q, k, pairing: rope.pairing };
      const [r53, r1210, r35] = [await engine.learn('ropeScore', { ...a, m: 5, n: 3 }), await engine.learn('ropeScore', { ...a, m: 12, n: 10 }),
                                 await engine.learn('ropeScore', { ...a, m: 3, n: 5 })];
      const diff = Math.abs(r53.score - r1210.score);
      // Equal within float rounding of a sum of D products of rotated values.
      const equal = diff <= 1e-4 * Math.max(1, Math.abs(r53.score));
      state['exercise'] = { a: r53.score, b: r1210.score, c: r35.score, equal };
      return { correct: equal ? 0 : 1, explanation: ch.t('exExplain', { pairing: ch.t(rope.pairing === 'interleaved' ? 'pairInter' : 'pairHalf'),
        a: fixed(r53.score, 5), b: fixed(r1210.score, 5), diff: diff.toExponential(1), c: fixed(r35.score, 5) }) };
    },
  });
  return { run };
}
