// The common-mistake box of the chapter on additive attention ("one set of weights per
// sentence, or query and keys swapped") with its live demonstration on the hand figure's
// numbers: nudge one query (one row of α moves) or one encoder state (every row moves).
// The weights come from tfp_learn_additive_attention.
import type { AdditiveArgs, AdditiveResult } from '../../../engine/learn_calls/additive';
import { onLocaleChange } from '../../../i18n/i18n';
import { NumberMatrix } from '../../../widgets/number_matrix';
import { bound, ch, D, debug, el, engine, lt, SRC, t, TGT, TK, TQ, type Key } from './shared';

export interface HandAccess {
  inputs: () => { s: number[]; h: number[] };
  args: (over: { s?: number[]; h?: number[] }) => AdditiveArgs;
  result: () => AdditiveResult | null;
}

/** Builds the box into `host`; returns what to call when the figure's numbers change. */
export function mistakeBox(host: HTMLElement, hand: HandAccess): () => void {
  let refresh: () => void = () => {};
  const stepLabels = TGT.map((w) => lt('stepRow', { word: w }));
  const srcLabels = SRC.slice();
  ch.mistake(host, {
    title: 'mistakeTitle',
    body: 'mistakeBody',
    demo: (host) => {
      const buttons = el('div', 'additive-demo-buttons');
      const nudgeS = bound(el('button', 'additive-demo-button'), () => t('nudgeS'));
      const nudgeH = bound(el('button', 'additive-demo-button'), () => t('nudgeH'));
      nudgeS.type = nudgeH.type = 'button';
      buttons.append(nudgeS, nudgeH);
      // No axis names in the corner (they would not fit 390 px twice): the figure's alignment says them.
      const opts = { rowLabels: stepLabels, colLabels: srcLabels, digits: 3, heat: { domain: [0, 1] as [number, number] } };
      let what: Key | null = null;
      const before = new NumberMatrix(TQ, TK, { ...opts, label: lt('before') });
      const after = new NumberMatrix(TQ, TK, { ...opts, label: () => (what ? t('after', { what: t(what) }) : t('afterNone')) });
      const note = el('p', 'additive-note');
      note.setAttribute('aria-live', 'polite');
      const mats = el('div', 'additive-row');
      mats.append(before.element, after.element);
      host.append(buttons, mats, note);
      let last: { what: Key; weights: Float32Array } | null = null;
      const afterCaption = after.element.querySelector('caption');
      const show = () => {
        const hr = hand.result();
        if (!hr) return;
        if (afterCaption) afterCaption.textContent = what ? t('after', { what: t(what) }) : t('afterNone');
        before.set(hr.weights.data);
        if (!last) {
          after.set(hr.weights.data);
          note.textContent = '';
          return;
        }
        after.set(last.weights);
        const changed: string[] = [], same: string[] = [];
        for (let i = 0; i < TQ; i++) {
          let moved = false;
          for (let j = 0; j < TK; j++) if (Math.abs(last.weights[i * TK + j]! - hr.weights.data[i * TK + j]!) > 1e-6) moved = true;
          (moved ? changed : same).push(`→ ${TGT[i]}`);
        }
        note.textContent = t('changed', { rows: changed.join(', ') || t('none'), same: same.join(', ') || t('none') });
        debug.demo = { what: last.what, before: Array.from(hr.weights.data), after: Array.from(last.weights), changed, same };
      };
      const run = async (key: 'whatS' | 'whatH') => {
        const s = hand.inputs().s.slice(), h = hand.inputs().h.slice();
        if (key === 'whatS') { s[1 * D] += 1; s[1 * D + 1] += 1; } else { h[1 * D] += 1; h[1 * D + 1] += 1; }
        try {
          const r = await (await engine()).learn('additiveAttention', hand.args({ s, h }));
          what = key;
          last = { what: key, weights: r.weights.data };
          show();
        } catch (err) {
          note.textContent = ch.errorText(err);
        }
      };
      nudgeS.addEventListener('click', () => void run('whatS'));
      nudgeH.addEventListener('click', () => void run('whatH'));
      // The figure's numbers changed: the nudge is redone on them.
      refresh = () => { if (last) void run(last.what as 'whatS' | 'whatH'); else show(); };
      onLocaleChange(() => show());
    },
  });
  return () => refresh();
}
